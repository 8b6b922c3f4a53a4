"""What a design tells ``cueshift view``, as data: the viewer reads it from the design registry.

The viewer sits above the designs: a design says which of its study-file sections name image
folders (so the viewer finds the images of its runs) and which pages to link from the navigation
and the overview (:class:`ViewerSupport`). A page is either one the viewer implements (its route,
e.g. ``/faces``) or one the design declares (:func:`design_page`), served under
``/design/<design>/<page>``: a title and the report's table declarations
(:class:`~cueshift.render.TableSpec`: SQL over the study database, columns, formatting), or a
page function of the design's own (:data:`PageFunction`) whose template lies in the design's
``templates/`` folder (:attr:`ViewerSupport.templates`). Page functions are built from
:mod:`cueshift.designs.page_helpers`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # not at import: a design declares its viewer without the report stack (D90)
    import duckdb

    from cueshift.render import TableSpec


@dataclass(frozen=True)
class PageRequest:
    """What a design's page function reads of a request (the viewer has checked the filters).

    Attributes
    ----------
    query
        The URL's parameters (``cohort``, ``page``, ...), unchecked: the page checks its own.
    model
        The model filter (``None``: every model), a model of the study.
    category
        The scenario-category filter (``None``: every category), a category of the study.
    has
        Whether the study database holds a table (``has("pairwise_trial")``).
    """

    query: Mapping[str, str]
    model: str | None = None
    category: str | None = None
    has: Callable[[str], bool] = lambda table: False

    def page_number(self) -> int:
        """The ``page`` parameter (1 when absent).

        >>> PageRequest({"page": "3"}).page_number()
        3

        Raises
        ------
        BadRequest
            ``page`` is not a number.
        """
        from cueshift.designs.page_helpers import BadRequest

        text = self.query.get("page", "1")
        if not text.isdigit():
            raise BadRequest(f"page={text!r}: expected a page number")
        return int(text)


#: A design's page: from a cursor on the viewer's in-memory study (``phi``, ``delta``, the
#: dimension tables; the study file's as ``study.main.<table>``) and the request, the template's
#: name and its context. The template extends ``base.html``; the viewer adds ``f`` (the filters),
#: ``study``, ``menus``, ``design`` and ``path`` (the page's URL path) to the context.
PageFunction = Callable[["duckdb.DuckDBPyConnection", PageRequest], tuple[str, dict[str, Any]]]


@dataclass(frozen=True)
class ViewerPage:
    """A page of ``cueshift view`` that a design links from the navigation bar and the overview.

    Attributes
    ----------
    path
        The page's route: the viewer's own (``"/faces"``), or ``/design/<design>/<page>``
        (:func:`design_page`).
    label
        The navigation bar's link text.
    lead
        The overview's one-line pointer to the page.
    table
        Link from the navigation bar only when the study database holds this table (``None``:
        always).
    title
        The heading of a declared page (:func:`design_page`).
    tables
        What a declared page shows, in order: each table's SQL (over the study database's tables
        and the viewer's ``phi`` and ``delta``), columns and formatting, as in a report; a table
        whose ``requires`` the database lacks shows a note instead.
    render
        The design's page function (:data:`PageFunction`), instead of ``tables``.
    aliases
        Older routes of the page (``"/pairwise"``), redirected to ``path`` with their parameters.
    """

    path: str
    label: str
    lead: str
    table: str | None = None
    title: str = ""
    tables: tuple[TableSpec, ...] = ()
    render: PageFunction | None = None
    aliases: tuple[str, ...] = ()

    @property
    def declared(self) -> bool:
        """Whether the design declares the page (tables or a page function), not the viewer."""
        return bool(self.tables) or self.render is not None

    @property
    def key(self) -> str:
        """The page's name in element ids (``nav-<key>``).

        >>> ViewerPage("/design/pairwise/trials", "Pairwise trials", "Both images and the choice").key
        'design-pairwise-trials'
        """
        return self.path.strip("/").replace("/", "-")


def design_page(
    design: str,
    page: str,
    label: str,
    lead: str,
    *,
    title: str = "",
    tables: tuple[TableSpec, ...] = (),
    render: PageFunction | None = None,
    table: str | None = None,
    aliases: tuple[str, ...] = (),
) -> ViewerPage:
    """A page ``design`` declares, served by the viewer under ``/design/<design>/<page>``: its
    ``tables`` under ``title``, or what its page function ``render`` returns (one of the two).

    >>> from cueshift.render import Col, TableSpec
    >>> counts = TableSpec(key="counts", title="Counts", sql="SELECT 1 AS n", columns=(Col("n", "n"),))
    >>> design_page("toy", "counts", "Counts", "How many →", title="Counts", tables=(counts,)).path
    '/design/toy/counts'

    Raises
    ------
    ValueError
        Both or neither of ``tables`` and ``render``.
    """
    if bool(tables) == (render is not None):
        raise ValueError(f"page {design}/{page}: declare either tables or a page function")
    return ViewerPage(f"/design/{design}/{page}", label, lead, table, title, tables, render, aliases)


@dataclass(frozen=True)
class ViewerSupport:
    """What ``cueshift view`` shows for a design beyond the pages every study has.

    Attributes
    ----------
    image_sections
        Sections of the design's study file that may name image folders of their own
        (``<section>.synthetic.cache_dir``, ``stimuli``, ``manifest``, ``root``), besides
        ``[image_set]``.
    pages
        The design's pages to link (:class:`ViewerPage`): the viewer's own, or declared
        (:func:`design_page`).
    delta
        Whether the design's judgments have base/variation Δ, so the overview says so when none is
        in view yet (``False``: the overview is silent about Δ).
    templates
        The folder of the templates of the design's page functions (``designs/<name>/templates``;
        ``None``: none). The viewer's own templates (``base.html``, ``pager.html``) come first, so
        a design names its templates after itself (``pairwise.html``).
    """

    image_sections: tuple[str, ...] = ()
    pages: tuple[ViewerPage, ...] = ()
    delta: bool = True
    templates: Path | None = None


__all__ = ["PageFunction", "PageRequest", "ViewerPage", "ViewerSupport", "design_page"]
