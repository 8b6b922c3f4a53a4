"""The other designs' evidence: pairwise trials (seed 002) and probe scores vs human ratings (seed 004).

Paired original/filtered studies (seed 001) are stored like StylisticBias ones (the original is
the base image, the filtered one its variation) and use the face and attribute pages.
"""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl

from cueshift import store
from cueshift.viewer.faces import Page, page_count

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


def probe_attributes(con: duckdb.DuckDBPyConnection) -> tuple[str, ...]:
    """Scenarios that have human ratings (``rating`` by humans or ``human_rating_mean``)."""
    rows = con.execute(
        """
        SELECT s.scenario_id FROM scenario AS s
        WHERE s.scenario_id IN (SELECT attribute FROM study.main.rating WHERE rater_kind = 'human'
                                UNION SELECT attribute FROM study.main.human_rating_mean)
        ORDER BY s.position, s.scenario_id
        """
    ).fetchall()
    return tuple(str(r[0]) for r in rows)


def probe_points(con: duckdb.DuckDBPyConnection, attribute: str, model: str | None) -> pl.DataFrame:
    """Per model × image: the model's score (mean P(favorable) where scored, else φ) and the human mean."""
    condition, params = ("AND p.model_id = ?", [model]) if model else ("", [])
    return store.query(
        con,
        f"""
        WITH humans AS (
            SELECT image_id, avg(rating) AS human, count(*)::BIGINT AS n_raters
            FROM study.main.rating WHERE rater_kind = 'human' AND attribute = ? AND rating IS NOT NULL
            GROUP BY ALL
            UNION ALL
            SELECT image_id, mean, n_raters FROM study.main.human_rating_mean
            WHERE attribute = ? AND image_id NOT IN
                (SELECT image_id FROM study.main.rating WHERE rater_kind = 'human' AND attribute = ?))
        SELECT p.model_id, p.image_id, coalesce(p.phi_expected, p.phi) AS score, h.human, h.n_raters
        FROM phi AS p JOIN humans AS h USING (image_id)
        WHERE p.scenario_id = ? {condition} AND coalesce(p.phi_expected, p.phi) IS NOT NULL
        ORDER BY p.model_id, p.image_id
        """,
        [attribute, attribute, attribute, attribute, *params],
    )


def pearson(points: pl.DataFrame) -> pl.DataFrame:
    """Per model: Pearson's r between model score and human mean, and the number of images."""
    rows = []
    for (model_id,), part in points.group_by("model_id", maintain_order=True):
        x, y = part["score"].to_numpy(), part["human"].to_numpy()
        r = float(np.corrcoef(x, y)[0, 1]) if len(x) > 2 and x.std() > 0 and y.std() > 0 else None
        rows.append({"model_id": model_id, "r": r, "n": len(x)})
    return pl.DataFrame(rows, schema={"model_id": pl.String, "r": pl.Float64, "n": pl.Int64})
