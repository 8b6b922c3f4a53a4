"""What a design tells ``cueshift view``, as data: the viewer reads it from the design registry.

The viewer sits above the designs: a design says which of its study-file sections name image
folders (so the viewer finds the images of its runs) and which pages to link from the navigation
and the overview (:class:`ViewerSupport`). A page is either one the viewer implements (its route,
e.g. ``/pairwise``) or one the design declares as data (:func:`design_page`): a title and the
report's table declarations (:class:`~cueshift.render.TableSpec`: SQL over the study database,
columns, formatting), which the viewer renders under ``/design/<design>/<page>``.
"""

from __future__ import annotations

from dataclasses import dataclass

from cueshift.render import TableSpec


@dataclass(frozen=True)
class ViewerPage:
    """A page of ``cueshift view`` that a design links from the navigation bar and the overview.

    Attributes
    ----------
    path
        The viewer's route (``"/pairwise"``); the page is implemented by the viewer.
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
        whose ``requires`` the database lacks shows a note instead. Empty: the viewer implements
        the page.
    """

    path: str
    label: str
    lead: str
    table: str | None = None
    title: str = ""
    tables: tuple[TableSpec, ...] = ()

    @property
    def key(self) -> str:
        """The page's name in element ids (``nav-<key>``).

        >>> ViewerPage("/pairwise", "Pairwise trials", "Both images and the choice").key
        'pairwise'
        """
        return self.path.strip("/").replace("/", "-")


def design_page(
    design: str,
    page: str,
    label: str,
    lead: str,
    *,
    title: str,
    tables: tuple[TableSpec, ...],
    table: str | None = None,
) -> ViewerPage:
    """A page ``design`` declares as data, rendered by the viewer under ``/design/<design>/<page>``.

    >>> from cueshift.render import Col
    >>> counts = TableSpec(key="counts", title="Counts", sql="SELECT 1 AS n", columns=(Col("n", "n"),))
    >>> design_page("toy", "counts", "Counts", "How many →", title="Counts", tables=(counts,)).path
    '/design/toy/counts'
    """
    return ViewerPage(f"/design/{design}/{page}", label, lead, table, title, tables)


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
    """

    image_sections: tuple[str, ...] = ()
    pages: tuple[ViewerPage, ...] = ()
    delta: bool = True


__all__ = ["ViewerPage", "ViewerSupport", "design_page"]
