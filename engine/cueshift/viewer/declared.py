"""Pages a design declares (:func:`cueshift.designs.viewer_support.design_page`), served under
``/design/<design>/<page>``: a title and the report's table declarations, each run over the study
database and drawn as the report draws it, or the design's page function and template."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from starlette.responses import RedirectResponse, Response

from cueshift.designs.page_helpers import NotFound
from cueshift.designs.viewer_support import PageRequest
from cueshift.render import to_html

if TYPE_CHECKING:
    from starlette.requests import Request

    from cueshift.designs.viewer_support import ViewerPage
    from cueshift.viewer.filters import Filters
    from cueshift.viewer.viewer import Viewer

#: Where a declared table's SQL finds its tables: the viewer's ``phi``/``delta``, then the study's.
SEARCH_PATH = "memory.main,study.main"


def declared_page(viewer: Viewer, request: Request, f: Filters) -> tuple[str, dict[str, Any]]:
    """The declared page at the request's path: what its page function returns, else its title and
    each of its tables."""
    page = _page(viewer, request.url.path)
    con = viewer.source.cursor()
    try:
        if page.render is not None:
            asked = PageRequest(
                query=dict(request.query_params), model=f.model, category=f.category, has=viewer.source.has
            )
            return page.render(con, asked)
        con.execute(f"SET search_path = '{SEARCH_PATH}'")
        # a table's ``$models`` (the report's model subset): the model filter, else every model
        models = {"models": [f.model] if f.model else list(viewer.menus.models)}
        sections = []
        for spec in page.tables:
            missing = [name for name in spec.requires if not viewer.source.has(name)]
            if missing:
                html = f'<p class="empty" id="tbl-{spec.key}">No {missing[0]} in this study yet.</p>'
            else:
                html = to_html(spec.render(con, models))
            sections.append({"key": spec.key, "html": html})
    finally:
        con.close()
    return "design_page.html", {"page": page, "sections": sections}


def moved_to(path: str) -> Callable[[Request], Response]:
    """An endpoint that redirects an older route of a declared page (``/pairwise``) to ``path``,
    keeping the URL's parameters."""

    def endpoint(request: Request) -> RedirectResponse:
        query = urlencode(list(request.query_params.multi_items()))
        return RedirectResponse(f"{path}?{query}" if query else path, status_code=301)

    return endpoint


def _page(viewer: Viewer, path: str) -> ViewerPage:
    for page in viewer.design.pages:
        if page.path == path and page.declared:
            return page
    raise NotFound(f"{path}: the study's design declares no such page")
