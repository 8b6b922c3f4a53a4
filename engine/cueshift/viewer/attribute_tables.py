"""The attribute page's tables: Δ per scenario, Δ by demographic group × model (with the stored
Table 11 cells beside the viewer's own), and the attribute's edit audit; with the notes that say
whether a table's Δ are stored or computed on the rows in view (the overview's ranking uses them too).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from cueshift import store
from cueshift.render import Col, Pivot, ci_label, fmt_text, level_percent, stub
from cueshift.viewer import tables
from cueshift.viewer.summaries import COMPUTED_CI, VIEWER_LEVEL
from cueshift.viewer.tables import StoredMethod

if TYPE_CHECKING:
    from cueshift.viewer.viewer import Viewer

#: The note of a table of Δ the viewer computes on the rows in view, at its own level.
COMPUTED_NOTE = (
    f"Computed by the viewer at {level_percent(VIEWER_LEVEL)} on the rows in view: mean of per-face "
    f"mean Δ, face-level t {COMPUTED_CI}; no test."
)


def stored_note(method: StoredMethod) -> str:
    """The note of a table of stored ``result_sbs`` intervals, computed by ``analyze`` as ``method`` says."""
    return (
        f"Stored by `cueshift analyze` (result_sbs): face-level {method.ci_method} {ci_label(method.level)}; "
        f"{method.test} "
        "p, BH-adjusted: bold p < 0.001, underlined not significant (p ≥ 0.05)."
    )


def interval_labels(stored: bool, method: StoredMethod) -> tuple[str, str]:
    """The interval header and the note of a table of Δ: stored (``result_sbs``, computed as
    ``method`` says), or computed by the viewer at :data:`~cueshift.viewer.summaries.VIEWER_LEVEL`.

    >>> method = StoredMethod(0.9, "percentile", "sign-flip permutation")
    >>> interval_labels(True, method)[0], interval_labels(False, method)[0]
    ('90% CI', '95% CI')
    >>> interval_labels(True, method)[1].split(";")[0]
    'Stored by `cueshift analyze` (result_sbs): face-level percentile 90% CI'
    """
    return (ci_label(method.level), stored_note(method)) if stored else (COMPUTED_CI, COMPUTED_NOTE)


def table11_cells(con: Any, value: str) -> pl.DataFrame:
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


def audit_table(measures: pl.DataFrame) -> str:
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


def scenario_table(viewer: Viewer, scen: pl.DataFrame, method: StoredMethod) -> str:
    """Δ per scenario (rows, in the menu's order) × model, with p where the Δ are stored (``method``:
    how ``result_sbs`` was computed)."""
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
    header, note = interval_labels(stored, method)
    return tables.render(
        frame,
        key="scenarios",
        title=f"Δ per scenario (mean over faces, {header})",
        columns=[stub("label", "Scenario (favorable / unfavorable)")],
        pivot=Pivot(on="model_id", value="cell", fmt=fmt_text, p="p_adj" if stored else None),
        group="scenario_category",
        notes=[note],
        empty="No Δ in view for this attribute.",
    )


def group_table(groups: pl.DataFrame, table11: pl.DataFrame | None, level: float) -> str:
    """Δ by demographic group × model, with the stored Table 11 cells as further columns (``level``:
    the confidence level of ``result_table11``)."""
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
                f"{level_percent(level)} interval (result_table11: pooled_estimate, pooled_ci_low/high, "
                "shrinkage)."
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
