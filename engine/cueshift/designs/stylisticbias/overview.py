"""`cueshift analyze`, first cut: the numbers that show the planted effects come back.

Per model: judgments, invalid rate, mean φ per scenario category, the ten attribute variations
with the largest mean Δ (by absolute value) and, apart from them, the noise floor: mean Δ and
mean |Δ| of the placebo variations (``feature_key = 'placebo'``: an identical copy and a lossless
re-encode of each base, true Δ = 0), never ranked among the variations. All read from the
``phi``/``delta`` views, of the models ``--models`` chose (every model when it is left out).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import polars as pl
from rich.console import Console
from rich.markup import escape

from cueshift import store
from cueshift._console import FitTable
from cueshift.views.frames import PLACEBO_FEATURE_KEY

#: SQL condition: the row is a noise-floor placebo (a null ``feature_key`` is an attribute).
IS_PLACEBO = f"coalesce(lower(feature_key), '') = '{PLACEBO_FEATURE_KEY}'"


@dataclass(frozen=True)
class Overview:
    judgments: pl.DataFrame  # model_id, n_judgments, n_invalid, invalid_rate
    phi_by_category: pl.DataFrame  # model_id, scenario_category, mean_phi, n_cells
    #: model_id, variation_category, variation_value, mean_delta, n_cells, n_faces (no placebo)
    top_variations: pl.DataFrame
    #: model_id, variation_value, mean_delta, mean_abs_delta, n_cells, n_faces (placebos only)
    noise_floor: pl.DataFrame


def _of_models(models: Sequence[str]) -> tuple[str, list[object] | None]:
    """The SQL condition keeping the rows of ``models`` (all rows when empty), and its parameters."""
    if not models:
        return "TRUE", None
    return "list_contains(?::VARCHAR[], model_id)", [list(models)]


def overview(con: duckdb.DuckDBPyConnection, top: int = 10, models: Sequence[str] = ()) -> Overview:
    """Compute the first-cut summary from the views, of ``models`` (empty: every model)."""
    chosen, params = _of_models(models)
    judgments = store.query(
        con,
        f"""
        SELECT model_id,
               count(*) AS n_judgments,
               count(*) FILTER (WHERE outcome = 'invalid') AS n_invalid,
               n_invalid / count(*) AS invalid_rate
        FROM judgment WHERE {chosen} GROUP BY model_id ORDER BY model_id
        """,
        params,
    )
    phi_by_category = store.query(
        con,
        f"""
        SELECT p.model_id, s.category AS scenario_category,
               avg(p.phi) AS mean_phi, count(p.phi) AS n_cells
        FROM phi AS p JOIN scenario AS s USING (scenario_id) WHERE {chosen}
        GROUP BY ALL ORDER BY p.model_id, s.category
        """,
        params,
    )
    top_variations = store.query(
        con,
        f"""
        SELECT model_id, variation_category, variation_value,
               avg(delta) AS mean_delta, count(delta) AS n_cells, count(DISTINCT face_id) AS n_faces
        FROM delta WHERE delta IS NOT NULL AND NOT {IS_PLACEBO} AND {chosen}
        GROUP BY model_id, variation_category, variation_value
        -- rounded, then by name: a parallel float sum moves its last digits run to run, not the order
        QUALIFY row_number() OVER (
            PARTITION BY model_id
            ORDER BY round(abs(avg(delta)), 12) DESC, variation_category, variation_value
        ) <= {int(top)}
        ORDER BY model_id, round(abs(mean_delta), 12) DESC, variation_category, variation_value
        """,
        params,
    )
    noise_floor = store.query(
        con,
        f"""
        SELECT model_id, variation_value, avg(delta) AS mean_delta, avg(abs(delta)) AS mean_abs_delta,
               count(delta) AS n_cells, count(DISTINCT face_id) AS n_faces
        FROM delta WHERE delta IS NOT NULL AND {IS_PLACEBO} AND {chosen}
        GROUP BY model_id, variation_value ORDER BY model_id, variation_value
        """,
        params,
    )
    return Overview(judgments, phi_by_category, top_variations, noise_floor)


def noise_floor_line(floor: pl.DataFrame) -> str | None:
    """One model's noise-floor line (its placebo rows), or None when it judged no placebo."""
    if floor.height == 0:
        return None
    parts = [
        f"{escape(r['variation_value'] or '')} mean Δ {r['mean_delta']:+.3f}, mean |Δ| "
        f"{r['mean_abs_delta']:.3f} ({r['n_cells']:,} cells)"
        for r in floor.iter_rows(named=True)
    ]
    return "noise floor (placebos, true Δ = 0): " + "; ".join(parts)


def print_overview(result: Overview, console: Console, database: str) -> None:
    if result.judgments.height == 0:
        console.print(f"[yellow]{escape(database)} holds no judgments yet: run `cueshift infer` first.[/]")
        return
    for row in result.judgments.iter_rows(named=True):
        model_id = row["model_id"]
        console.rule(f"[bold]{model_id}")
        console.print(
            f"judgments: {row['n_judgments']:,}   invalid: {row['n_invalid']:,} ({row['invalid_rate']:.2%})"
        )
        phi = FitTable(title="mean φ per scenario category", title_justify="left")
        phi.add_column("scenario category")
        phi.add_column("mean φ", justify="right")
        phi.add_column("cells", justify="right")
        for cat in result.phi_by_category.filter(pl.col("model_id") == model_id).iter_rows(named=True):
            phi.add_row(escape(cat["scenario_category"]), f"{cat['mean_phi']:.3f}", f"{cat['n_cells']:,}")
        console.print(phi)
        top = FitTable(title="top variations by |mean Δ|", title_justify="left")
        for name, justify in (
            ("category", "left"),
            ("variation", "left"),
            ("mean Δ", "right"),
            ("cells", "right"),
            ("faces", "right"),
        ):
            top.add_column(name, justify=justify)  # type: ignore[arg-type]
        for var in result.top_variations.filter(pl.col("model_id") == model_id).iter_rows(named=True):
            top.add_row(
                escape(var["variation_category"] or ""),
                escape(var["variation_value"] or ""),
                f"{var['mean_delta']:+.3f}",
                f"{var['n_cells']:,}",
                f"{var['n_faces']:,}",
            )
        console.print(top)
        line = noise_floor_line(result.noise_floor.filter(pl.col("model_id") == model_id))
        if line is not None:
            console.print(line, soft_wrap=True)
    console.print(
        f"[dim]Views phi, base_phi, delta live in {escape(database)}; try "
        f'`cueshift sql "SELECT * FROM delta LIMIT 5"`.[/]'
    )
