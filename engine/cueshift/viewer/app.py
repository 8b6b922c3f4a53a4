"""The Starlette application: routes, server-rendered Jinja2 pages, images, one-line errors.

Every page is a plain GET with its state in the URL (linkable, bookmarkable); no page takes SQL
or a file path from the browser. Handlers are synchronous (Starlette runs them in its thread
pool), each with a DuckDB cursor of its own on the read-only, in-memory aggregated study.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import duckdb
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from cueshift.designs import designs
from cueshift.designs.page_helpers import BadRequest, NotFound
from cueshift.store.damage import is_damage, unreadable
from cueshift.viewer import evidence, generation, pages, review
from cueshift.viewer.declared import declared_page, moved_to
from cueshift.viewer.filters import Filters
from cueshift.viewer.menus import load_menus
from cueshift.viewer.roots import candidate_roots, choose_root, resolve_image
from cueshift.viewer.source import open_source
from cueshift.viewer.thumbs import DEFAULT_CACHE, WIDTHS, placeholder_svg, thumbnail
from cueshift.viewer.viewer import Viewer, design_support, environment

#: Registered image paths sampled to pick the image-set root.
ROOT_SAMPLE = 24


def build_viewer(database: Path, *, images: Path | None = None, thumbs: Path = DEFAULT_CACHE) -> Viewer:
    """Open the study read-only, aggregate it, find its images (see :mod:`cueshift.viewer.roots`)."""
    source = open_source(database)
    menus = load_menus(source)
    design = design_support(source.design)
    if images is not None:
        root: Path | None = images.resolve() if images.is_dir() else None
    else:
        con = source.cursor()
        sample = [
            str(r[0])
            for r in con.execute(f"SELECT path FROM image USING SAMPLE {ROOT_SAMPLE} ROWS").fetchall()
        ]
        con.close()
        root = choose_root(candidate_roots(source.configs, database), sample)
    return Viewer(
        source=source,
        menus=menus,
        root=root,
        thumbs=thumbs,
        templates=environment(design.templates),
        design=design,
    )


PageHandler = Callable[[Viewer, Request, Filters], tuple[str, dict[str, Any]]]


def _page(viewer: Viewer, handler: PageHandler) -> Callable[[Request], Response]:
    def endpoint(request: Request) -> Response:
        try:
            f = Filters.parse(request.query_params, viewer.menus)
            template, context = handler(viewer, request, f)
            return viewer.page(request, template, {"f": f, **context})
        except (NotFound, BadRequest) as exc:
            failure = {"f": Filters(), "message": str(exc)}
            return viewer.page(request, "error.html", failure, status=exc.status_code)
        except duckdb.Error as exc:  # a block of the study file that fails its checksum, read by this page
            if not is_damage(exc):
                raise
            message = unreadable([viewer.source.path], exc)
            failure = {"f": Filters(), "message": message, "heading": "The study database is damaged"}
            return viewer.page(request, "error.html", failure, status=500)

    return endpoint


def _image(viewer: Viewer) -> Callable[[Request], Response]:
    def endpoint(request: Request) -> Response:
        image_id = request.path_params["image_id"]
        con = viewer.source.cursor()
        try:
            found = con.execute("SELECT path, sha256 FROM image WHERE image_id = ?", [image_id]).fetchall()
        finally:
            con.close()
        width_text = request.query_params.get("w")
        width = int(width_text) if width_text and width_text.isdigit() and int(width_text) in WIDTHS else None
        if not found:
            return Response(placeholder_svg("unknown image"), status_code=404, media_type="image/svg+xml")
        (path, sha256) = found[0]
        file = resolve_image(viewer.root, str(path))
        if file is not None and width is not None:
            file = thumbnail(file, str(sha256), width, viewer.thumbs)
        if file is None:
            headers = {"X-Cueshift-Placeholder": "missing", "Cache-Control": "no-store"}
            return Response(placeholder_svg("image missing"), media_type="image/svg+xml", headers=headers)
        return FileResponse(file, headers={"Cache-Control": "max-age=3600"})

    return endpoint


def _older_routes() -> list[Route]:
    """The older routes of every registered design's pages (``/pairwise``), each redirected to its
    page's route: on another design's study, that answers the viewer's one-line 404."""
    return [
        Route(alias, moved_to(page.path))
        for design in designs().values()
        for page in design.viewer.pages
        for alias in page.aliases
    ]


def create_app(database: Path, *, images: Path | None = None, thumbs: Path = DEFAULT_CACHE) -> Starlette:
    """The viewer application for one study database (served by :func:`cueshift.viewer.start_viewer`)."""
    viewer = build_viewer(database, images=images, thumbs=thumbs)
    routes = [
        Route("/", _page(viewer, pages.overview)),
        Route("/attribute", _page(viewer, pages.attribute)),
        Route("/faces", _page(viewer, evidence.faces)),
        Route("/face", _page(viewer, evidence.face)),
        Route("/judgments", _page(viewer, evidence.judgments)),
        Route("/failed", _page(viewer, review.failed_edits)),
        Route("/compare", _page(viewer, review.models_side_by_side)),
        Route("/design/{design:str}/{page:str}", _page(viewer, declared_page)),
        Route("/build", _page(viewer, generation.build_overview)),
        Route("/build/image/{sha256:str}", generation.generation_image(viewer)),
        Route("/image/{image_id:str}", _image(viewer)),
        *_older_routes(),
    ]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        viewer.source.close()

    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.viewer = viewer
    return app
