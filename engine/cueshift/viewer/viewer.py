"""The viewer's state, shared by every request: the study, its menus, the image root, the templates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse

from cueshift.viewer.menus import Menus
from cueshift.viewer.source import Source


@dataclass(frozen=True)
class Viewer:
    """What every request reads: the study, its menus, the image root and the thumbnail cache."""

    source: Source
    menus: Menus
    root: Path | None
    thumbs: Path
    templates: jinja2.Environment

    def page(
        self, request: Request, template: str, context: dict[str, Any], status: int = 200
    ) -> HTMLResponse:
        """Render ``template`` with the context every page shares (study, menus, filters)."""
        shared = {"study": self.source, "menus": self.menus, "path": request.url.path}
        text = self.templates.get_template(template).render({**shared, **context})
        return HTMLResponse(text, status_code=status)


def environment() -> jinja2.Environment:
    """The Jinja2 environment of the page templates (autoescaped, strict about undefined names)."""
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("cueshift.viewer", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["signed"] = lambda v: "–" if v is None else f"{v:+.3f}".replace("-", "−")
    env.filters["num"] = lambda v, d=3: "–" if v is None else f"{v:.{d}f}"
    return env
