"""The overview and attribute pages: what shifts judgments, by how much, and on which faces.

Each handler returns its template and context; numbers come from :mod:`cueshift.viewer.summaries`
(stored results where they apply, face-level computations on the rows in view otherwise); the
attribute page's tables are built in :mod:`cueshift.viewer.attribute_tables`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl
from starlette.requests import Request

from cueshift import store
from cueshift.designs.page_helpers import NotFound
from cueshift.render import Col, fmt_percent, level_percent, stored_level, stub
from cueshift.viewer import audit, charts, face_models, noise, quality, summaries, tables
from cueshift.viewer.attribute_tables import (
    audit_table,
    group_table,
    interval_labels,
    scenario_table,
    table11_cells,
)
from cueshift.viewer.filters import Filters
from cueshift.viewer.summaries import COMPUTED_CI, VIEWER_LEVEL
from cueshift.viewer.tables import stored_method

if TYPE_CHECKING:
    from cueshift.viewer.viewer import Viewer

PLACEBO_NOTE = (
    "An identical copy and a lossless re-encode of every base image: the same pixels, so their Δ "
    "measures sampling noise and serving nondeterminism. Computed by the viewer at "
    f"{level_percent(VIEWER_LEVEL)} on the rows in view: mean of per-face mean Δ, face-level t {COMPUTED_CI}."
)


def _model_counts(con: Any, f: Filters) -> pl.DataFrame:
    where, params = f.where(alias="d", models=False)
    frame = store.query(
        con,
        f"""
        WITH answered AS (SELECT model_id, sum(n_total)::BIGINT AS n, sum(n_invalid)::BIGINT AS bad
                          FROM counts AS d WHERE {where} GROUP BY ALL),
        trials AS (SELECT model_id, count(*)::BIGINT AS n_trials,
                          count(*) FILTER (WHERE winner_image_id IS NULL)::BIGINT AS bad_trials
                   FROM study.main.pairwise_trial GROUP BY ALL),
        ratings AS (SELECT rater_id AS model_id, count(*)::BIGINT AS n_ratings
                    FROM study.main.rating WHERE rater_kind = 'model' GROUP BY ALL)
        SELECT m.model_id, m.backend, m.checkpoint, coalesce(c.n, 0) AS judgments,
               coalesce(c.bad, 0) AS invalid, c.bad / nullif(c.n, 0) AS invalid_rate,
               coalesce(t.n_trials, 0) AS trials, t.bad_trials / nullif(t.n_trials, 0) AS invalid_trial_rate,
               coalesce(r.n_ratings, 0) AS ratings
        FROM model AS m LEFT JOIN answered AS c USING (model_id) LEFT JOIN trials AS t USING (model_id)
        LEFT JOIN ratings AS r USING (model_id)
        WHERE ? IS NULL OR m.model_id = ?
        ORDER BY m.model_id
        """,
        [*params, f.model, f.model],
    )
    return frame


def _counts_table(frame: pl.DataFrame) -> str:
    columns = [
        stub("model_id", "Model"),
        Col("backend", "Backend", align="left"),
        Col("checkpoint", "Checkpoint", align="left"),
    ]
    columns += [
        Col("judgments", "Judgments", tables.count),
        Col("invalid_rate", "Invalid", lambda v: fmt_percent(v, 1)),
    ]
    if frame["trials"].sum():
        columns += [
            Col("trials", "Pairwise trials", tables.count),
            Col("invalid_trial_rate", "Invalid trials", lambda v: fmt_percent(v, 1)),
        ]
    if frame["ratings"].sum():
        columns.append(Col("ratings", "Ratings", tables.count))
    return tables.render(frame, key="models", title="Models", columns=columns)


def overview(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """Models and answer counts, the SBS/|SBS| ranking of attributes, the Pareto, the noise floor
    (the placebos in view, the stored floor summarised: its full tables are the design's page)."""
    con = viewer.source.cursor()
    try:
        counts = _model_counts(con, f)
        ranking = summaries.ranking(con, f, viewer.source.has("result_sbs"))
        floor = summaries.noise_floor(con, f)
        identity = quality.summary(con)
        edits = audit.summary(con)
        faces = face_models.summary(con)
        stored_floor = noise.summary(con, f, viewer.source.tables)
        sbs_method = stored_method(con, "result_sbs")
    finally:
        con.close()
    stored = ranking.height > 0 and ranking["source"][0] == "stored"
    header, note = interval_labels(stored, sbs_method)
    columns = [
        stub("variation_category", "Category"),
        Col("variation_value", "Attribute", align="left"),
        Col("estimate", "SBS", tables.signed, p="p_adj" if stored else None),
        Col("ci_low", header, tables.ci, args=("ci_high",)),
        Col("abs_sbs", "|SBS|", tables.number),
        Col("n", "Faces", tables.count),
    ]
    ranking_html = tables.render(
        ranking,
        key="ranking",
        title="Attributes by |SBS|" + (f" — {f.model}" if f.model else " — all models"),
        columns=columns,
        notes=[note],
        empty="No Δ in view: no variation judged together with its base yet.",
    )
    hrefs = {v: "/attribute" + f.query(value=v) for v in ranking["variation_value"].to_list()}
    floor_html = tables.render(
        floor,
        key="placebos",
        title="Placebos (true Δ = 0): the noise floor, not ranked among the attributes",
        columns=[
            stub("variation_category", "Category"),
            Col("variation_value", "Placebo", align="left"),
            Col("estimate", "SBS", tables.signed),
            Col("ci_low", COMPUTED_CI, tables.ci, args=("ci_high",)),
            Col("abs_sbs", "|SBS|", tables.number),
            Col("n", "Faces", tables.count),
        ],
        notes=[PLACEBO_NOTE],
    )
    context = {
        "counts": _counts_table(counts),
        "counts_rows": counts.to_dicts(),
        "ranking": tables.linkify(ranking_html, "ranking", 1, hrefs),
        "ranking_rows": ranking.to_dicts(),
        "pareto": charts.pareto(
            ranking["variation_value"].to_list(), ranking["abs_sbs"].fill_null(0).to_list()
        ),
        "stored_floor": stored_floor,
        "floor_pages": [p for p in viewer.design.pages if p.table and p.table.startswith("result_noise")],
        "placebos": tables.linkify(
            floor_html, "placebos", 1, {v: "/attribute" + f.query(value=v) for v in floor["variation_value"]}
        )
        if floor.height
        else None,
        "stored": stored,
        "identity": identity,
        "edits": edits,
        "faces": faces,
    }
    return "overview.html", context


def attribute(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """Δ of one attribute per scenario, by demographic group × model, and example faces."""
    value = request.query_params.get("value", "")
    if value not in viewer.menus.attributes:
        raise NotFound(f"value={value!r}: no such attribute (variation value) in this study")
    has_sbs = viewer.source.has("result_sbs")
    con = viewer.source.cursor()
    try:
        scen = summaries.per_scenario(con, value, f, has_sbs)
        groups = summaries.by_group(con, value, f)
        shifts = summaries.face_shifts(con, value, f)
        picks = summaries.examples(shifts)
        table11 = (
            table11_cells(con, value)
            if viewer.source.has("result_table11") and f.category is None and f.model is None
            else None
        )
        strongest = {
            str(r["image_id"]): _strongest(con, str(r["image_id"]), f) for r in picks.iter_rows(named=True)
        }
        measures = audit.of_value(con, value)
        audits = audit.of_images(con, [str(i) for i in picks["image_id"]])
        edits = audit.summary(con, value)
        skin_table = face_models.of_value(con, value)
        sbs_method, table11_level = stored_method(con, "result_sbs"), stored_level(con, ("result_table11",))
    finally:
        con.close()
    return "attribute.html", {
        "value": value,
        "category": viewer.menus.attributes[value],
        "n_faces": shifts["face_id"].n_unique(),
        "scenario_table": scenario_table(viewer, scen, sbs_method),
        "scenario_rows": scen.to_dicts(),
        "group_table": group_table(groups, table11, table11_level),
        "group_rows": groups.to_dicts(),
        "examples": [
            {**r, "scenario_id": strongest[str(r["image_id"])], "audit": audits.get(str(r["image_id"]), {})}
            for r in picks.iter_rows(named=True)
        ],
        "audit_table": audit_table(measures) if measures.height else None,
        "edits": edits,
        "skin_table": skin_table,
    }


def _strongest(con: Any, image_id: str, f: Filters) -> str | None:
    """The scenario in view where the image's |Δ| is largest (where its drill-down is most telling)."""
    where, params = f.where()
    row = con.execute(
        f"SELECT scenario_id FROM delta AS d WHERE d.image_id = ? AND d.delta IS NOT NULL AND {where} "
        "ORDER BY abs(delta) DESC, scenario_id LIMIT 1",
        [image_id, *params],
    ).fetchall()
    return str(row[0][0]) if row else None
