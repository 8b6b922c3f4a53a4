"""The overview and attribute pages: what shifts judgments, by how much, and on which faces.

Each handler returns its template and context; numbers come from :mod:`cueshift.viewer.summaries`
(stored results where they apply, face-level computations on the rows in view otherwise).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl
from starlette.requests import Request

from cueshift import store
from cueshift.designs.page_helpers import NotFound
from cueshift.render import Col, Pivot, fmt_percent, fmt_text, stub
from cueshift.viewer import audit, charts, face_models, noise, quality, summaries, tables
from cueshift.viewer.filters import Filters

if TYPE_CHECKING:
    from cueshift.viewer.viewer import Viewer

STORED_NOTE = (
    "Stored by `cueshift analyze` (result_sbs): face-level BCa 95% CI; Wilcoxon signed-rank p, "
    "BH-adjusted: bold p < 0.001, underlined not significant (p ≥ 0.05)."
)
PLACEBO_NOTE = (
    "An identical copy and a lossless re-encode of every base image: the same pixels, so their Δ "
    "measures sampling noise and serving nondeterminism. Computed by the viewer on the rows in view: "
    "mean of per-face mean Δ, face-level t 95% CI."
)
COMPUTED_NOTE = (
    "Computed by the viewer on the rows in view: mean of per-face mean Δ, face-level t 95% CI; no test."
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
    finally:
        con.close()
    stored = ranking.height > 0 and ranking["source"][0] == "stored"
    columns = [
        stub("variation_category", "Category"),
        Col("variation_value", "Attribute", align="left"),
        Col("estimate", "SBS", tables.signed, p="p_adj" if stored else None),
        Col("ci_low", "95% CI", tables.ci, args=("ci_high",)),
        Col("abs_sbs", "|SBS|", tables.number),
        Col("n", "Faces", tables.count),
    ]
    ranking_html = tables.render(
        ranking,
        key="ranking",
        title="Attributes by |SBS|" + (f" — {f.model}" if f.model else " — all models"),
        columns=columns,
        notes=[STORED_NOTE if stored else COMPUTED_NOTE],
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
            Col("ci_low", "95% CI", tables.ci, args=("ci_high",)),
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
            _table11_cells(con, value)
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
    finally:
        con.close()
    return "attribute.html", {
        "value": value,
        "category": viewer.menus.attributes[value],
        "n_faces": shifts["face_id"].n_unique(),
        "scenario_table": _scenario_table(viewer, scen),
        "scenario_rows": scen.to_dicts(),
        "group_table": _group_table(groups, table11),
        "group_rows": groups.to_dicts(),
        "examples": [
            {**r, "scenario_id": strongest[str(r["image_id"])], "audit": audits.get(str(r["image_id"]), {})}
            for r in picks.iter_rows(named=True)
        ],
        "audit_table": _audit_table(measures) if measures.height else None,
        "edits": edits,
        "skin_table": skin_table,
    }


def _table11_cells(con: Any, value: str) -> pl.DataFrame:
    """The stored Table 11 cells of ``value`` as two columns of the group table: raw, and (where the
    table has them) partially pooled by empirical Bayes with Morris's interval, without a test."""
    table = "study.main.result_table11"
    sql = (
        "SELECT dimension, \"group\", 'Table 11 (pooled)' AS model_id, estimate, "
        f"NULL::DOUBLE AS ci_low, NULL::DOUBLE AS ci_high, p_adj FROM {table} WHERE variation_value = ?"
    )
    if "pooled_estimate" in store.query(con, f"SELECT * FROM {table} LIMIT 0").columns:
        sql += (
            " UNION ALL SELECT dimension, \"group\", 'Table 11 (partial pooling)' AS model_id, "
            "pooled_estimate AS estimate, pooled_ci_low AS ci_low, pooled_ci_high AS ci_high, "
            f"NULL::DOUBLE AS p_adj FROM {table} WHERE variation_value = ?"
        )
        return store.query(con, sql, [value, value])
    return store.query(con, sql, [value])


