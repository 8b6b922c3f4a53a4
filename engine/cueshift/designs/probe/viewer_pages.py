"""The probe design's page of ``cueshift view``: the model's score against the mean human rating,
one point per image, for one attribute, with Pearson's r per model (seed 004), and, once
``cueshift analyze`` has run, each model's similarity against its random twin's with the verdict
(``result_probe_baselines``).

Declared in :class:`~cueshift.designs.probe.design.ProbeDesign` ``.viewer`` and served under
``/design/probe/humans`` (``/probe`` redirects there); the template is ``templates/probe.html``,
which draws each model's points with the viewer's ``scatter`` chart.
"""

from __future__ import annotations

from typing import Any

import duckdb
import numpy as np
import polars as pl

from cueshift import store
from cueshift.designs.page_helpers import NotFound, count, number, table_html
from cueshift.designs.viewer_support import PageRequest
from cueshift.render import Col, ci, ci_label, level_percent, stored_level, stub

#: The stored table of the twin columns.
BASELINES = "result_probe_baselines"


def twin_columns(level: float) -> tuple[Col, ...]:
    """The twin columns of ``result_probe_baselines`` the page shows (the report's ``probe_twin``),
    their intervals headed by ``level``, the level ``analyze`` computed them at.

    >>> [c.label for c in twin_columns(0.9) if c.name.endswith("_low")]
    ['90% CI', '90% CI']
    """
    return (
        stub("model_id", "Model"),
        Col("similarity", "ρ model", number),
        Col("random_similarity", "ρ twin", number),
        Col("twin_difference", "ρ − twin", number, p="twin_p_adj"),
        Col("twin_low", ci_label(level), ci(3), args=("twin_high",)),
        Col("twin_partial_difference", "partial ρ − twin", number, p="twin_partial_p_adj"),
        Col("twin_partial_low", ci_label(level), ci(3), args=("twin_partial_high",)),
        Col("verdict", "Verdict", align="left"),
    )


def twin_rows(con: duckdb.DuckDBPyConnection, attribute: str, model: str | None) -> pl.DataFrame:
    """The stored rows of ``attribute`` (of ``model`` only, when given) that have a random twin."""
    condition, params = ("AND model_id = ?", [model]) if model else ("", [])
    return store.query(
        con,
        f"""
        SELECT model_id, similarity, random_similarity, twin_difference, twin_low, twin_high, twin_p_adj,
               twin_partial_difference, twin_partial_low, twin_partial_high, twin_partial_p_adj, verdict
        FROM study.main.{BASELINES}
        WHERE attribute = ? AND verdict IS NOT NULL {condition} ORDER BY model_id
        """,
        [attribute, *params],
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


def humans_page(con: duckdb.DuckDBPyConnection, request: PageRequest) -> tuple[str, dict[str, Any]]:
    """Model score vs human rating, one point per image, for one attribute.

    Raises
    ------
    NotFound
        The study database holds no human ratings, or none for ``attribute``.
    """
    attributes = probe_attributes(con)
    if not attributes:
        raise NotFound("this study database has no human ratings to compare with")
    attribute = request.query.get("attribute") or attributes[0]
    if attribute not in attributes:
        raise NotFound(f"attribute={attribute!r}: no human ratings for this attribute")
    points = probe_points(con, attribute, request.model)
    plots = [
        {
            "model_id": model_id,
            "human": part["human"].to_list(),
            "score": part["score"].to_list(),
            "image_id": part["image_id"].to_list(),
        }
        for (model_id,), part in points.group_by("model_id", maintain_order=True)
    ]
    correlations = pearson(points)
    twins = twin_rows(con, attribute, request.model) if request.has(BASELINES) else None
    level = stored_level(con, (BASELINES,))
    return "probe.html", {
        "attributes": attributes,
        "attribute": attribute,
        "plots": plots,
        "correlations": correlations.to_dicts(),
        "correlation_table": table_html(
            correlations,
            key="probe-r",
            title=f"Model score vs human mean — {attribute}",
            columns=[stub("model_id", "Model"), Col("r", "Pearson r", number), Col("n", "Images", count)],
        ),
        "twin_table": table_html(
            twins,
            key="probe-twin",
            title=f"Against the random twin — {attribute}",
            columns=twin_columns(level),
            notes=(
                "Spearman ρ with the human means minus the random-weight twin's on the same faces "
                f"({BASELINES}): face-level paired bootstrap {level_percent(level)} interval, BH over "
                "attributes.",
            ),
        )
        if twins is not None and twins.height
        else "",
    }
