"""The pages that show the evidence: faces, one face's images, judgments, pairwise trials, probes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl
from starlette.requests import Request

from cueshift.render import Col, Pivot, stub
from cueshift.viewer import audit, charts, designs, drill, quality, tables
from cueshift.viewer import faces as face_data
from cueshift.viewer.errors import BadRequest, NotFound
from cueshift.viewer.filters import Filters

if TYPE_CHECKING:
    from cueshift.viewer.viewer import Viewer


def _page_number(request: Request) -> int:
    text = request.query_params.get("page", "1")
    if not text.isdigit():
        raise BadRequest(f"page={text!r}: expected a page number")
    return int(text)


def faces(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """The identities, paginated, filterable by demographic group."""
    con = viewer.source.cursor()
    try:
        page = face_data.faces_index(con, f, _page_number(request))
    finally:
        con.close()
    return "faces.html", {"page": page, "rows": page.rows.to_dicts(), "pager_extra": {}}


def face(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """One face: base and variations as a grid, φ per scenario for each image, per model."""
    identity_id = request.query_params.get("id", "")
    con = viewer.source.cursor()
    try:
        person = face_data.identity(con, identity_id)
        images = face_data.images(con, identity_id)
        grid = face_data.phi_grid(con, identity_id, f)
        identity_rows = quality.of_face(con, identity_id, viewer.source.min_identity)
        audits = audit.of_face(con, identity_id)
    finally:
        con.close()
    means = face_data.image_means(grid)
    labels = {
        r["image_id"]: "base" if r["role"] == "base" else str(r["variation_value"])
        for r in images.iter_rows(named=True)
    }
    order = {image_id: i for i, image_id in enumerate(labels)}
    scenario_label = {k: s.favorable for k, s in viewer.menus.scenarios.items()}
    phi_tables: list[str] = []
    judged = sorted(grid["model_id"].unique().to_list())
    # one model's table at a time (the filter's, else the first): 6 models x 35 images x 25
    # scenarios would be 5,000 formatted cells; the cards above show every model's means
    for model_id in judged[:1]:
        part = (
            grid.filter(pl.col("model_id") == model_id)
            .with_columns(
                image=pl.col("image_id").replace_strict(labels),
                position=pl.col("image_id").replace_strict(order, return_dtype=pl.Int64),
                scenario_position=pl.col("scenario_id").replace_strict(
                    {k: i for i, k in enumerate(viewer.menus.scenarios)}, return_dtype=pl.Int64
                ),
            )
            .sort("position", "scenario_position")
        )
        phi_tables.append(
            tables.render(
                part,
                key=f"phi-{len(phi_tables)}",
                title=f"φ per scenario — {model_id}",
                columns=[stub("image", "Image")],
                pivot=Pivot(
                    on="scenario_id",
                    value="phi",
                    fmt=tables.number,
                    labels=scenario_label,
                    order="scenario_position",
                ),
                notes=["φ: share of valid answers naming the favorable descriptor (seed 000 Eq. 1)."],
            )
        )
    cards = [
        {
            **r,
            "label": labels[r["image_id"]],
            "means": means.filter(pl.col("image_id") == r["image_id"]).sort("model_id").to_dicts(),
            "identity": identity_rows.get(r["image_id"], []),
            "audit": audits.get(r["image_id"], {}),
        }
        for r in images.iter_rows(named=True)
    ]
    others = [m for m in judged[1:] if f.model is None]
    return "face.html", {"person": person, "cards": cards, "phi_tables": phi_tables, "other_models": others}


def judgments(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """One image × scenario: each ordering's exact prompt, the raw answer, its parse, P(favorable)."""
    image_id = request.query_params.get("image", "")
    con = viewer.source.cursor()
    try:
        image = drill.image_row(con, image_id)
        in_view = viewer.menus.scenarios_in(f.category)
        scenario_id = request.query_params.get("scenario") or (in_view[0].scenario_id if in_view else "")
        scenario = viewer.menus.scenario(scenario_id)
        prompts = drill.prompts(con, viewer.menus, scenario_id)
        judged = drill.judgments(con, image_id, scenario_id, f.model)
        identity_rows = quality.of_image(con, image_id, viewer.source.min_identity)
        edit_audit = audit.of_images(con, [image_id]).get(image_id)
    finally:
        con.close()
    rows = [{**r, "prompt": prompts.get(int(r["ordering"]), "")} for r in judged.iter_rows(named=True)]
    return "judgments.html", {
        "image": image,
        "scenario": scenario,
        "scenarios": viewer.menus.scenarios_in(f.category) or list(viewer.menus.scenarios.values()),
        "rows": rows,
        "summary": drill.cell_summary(judged).to_dicts(),
        "identity": identity_rows,
        "audit": edit_audit,
    }


def pairwise(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """Pairwise trials: both images, the raw answer and the choice; choice shares per cohort."""
    if not viewer.source.has("pairwise_trial"):
        raise NotFound("this study database has no pairwise trials")
    con = viewer.source.cursor()
    try:
        cohorts = designs.cohorts(con)
        cohort = request.query_params.get("cohort") or None
        if cohort is not None and cohort not in cohorts:
            raise NotFound(f"cohort={cohort!r}: no such cohort in this study")
        page = designs.trials(con, f.model, cohort, _page_number(request))
        shares = designs.choice_shares(con, f.model, cohort)
    finally:
        con.close()
    shares_html = tables.render(
        shares.filter(pl.col("chosen_group").is_not_null()).with_columns(
            share=pl.col("n_chosen") / pl.col("n_chosen").sum().over("model_id", "cohort")
        ),
        key="choices",
        title="Choices per cohort",
        columns=[stub("cohort", "Cohort")],
        pivot=Pivot(on="chosen_group", value="share", fmt=tables.number, spanner="model_id"),
        notes=["Share of valid choices that picked each stimulus group; invalid answers chose nothing."],
        empty="No trials stored yet.",
    )
    return "pairwise.html", {
        "cohorts": cohorts,
        "cohort": cohort,
        "page": page,
        "rows": page.rows.to_dicts(),
        "shares": shares_html,
        "pager_extra": {"cohort": cohort} if cohort else {},
    }


def probe(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """Model score vs human rating, one point per image, for one attribute (seed 004)."""
    con = viewer.source.cursor()
    try:
        attributes = designs.probe_attributes(con)
        if not attributes:
            raise NotFound("this study database has no human ratings to compare with")
        attribute = request.query_params.get("attribute") or attributes[0]
        if attribute not in attributes:
            raise NotFound(f"attribute={attribute!r}: no human ratings for this attribute")
        points = designs.probe_points(con, attribute, f.model)
    finally:
        con.close()
    plots = []
    for (model_id,), part in points.group_by("model_id", maintain_order=True):
        plots.append(
            {
                "model_id": model_id,
                "svg": charts.scatter(
                    part["human"].to_list(),
                    part["score"].to_list(),
                    part["image_id"].to_list(),
                    "human mean rating",
                    f"{model_id} score",
                ),
            }
        )
    correlations = designs.pearson(points)
    return "probe.html", {
        "attributes": attributes,
        "attribute": attribute,
        "plots": plots,
        "correlations": correlations.to_dicts(),
        "correlation_table": tables.render(
            correlations,
            key="probe-r",
            title=f"Model score vs human mean — {attribute}",
            columns=[
                stub("model_id", "Model"),
                Col("r", "Pearson r", tables.number),
                Col("n", "Images", tables.count),
            ],
        ),
    }
