"""What a design's viewer page functions are built from: one-line page errors, paging, tables.

A design's page function (:class:`~cueshift.designs.viewer_support.PageFunction`) sits below the
viewer (docs/architecture.md, the layering rule): it raises :class:`NotFound` or
:class:`BadRequest` (the viewer answers them as a one-line error page with their status), pages a
long list with :func:`page_count` and :class:`Page`, and renders a frame as the report renders
its tables with :func:`table_html`. The viewer's own pages use the same helpers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from cueshift.render import Col, Pivot, TableSpec, fmt_integer, fmt_number, to_html


class NotFound(LookupError):
    """An unknown model, scenario, image, face or attribute in the URL (HTTP 404, one line)."""

    status_code = 404


class BadRequest(ValueError):
    """A malformed parameter, e.g. a page number that is not a number (HTTP 400, one line)."""

    status_code = 400


@dataclass(frozen=True)
class Page:
    """One page of a long list."""

    rows: pl.DataFrame
    page: int
    n_pages: int
    total: int


def page_count(total: int, per_page: int, page: int, listing: str) -> int:
    """Pages of ``per_page`` rows that ``total`` rows fill (at least one); a 404 when ``page`` is not one.

    >>> page_count(49, 48, 2, "the face index")
    2

    Raises
    ------
    NotFound
        ``page`` is below 1 or past the last page of ``listing`` (e.g. "the face index").
    """
    n_pages = max(1, -(-total // per_page))
    if page < 1 or page > n_pages:
        raise NotFound(f"page={page}: {listing} has {n_pages} page(s)")
    return n_pages


def number(value: object) -> str:
    """A number with three decimals (φ, r, a share).

    >>> number(0.25)
    '0.250'
    """
    return fmt_number(value, 3)


def count(value: object) -> str:
    """A count with thousands separators.

    >>> count(12345)
    '12,345'
    """
    return fmt_integer(value)


def table_html(
    frame: pl.DataFrame,
    *,
    key: str,
    title: str,
    columns: Sequence[Col],
    pivot: Pivot | None = None,
    group: str | None = None,
    notes: Sequence[str] = (),
    empty: str = "No rows.",
) -> str:
    """great_tables HTML of ``frame`` under the report's declarations (``empty`` when no row).

    >>> table_html(pl.DataFrame({"n": []}), key="k", title="T", columns=(Col("n", "n"),))
    '<p class="empty" id="tbl-k">No rows.</p>'
    """
    if frame.height == 0:
        return f'<p class="empty" id="tbl-{key}">{empty}</p>'
    spec = TableSpec(
        key=key, title=title, sql="", columns=tuple(columns), pivot=pivot, group=group, notes=tuple(notes)
    )
    return to_html(spec.build(frame))


__all__ = ["BadRequest", "NotFound", "Page", "count", "number", "page_count", "table_html"]
