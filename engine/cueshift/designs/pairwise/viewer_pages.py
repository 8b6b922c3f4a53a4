"""The pairwise design's page of ``cueshift view``: each trial with both images, the raw answer and
the choice; the share of valid choices per stimulus group and cohort (seed 002).

Declared in :class:`~cueshift.designs.pairwise.design.PairwiseDesign` ``.viewer`` and served under
``/design/pairwise/trials`` (``/pairwise`` redirects there); the template is
``templates/pairwise.html``.
"""

from __future__ import annotations

from typing import Any

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.page_helpers import NotFound, Page, number, page_count, table_html
from cueshift.designs.viewer_support import PageRequest
from cueshift.render import Pivot, stub

#: Trials per page.
TRIALS_PER_PAGE = 24


def cohorts(con: duckdb.DuckDBPyConnection) -> tuple[str, ...]:
    """The pairwise cohorts (``stimulus.cohort``), sorted."""
    rows = con.execute("SELECT DISTINCT cohort FROM stimulus ORDER BY 1").fetchall()
    return tuple(str(r[0]) for r in rows)


def _trial_filter(model: str | None, cohort: str | None) -> tuple[str, list[object]]:
    parts: list[str] = ["TRUE"]
    params: list[object] = []
    if model is not None:
        parts.append("t.model_id = ?")
        params.append(model)
    if cohort is not None:
        parts.append("ls.cohort = ?")
        params.append(cohort)
    return " AND ".join(parts), params


_TRIALS = """
    FROM study.main.pairwise_trial AS t
    LEFT JOIN stimulus AS ls ON ls.image_id = t.left_image_id
    LEFT JOIN stimulus AS rs ON rs.image_id = t.right_image_id
    LEFT JOIN stimulus AS ws ON ws.image_id = t.winner_image_id
"""


def trials(con: duckdb.DuckDBPyConnection, model: str | None, cohort: str | None, page: int) -> Page:
    """Pairwise trials (both images, the raw answer and the choice), ``TRIALS_PER_PAGE`` a page."""
    where, params = _trial_filter(model, cohort)
    total = int(store.query(con, f"SELECT count(*) AS n {_TRIALS} WHERE {where}", params)["n"][0])
    n_pages = page_count(total, TRIALS_PER_PAGE, page, "the trial list")
    rows = store.query(
        con,
        f"""
        SELECT t.model_id, t.left_image_id, t.right_image_id, t.scenario_id, t.seed, t.response_text,
               t.winner_image_id, ls.cohort, ls.stimulus_group AS left_group,
               rs.stimulus_group AS right_group, ws.stimulus_group AS winner_group
        {_TRIALS} WHERE {where}
        ORDER BY t.model_id, ls.cohort, t.left_image_id, t.right_image_id, t.seed LIMIT ? OFFSET ?
        """,
        [*params, TRIALS_PER_PAGE, (page - 1) * TRIALS_PER_PAGE],
    )
    return Page(rows=rows, page=page, n_pages=n_pages, total=total)


def choice_shares(con: duckdb.DuckDBPyConnection, model: str | None, cohort: str | None) -> pl.DataFrame:
    """Per model × cohort: trials, invalid answers, and the share of valid choices per stimulus group."""
    where, params = _trial_filter(model, cohort)
    return store.query(
        con,
        f"""
        SELECT t.model_id, ls.cohort, count(*)::BIGINT AS n_trials,
               count(*) FILTER (WHERE t.winner_image_id IS NULL)::BIGINT AS n_invalid,
               ws.stimulus_group AS chosen_group,
               count(*) FILTER (WHERE t.winner_image_id IS NOT NULL)::BIGINT AS n_chosen
        {_TRIALS} WHERE {where} GROUP BY ALL ORDER BY 1, 2, 5
        """,
        params,
    )


def trials_page(con: duckdb.DuckDBPyConnection, request: PageRequest) -> tuple[str, dict[str, Any]]:
    """Pairwise trials: both images, the raw answer and the choice; choice shares per cohort.

    Raises
    ------
    NotFound
        The study database holds no pairwise trials, or ``cohort`` names no cohort of the study.
    """
    if not request.has("pairwise_trial"):
        raise NotFound("this study database has no pairwise trials")
    known = cohorts(con)
    cohort = request.query.get("cohort") or None
    if cohort is not None and cohort not in known:
        raise NotFound(f"cohort={cohort!r}: no such cohort in this study")
    page = trials(con, request.model, cohort, request.page_number())
    shares = choice_shares(con, request.model, cohort)
    shares_html = table_html(
        shares.filter(pl.col("chosen_group").is_not_null()).with_columns(
            share=pl.col("n_chosen") / pl.col("n_chosen").sum().over("model_id", "cohort")
        ),
        key="choices",
        title="Choices per cohort",
        columns=[stub("cohort", "Cohort")],
        pivot=Pivot(on="chosen_group", value="share", fmt=number, spanner="model_id"),
        notes=["Share of valid choices that picked each stimulus group; invalid answers chose nothing."],
        empty="No trials stored yet.",
    )
    return "pairwise.html", {
        "cohorts": known,
        "cohort": cohort,
        "page": page,
        "rows": page.rows.to_dicts(),
        "shares": shares_html,
        "pager_extra": {"cohort": cohort} if cohort else {},
    }
