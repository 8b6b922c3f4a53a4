"""The build in the viewer: every base face with its variations, the tries of each and why a try failed.

Reads the ``generation`` table that ``cueshift build`` writes (one row per generator call) from
the attached study file; a study without one shows no Build page. ``/build`` lists the bases
(their tries, and how many of their variations were kept); ``/build?base=...`` shows one base:
its tries, then each variation with every try's image, outcome, seed and message (the refusal,
the failure, or the edit audit's reason for a rejection). A try's image is served by its content
hash from the build's ``images/`` folder (``/build/image/<sha256>``), only when the table names it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response

from cueshift.designs.page_helpers import BadRequest, NotFound
from cueshift.stimuli.files import content_path
from cueshift.viewer.filters import Filters
from cueshift.viewer.roots import candidate_roots
from cueshift.viewer.thumbs import WIDTHS, placeholder_svg, thumbnail

if TYPE_CHECKING:
    from cueshift.viewer.viewer import Viewer

_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_SLOTS = """
    SELECT image_id, any_value(parent_id) AS parent_id, any_value(stage) AS stage, any_value(cell) AS cell,
           any_value(feature_key) AS feature_key, any_value(variation_value) AS variation_value,
           max(try) AS tries, arg_max(outcome, try) AS outcome, arg_max(sha256, try) AS sha256
    FROM study.main.generation GROUP BY image_id
"""


def _rows(viewer: Viewer, sql: str, params: list[object]) -> list[dict[str, Any]]:
    con = viewer.source.cursor()
    try:
        cursor = con.execute(sql, params)
        names = [column[0] for column in cursor.description or []]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    finally:
        con.close()


def _require(viewer: Viewer) -> None:
    if not viewer.source.has("generation"):
        raise NotFound("this study database holds no build (run `cueshift build`)")


def build_overview(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """Every base: its tries and outcome, and its variations kept of those made (``?base=``: one base)."""
    _require(viewer)
    if "base" in request.query_params:
        return build_base(viewer, request, f)
    bases = _rows(
        viewer,
        f"""
        WITH slot AS ({_SLOTS})
        SELECT b.image_id, b.cell, b.tries, b.outcome, b.sha256,
               count(v.image_id) AS variations, count(v.image_id) FILTER (WHERE v.outcome = 'ok') AS kept,
               coalesce(sum(v.tries), 0)::BIGINT AS variation_tries
        FROM slot AS b LEFT JOIN slot AS v ON v.parent_id = b.image_id
        WHERE b.stage = 'base' GROUP BY ALL ORDER BY b.image_id
        """,
        [],
    )
    outcomes = _rows(
        viewer,
        "SELECT stage, outcome, count(*) AS n FROM study.main.generation GROUP BY ALL ORDER BY ALL",
        [],
    )
    return "build.html", {"bases": bases, "outcomes": outcomes}


def build_base(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """One base: its tries, then each variation with all its tries."""
    _require(viewer)
    base_id = request.query_params.get("base")
    if not base_id:
        raise BadRequest("base=: name a base image, e.g. /build?base=base-00001")
    tries = _rows(
        viewer,
        "SELECT * FROM study.main.generation WHERE image_id = ? OR parent_id = ? "
        "ORDER BY stage, feature_key, variation_value, image_id, try",
        [base_id, base_id],
    )
    own = [t for t in tries if t["image_id"] == base_id]
    if not own or own[0]["stage"] != "base":
        raise NotFound(f"base={base_id!r}: no such base in this build")
    variations: dict[str, dict[str, Any]] = {}
    for attempt in tries:
        if attempt["image_id"] == base_id:
            continue
        slot = variations.setdefault(
            attempt["image_id"],
            {"image_id": attempt["image_id"], "feature_key": attempt["feature_key"],
             "value": attempt["variation_value"], "tries": []},
        )  # fmt: skip
        slot["tries"].append(attempt)
    for slot in variations.values():
        slot["outcome"] = slot["tries"][-1]["outcome"]
    return "build_base.html", {"base": own[-1], "base_tries": own, "variations": list(variations.values())}


def _roots(viewer: Viewer) -> list[Path]:
    roots = [viewer.root] if viewer.root is not None else []
    return roots + candidate_roots(viewer.source.configs, viewer.source.path)


def generation_image(viewer: Viewer) -> Any:
    """The endpoint serving a try's image (``?w=`` a thumbnail width) by its content hash."""

    def endpoint(request: Request) -> Response:
        sha256 = str(request.path_params["sha256"])
        named = _SHA256.match(sha256) is not None and viewer.source.has("generation") and _rows(
            viewer, "SELECT 1 FROM study.main.generation WHERE sha256 = ? LIMIT 1", [sha256]
        )  # fmt: skip
        if not named:
            return Response(placeholder_svg("unknown image"), status_code=404, media_type="image/svg+xml")
        width_text = request.query_params.get("w", "")
        width = int(width_text) if width_text.isdigit() and int(width_text) in WIDTHS else None
        for root in _roots(viewer):
            file: Path | None = content_path(root, sha256)
            if file is not None and file.is_file():
                if width is not None:
                    file = thumbnail(file, sha256, width, viewer.thumbs)
                if file is not None:
                    return FileResponse(file, headers={"Cache-Control": "max-age=3600"})
        headers = {"X-Cueshift-Placeholder": "missing", "Cache-Control": "no-store"}
        return Response(placeholder_svg("image missing"), media_type="image/svg+xml", headers=headers)

    return endpoint


__all__ = ["build_base", "build_overview", "generation_image"]
