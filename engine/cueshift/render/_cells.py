"""The pieces of a declared table: displayed columns, pivots, formatted cells and the styled table.

A :class:`~cueshift.render.TableSpec` names its columns with :class:`Col` (or spreads a long
result with :class:`Pivot`); rendering turns each value into a :class:`Cell` with
:func:`make_cell`, which is where formatting and the significance marks of
:func:`cueshift.render.marks.marks` meet. The result is an output-neutral :class:`Styled` table.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from cueshift.render._formats import MISSING, Formatter, fmt_text
from cueshift.render.marks import NO_MARKS, Notation, marks

Align = Literal["left", "right", "center"]
FillRule = Callable[[object], str | None]


@dataclass(frozen=True)
class Cell:
    """One displayed cell: text plus the marks every output knows how to apply."""

    text: str
    bold: bool = False
    underline: bool = False
    fill: str | None = None


@dataclass(frozen=True)
class Col:
    """A displayed column of the query result.

    Parameters
    ----------
    name : str
        Column of the query result.
    label : str
        Header text.
    fmt : callable
        Value → display text (see :mod:`cueshift.render._formats`).
    p : str, optional
        Column holding the p-value whose significance marks this cell (at render time).
    fill : callable, optional
        Value → background colour (``None``: no fill).
    align : {'left', 'right', 'center'}
        Horizontal alignment.
    args : tuple of str
        Further columns passed to ``fmt`` after the value (e.g. ``ci_high`` for :func:`fmt_ci`).
    notation : Notation
        How the significance of ``p`` shows: bold/underline (seed 000) or a star code (seeds 001, 004).
    """

    name: str
    label: str
    fmt: Formatter = fmt_text
    p: str | None = None
    fill: FillRule | None = None
    align: Align = "right"
    args: tuple[str, ...] = ()
    notation: Notation = Notation.EMPHASIS


def stub(name: str, label: str) -> Col:
    """A left-aligned text column (row labels)."""
    return Col(name, label, fmt_text, align="left")


@dataclass(frozen=True)
class Pivot:
    """Spread a long result into columns: one display column per value of ``on``.

    Display columns and rows keep the order in which they first appear in the query
    result, so the query's ``ORDER BY`` decides the layout.

    Parameters
    ----------
    on : str
        Column whose values become display columns.
    value : str
        Column holding the cell values.
    fmt : callable
        Value → display text.
    p : str, optional
        Column holding each cell's p-value (significance marks).
    fill : callable, optional
        Value → background colour.
    spanner : str, optional
        Column grouping the display columns under a spanning header (e.g. the dimension).
    labels : mapping, optional
        Header text per value of ``on`` (default: the value itself).
    spanner_labels : mapping, optional
        Header text per value of ``spanner``.
    missing_fill : str, optional
        Fill of a row × column combination absent from the result (not applicable).
    order : str, optional
        Column holding a sort key of the display columns (default: order of first appearance),
        so that a row lacking a column early in the result cannot reorder the header.
    notation : Notation
        How the significance of ``p`` shows.
    args : tuple of str
        Further columns passed to ``fmt`` after the value, as :attr:`Col.args` (e.g. ``ci_low``,
        ``ci_high`` for :func:`~cueshift.render.estimate_ci`: the estimate and its interval in one cell).
    """

    on: str
    value: str
    fmt: Formatter
    p: str | None = None
    fill: FillRule | None = None
    spanner: str | None = None
    labels: Mapping[str, str] = field(default_factory=dict)
    spanner_labels: Mapping[str, str] = field(default_factory=dict)
    missing_fill: str | None = None
    order: str | None = None
    notation: Notation = Notation.EMPHASIS
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class Styled:
    """An output-neutral table: header, optional spanners and row groups, formatted cells.

    ``spanners`` are ``(label, first, last)`` column index ranges (inclusive).
    """

    key: str
    title: str
    labels: tuple[str, ...]
    align: tuple[Align, ...]
    rows: tuple[tuple[Cell, ...], ...]
    groups: tuple[str | None, ...] = ()
    spanners: tuple[tuple[str, int, int], ...] = ()
    notes: tuple[str, ...] = ()
    n_stub: int = 1

    @property
    def n_rows(self) -> int:
        return len(self.rows)

    def texts(self) -> list[list[str]]:
        """The cell texts, row by row (what a reader sees)."""
        return [[cell.text for cell in row] for row in self.rows]


def make_cell(
    fmt: Formatter,
    value: object,
    *,
    args: tuple[object, ...] = (),
    tested: bool = False,
    p: object = None,
    notation: Notation = Notation.EMPHASIS,
    fill: FillRule | None = None,
) -> Cell:
    """Format ``value`` and attach its marks: significance of ``p`` (when ``tested``) and fill.

    A missing value (text ``–``) carries no significance mark.
    """
    text = fmt(value, *args)
    shown = marks(p, notation) if tested and text != MISSING else NO_MARKS
    return Cell(
        text=text + shown.suffix,
        bold=shown.bold,
        underline=shown.underline,
        fill=fill(value) if fill is not None else None,
    )