def _audit_table(measures: pl.DataFrame) -> str:
    """Per measure of the attribute's edit audit: variations measured and failed, the differences."""
    return tables.render(
        measures,
        key="audit",
        title="Edit audit of this attribute's variations",
        columns=[
            stub("measure", "Measure"),
            Col("source", "Source", align="left"),
            Col("n", "Variations", tables.count),
            Col("n_failed", "Failed", tables.count),
            Col("median_difference", "Median difference", tables.signed),
            Col("max_abs_difference", "Max |difference|", tables.number),
            Col("bound", "Bound", tables.number),
        ],
        group="check_kind",
        notes=[
            "edit_audit (`cueshift audit`): each measure of a variation against its base; a measure fails "
            "past its bound, or as an outlier (robust z) among the attribute's edits."
        ],
    )


def _estimate_cell(cell: object) -> str:
    """A group-table cell: the estimate, and its interval where the row has one (partial pooling)."""
    if not isinstance(cell, dict):
        return tables.signed(cell)
    text = tables.signed(cell["estimate"])
    if cell["ci_low"] is None and cell["ci_high"] is None:
        return text
    return f"{text} {tables.ci(cell['ci_low'], cell['ci_high'])}"


def _estimate_fill(cell: object) -> str | None:
    return tables.heat_fill(cell["estimate"] if isinstance(cell, dict) else cell)


def _strongest(con: Any, image_id: str, f: Filters) -> str | None:
    """The scenario in view where the image's |Δ| is largest (where its drill-down is most telling)."""
    where, params = f.where()
    row = con.execute(
        f"SELECT scenario_id FROM delta AS d WHERE d.image_id = ? AND d.delta IS NOT NULL AND {where} "
        "ORDER BY abs(delta) DESC, scenario_id LIMIT 1",
        [image_id, *params],
    ).fetchall()
    return str(row[0][0]) if row else None


def _scenario_table(viewer: Viewer, scen: pl.DataFrame) -> str:
    order = {s: i for i, s in enumerate(viewer.menus.scenarios)}
    stored = scen.height > 0 and scen["source"][0] == "stored"
    frame = scen.with_columns(
        label=pl.col("scenario_id").replace_strict({k: s.label for k, s in viewer.menus.scenarios.items()}),
        position=pl.col("scenario_id").replace_strict(order, return_dtype=pl.Int64),
        cell=pl.struct("estimate", "ci_low", "ci_high").map_elements(
            lambda r: f"{tables.signed(r['estimate'])} {tables.ci(r['ci_low'], r['ci_high'])}",
            return_dtype=pl.String,
        ),
        p_adj=pl.col("p_adj") if "p_adj" in scen.columns else pl.lit(None, pl.Float64),
    ).sort("position", "model_id")
    return tables.render(
        frame,
        key="scenarios",
        title="Δ per scenario (mean over faces, 95% CI)",
        columns=[stub("label", "Scenario (favorable / unfavorable)")],
        pivot=Pivot(on="model_id", value="cell", fmt=fmt_text, p="p_adj" if stored else None),
        group="scenario_category",
        notes=[STORED_NOTE if stored else COMPUTED_NOTE],
        empty="No Δ in view for this attribute.",
    )


def _group_table(groups: pl.DataFrame, table11: pl.DataFrame | None) -> str:
    frame = groups.select(
        "dimension",
        "group",
        "model_id",
        "estimate",
        ci_low=pl.lit(None, pl.Float64),
        ci_high=pl.lit(None, pl.Float64),
        p_adj=pl.lit(None, pl.Float64),
    )
    notes = [
        "Mean over the faces of each group of their mean Δ over the scenarios in view; colour: sign and size."
    ]
    if table11 is not None and table11.height:
        frame = pl.concat([frame, table11.select(frame.columns)], how="vertical_relaxed")
        notes.append(
            "Table 11 (pooled): stored result_table11, BH-adjusted Wilcoxon; bold p < 0.001, underlined n.s."
        )
        if "Table 11 (partial pooling)" in table11["model_id"]:
            notes.append(
                "Table 11 (partial pooling): the same cells shrunk towards the variation's estimate over the "
                "dimension's groups by empirical Bayes, most where a group has few faces, with Morris's "
                "95% interval (result_table11: pooled_estimate, pooled_ci_low/high, shrinkage)."
            )
    frame = frame.with_columns(cell=pl.struct("estimate", "ci_low", "ci_high"))
    return tables.render(
        frame,
        key="groups",
        title="Δ by demographic group × model",
        columns=[stub("group", "Group")],
        pivot=Pivot(on="model_id", value="cell", fmt=_estimate_cell, p="p_adj", fill=_estimate_fill),
        group="dimension",
        notes=notes,
        empty="No demographic labels in view.",
    )
