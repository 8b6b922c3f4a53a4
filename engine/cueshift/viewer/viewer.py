"""The viewer's state, shared by every request: the study, its menus, what its design shows, the image
root, the templates."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse

from cueshift.designs import designs
from cueshift.designs.descriptions import result_description
from cueshift.designs.viewer_support import ViewerSupport
from cueshift.viewer.charts import TEMPLATE_GLOBALS
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
    #: What the study's design shows beyond the pages every study has (its ``Design.viewer``).
    design: ViewerSupport = ViewerSupport()

    def page(
        self, request: Request, template: str, context: dict[str, Any], status: int = 200
    ) -> HTMLResponse:
        """Render ``template`` with the context every page shares (study, menus, filters)."""
        shared = {"study": self.source, "menus": self.menus, "design": self.design, "path": request.url.path}
        text = self.templates.get_template(template).render({**shared, **context})
        return HTMLResponse(text, status_code=status)


def design_support(name: str) -> ViewerSupport:
    """What design ``name`` declares for the viewer (``Design.viewer``); a design not registered in
    this installation shows the pages every study has."""
    known = designs()
    return known[name].viewer if name in known else ViewerSupport()


def environment(design_templates: Path | None = None) -> jinja2.Environment:
    """The Jinja2 environment of the page templates (autoescaped, strict about undefined names):
    the viewer's, then those of the study's design (``ViewerSupport.templates``), with the charts
    as globals (:data:`cueshift.viewer.charts.TEMPLATE_GLOBALS`) and ``result_description(table)``
    (:func:`cueshift.designs.descriptions.result_description`)."""
    loader: jinja2.BaseLoader = jinja2.PackageLoader("cueshift.viewer", "templates")
    if design_templates is not None:
        loader = jinja2.ChoiceLoader([loader, jinja2.FileSystemLoader(design_templates)])
    env = jinja2.Environment(
        loader=loader,
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["signed"] = lambda v: "–" if v is None else f"{v:+.3f}".replace("-", "−")
    env.filters["num"] = lambda v, d=3: "–" if v is None else f"{v:.{d}f}"
    env.globals.update(TEMPLATE_GLOBALS)
    env.globals["result_description"] = result_description  # the analysis's declared one line
    return env
