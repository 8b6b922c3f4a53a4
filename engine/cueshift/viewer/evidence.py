"""The pages that show the evidence: faces, one face's images, judgments.

The designs' own evidence pages (pairwise trials, probe vs humans) lie in their folders
(``designs/<name>/viewer_pages.py``), served under ``/design/<name>/<page>``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl
from starlette.requests import Request

from cueshift.designs.page_helpers import BadRequest
from cueshift.render import Pivot, stub
from cueshift.viewer import audit, drill, quality, tables
from cueshift.viewer import faces as face_data
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
    face_id = request.query_params.get("id", "")
    con = viewer.source.cursor()
    try:
        person = face_data.person(con, face_id)
        images = face_data.images(con, face_id)
        grid = face_data.phi_grid(con, face_id, f)
        identity_rows = quality.of_face(con, face_id, viewer.source.min_identity)
        audits = audit.of_face(con, face_id)
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
