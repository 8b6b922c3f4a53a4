"""Judgment drill-down: for one image × scenario, every prompt exactly as sent and every answer.

The prompt of an ordering is rebuilt from the stored template (``prompt_variant``) with the
study's own :class:`~cueshift.study.scenarios.Ordering` (seed 000 Appendix C.2): which letter
names the favorable pole and which descriptor is written first. Raw responses, parsed outcomes
and P(favorable) are read from the attached study file (``judgment``), never aggregated.
"""

from __future__ import annotations

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.page_helpers import NotFound
from cueshift.study.scenarios import Ordering, Scenario
from cueshift.viewer.menus import Menus


def image_row(con: duckdb.DuckDBPyConnection, image_id: str) -> dict[str, object]:
    """The registered image (with its identity's demographics), or a 404."""
    rows = store.query(
        con,
        "SELECT m.*, i.age, i.gender, i.ethnicity, i.body_type FROM image AS m "
        "JOIN face AS i USING (face_id) WHERE m.image_id = ?",
        [image_id],
    )
    if rows.height == 0:
        raise NotFound(f"image={image_id!r}: no such image in this study")
    return rows.row(0, named=True)


def prompts(con: duckdb.DuckDBPyConnection, menus: Menus, scenario_id: str) -> dict[int, str]:
    """The exact prompt text of each stored ordering for one scenario."""
    known = menus.scenario(scenario_id)
    scenario = Scenario(known.scenario_id, known.favorable, known.unfavorable, known.category)
    rows = store.query(
        con, "SELECT ordering, favorable_letter, favorable_first, template FROM prompt_variant ORDER BY 1"
    )
    return {
        int(r["ordering"]): Ordering(
            int(r["ordering"]), str(r["favorable_letter"]), bool(r["favorable_first"])
        ).render(str(r["template"]), scenario)
        for r in rows.iter_rows(named=True)
    }


def judgments(
    con: duckdb.DuckDBPyConnection, image_id: str, scenario_id: str, model: str | None
) -> pl.DataFrame:
    """Every stored judgment of the image × scenario (one model, or all), by model, ordering, seed."""
    condition, params = ("AND model_id = ?", [model]) if model else ("", [])
    return store.query(
        con,
        f"""
        SELECT model_id, ordering, seed, response_text, outcome, chosen_letter, p_favorable, p_neither,
               latency_ms
        FROM study.main.judgment WHERE image_id = ? AND scenario_id = ? {condition}
        ORDER BY model_id, ordering, seed
        """,
        [image_id, scenario_id, *params],
    )


def cell_summary(judged: pl.DataFrame) -> pl.DataFrame:
    """Per model: answers, valid answers, φ = favorable / valid (seed 000 Eq. 1), mean P(favorable)."""
    return (
        judged.group_by("model_id")
        .agg(
            n_total=pl.len(),
            n_valid=(pl.col("outcome") != "invalid").sum(),
            n_favorable=(pl.col("outcome") == "favorable").sum(),
            phi_expected=pl.col("p_favorable").mean(),
        )
        .with_columns(
            phi=pl.when(pl.col("n_valid") > 0).then(pl.col("n_favorable") / pl.col("n_valid")).otherwise(None)
        )
        .sort("model_id")
    )
