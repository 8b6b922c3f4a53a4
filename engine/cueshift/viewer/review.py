"""The review pages: the edits that failed the audit, and two models side by side."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl
from starlette.requests import Request

from cueshift.designs.page_helpers import BadRequest, NotFound, Page, page_count
from cueshift.render import Col, ci_label, stored_level, stub
from cueshift.viewer import audit, audit_robustness, compare, tables
from cueshift.viewer.filters import Filters

if TYPE_CHECKING:
    from cueshift.viewer.viewer import Viewer

#: The stored table of the side-by-side page's differences.
DIFFERENCES = "result_model_differences"


def difference_note(ci_level: float) -> str:
    """The note of the stored differences, computed by ``analyze`` at ``ci_level``."""
    return (
        f"Stored by `cueshift analyze` ({DIFFERENCES}): paired SBS difference a − b over the faces both "
        f"models judged, face-clustered bootstrap {ci_label(ci_level)}; paired test, BH-adjusted: bold "
        "p < 0.001, underlined not significant (p ≥ 0.05)."
    )


def _page_number(request: Request) -> int:
    text = request.query_params.get("page", "1")
    if not text.isdigit():
        raise BadRequest(f"page={text!r}: expected a page number")
    return int(text)


def _value(viewer: Viewer, request: Request) -> str | None:
    value = request.query_params.get("value") or None
    if value is not None and value not in viewer.menus.attributes:
        raise NotFound(f"value={value!r}: no such attribute (variation value) in this study")
    return value


def failed_edits(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """The variations that failed the edit audit: base and variation side by side, what failed; and
    how robust the audit run's shifts are (:mod:`.audit_robustness`)."""
    value = _value(viewer, request)
    con = viewer.source.cursor()
    try:
        counts = audit.summary(con)
        total = audit.summary(con, value)["failed"]
        number = _page_number(request)
        n_pages = page_count(total, audit.PER_PAGE, number, "the list of failed edits")
        page = Page(rows=audit.failed_edits(con, value, number), page=number, n_pages=n_pages, total=total)
        found = audit.of_images(con, [str(i) for i in page.rows["image_id"]])
        values = audit.failed_values(con)
        robust = audit_robustness.robustness(con, viewer.source.tables)
        level = audit_robustness.robustness_level(con)
    finally:
        con.close()
    rows = [{**r, "audit": found.get(str(r["image_id"]), {})} for r in page.rows.iter_rows(named=True)]
    return "failed.html", {
        "robustness_table": None if robust is None else audit_robustness.robustness_table(robust, level),
        "robustness_older": None if robust is None else audit_robustness.older(robust),
        "value": value,
        "counts": counts,
        "values": values,
        "page": page,
        "rows": rows,
        "pager_extra": {"value": value} if value else {},
    }


def _models(viewer: Viewer, request: Request) -> tuple[str, str] | None:
    """The two models asked for (default: the study's first two); ``None`` when it has fewer."""
    models = viewer.menus.models
    if len(models) < 2:
        return None
    picked = (request.query_params.get("a") or models[0], request.query_params.get("b") or models[1])
    for name, model in zip(("a", "b"), picked, strict=True):
        if model not in models:
            raise NotFound(f"{name}={model!r}: no such model in this study")
    if picked[0] == picked[1]:
        raise BadRequest(f"a=b={picked[0]!r}: pick two different models")
    return picked


def _difference_table(frame: pl.DataFrame, level: str, a: str, b: str, ci_level: float) -> str:
    part = frame.filter(pl.col("level") == level)
    if level == "variation_value":
        keys = [stub("variation_value", "Attribute")]
        group: str | None = "variation_category"
    else:
        keys = [stub("scenario_id", "Scenario")]
        group = "scenario_category"
    return tables.render(
        part,
        key=f"compare-{compare.LEVELS[level]}",
        title=f"{a} − {b} per {compare.LEVELS[level]}",
        columns=[
            *keys,
            Col("sbs_a", f"SBS {a}", tables.signed),
            Col("sbs_b", f"SBS {b}", tables.signed),
            Col("estimate", "Difference", tables.signed, p="p_adj"),
            Col("ci_low", ci_label(ci_level), tables.ci, args=("ci_high",)),
            Col("n", "Faces", tables.count),
        ],
        group=group,
        notes=[difference_note(ci_level)],
        empty=f"No stored difference per {compare.LEVELS[level]} for these two models.",
    )


def models_side_by_side(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """Two models: paired differences per attribute and per scenario, the largest disagreements."""
    picked = _models(viewer, request)
    value = _value(viewer, request)
    stored_differences = viewer.source.has(DIFFERENCES)
    context: dict[str, Any] = {"pair": picked, "value": value, "stored": stored_differences}
    if picked is None:
        return "compare.html", context
    a, b = picked
    con = viewer.source.cursor()
    try:
        stored = compare.differences(con, a, b) if stored_differences else None
        cells = compare.disagreements(con, a, b, f, value)
        ci_level = stored_level(con, (DIFFERENCES,))
    finally:
        con.close()
    labels = {k: s.label for k, s in viewer.menus.scenarios.items()}
    if stored is not None:
        stored = stored.with_columns(pl.col("scenario_id").replace(labels))
        context["difference_tables"] = [
            _difference_table(stored, level, a, b, ci_level) for level in compare.LEVELS
        ]
        context["difference_rows"] = stored.to_dicts()
    context["cells"] = [
        {**r, "scenario": labels.get(r["scenario_id"], r["scenario_id"])} for r in cells.to_dicts()
    ]
    return "compare.html", context
