"""Declared tables: a SQL query plus how to show its columns, rendered to any output.

A :class:`TableSpec` is declared once (see :mod:`cueshift.report.catalog`) and rendered to
an output-neutral :class:`Styled` table, from which :mod:`cueshift.report._outputs` builds a
great_tables HTML table, a typst table (PDF path), a markdown pipe table or a rich console
table. Every number shown is a value of the query's result, formatted for display only.

Specs are frozen dataclasses; derive variants with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import duckdb
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.report._formats import MISSING, Formatter, Mark, fmt_text, significance_mark

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
        Value → display text (see :mod:`cueshift.report._formats`).
    p : str, optional
        Column holding the p-value whose :func:`significance_mark` styles this cell.
    fill : callable, optional
        Value → background colour (``None``: no fill).
    align : {'left', 'right', 'center'}
        Horizontal alignment.
    args : tuple of str
        Further columns passed to ``fmt`` after the value (e.g. ``ci_high`` for :func:`fmt_ci`).
    """

    name: str
    label: str
    fmt: Formatter = fmt_text
    p: str | None = None
    fill: FillRule | None = None
    align: Align = "right"
    args: tuple[str, ...] = ()


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
        Value → background colour (e.g. the Table 11 scale).
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


@dataclass(frozen=True)
class TableSpec:
    """A declared report table.

    Parameters
    ----------
    key : str
        Identifier (``report.table(key)``; cross-reference label ``tbl-<key>``).
    title : str
        Caption.
    sql : str
        DuckDB query. It may use the named parameter ``$models`` (the model subset, a
        ``VARCHAR[]``), e.g. ``WHERE list_contains($models, model_id)``.
    columns : tuple of Col
        Displayed columns; with a ``pivot``, the row-identifying columns placed left.
    pivot : Pivot, optional
        Spread the long result into one column per value of ``pivot.on``.
    group : str, optional
        Column whose values form row groups.
    notes : tuple of str
        Notes under the table (notation, sources).
    requires : tuple of str
        Tables or views the query reads; a missing one makes the table "not computed".
    notes_sql : str, optional
        Query whose rows (first column, text) are appended to the notes: notes that quote
        stored numbers (thresholds, R², counts) read them at render time too.
    empty : str
        What the report says when the query returns no row.
    """

    key: str
    title: str
    sql: str
    columns: tuple[Col, ...]
    pivot: Pivot | None = None
    group: str | None = None
    notes: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    notes_sql: str | None = None
    empty: str = "no rows for the models of this report."

    def fetch(
        self, con: duckdb.DuckDBPyConnection, params: Mapping[str, object] | None = None
    ) -> pl.DataFrame:
        """Run the query (only the parameters it names are bound)."""
        bound = {k: v for k, v in (params or {}).items() if f"${k}" in self.sql}
        try:
            frame: pl.DataFrame = con.sql(self.sql, params=bound or None).pl()
            return frame
        except duckdb.Error as exc:
            raise CueshiftError(f"report table {self.key}: {str(exc).splitlines()[0]}") from None

    def build(self, frame: pl.DataFrame) -> Styled:
        """Format a fetched result into a :class:`Styled` table."""
        if self.pivot is None:
            return self._build_plain(frame)
        return self._build_pivot(frame, self.pivot)

    def render(self, con: duckdb.DuckDBPyConnection, params: Mapping[str, object] | None = None) -> Styled:
        """:meth:`fetch` then :meth:`build`, with the notes of ``notes_sql`` appended."""
        styled = self.build(self.fetch(con, params))
        if self.notes_sql is None:
            return styled
        bound = {k: v for k, v in (params or {}).items() if f"${k}" in self.notes_sql}
        try:
            rows = con.sql(self.notes_sql, params=bound or None).fetchall()
        except duckdb.Error as exc:
            raise CueshiftError(f"report table {self.key} (notes): {str(exc).splitlines()[0]}") from None
        extra = tuple(str(r[0]) for r in rows if r and r[0] is not None)
        return replace(styled, notes=styled.notes + extra)

    def _check_columns(self, frame: pl.DataFrame, names: Sequence[str | None]) -> None:
        missing = [n for n in names if n is not None and n not in frame.columns]
        if missing:
            raise CueshiftError(f"report table {self.key}: query result lacks column(s) {', '.join(missing)}")

    def _groups(self, frame: pl.DataFrame) -> tuple[str | None, ...]:
        if self.group is None:
            return ()
        return tuple(None if g is None else str(g) for g in frame[self.group].to_list())

    def _build_plain(self, frame: pl.DataFrame) -> Styled:
        self._check_columns(
            frame,
            [c.name for c in self.columns]
            + [c.p for c in self.columns]
            + [self.group]
            + [a for c in self.columns for a in c.args],
        )
        rows = tuple(
            tuple(
                _cell(
                    col.fmt,
                    record[col.name],
                    record.get(col.p) if col.p else None,
                    col.p is not None,
                    col.fill,
                    tuple(record[a] for a in col.args),
                )
                for col in self.columns
            )
            for record in frame.iter_rows(named=True)
        )
        return Styled(
            key=self.key,
            title=self.title,
            labels=tuple(c.label for c in self.columns),
            align=tuple(c.align for c in self.columns),
            rows=rows,
            groups=self._groups(frame),
            notes=self.notes,
            n_stub=sum(1 for c in self.columns if c.align == "left") or 1,
        )

    def _build_pivot(self, frame: pl.DataFrame, pivot: Pivot) -> Styled:
        index = [c.name for c in self.columns]
        self._check_columns(
            frame, [*index, pivot.on, pivot.value, pivot.p, pivot.spanner, self.group, pivot.order]
        )
        if pivot.order is not None:
            first = frame.group_by(
                pivot.on, *([pivot.spanner] if pivot.spanner else []), maintain_order=True
            ).agg(pl.col(pivot.order).min().alias("__key"))
            heads = first.sort("__key", maintain_order=True, nulls_last=True)
            preset = [
                ((r[pivot.spanner] if pivot.spanner else None), r[pivot.on])
                for r in heads.iter_rows(named=True)
            ]
        else:
            preset = []
        keys: dict[tuple[object, ...], int] = {}
        group_of: list[str | None] = []
        headers: dict[tuple[object, object], int] = {head: j for j, head in enumerate(preset)}
        values: dict[tuple[int, int], tuple[object, object]] = {}
        for record in frame.iter_rows(named=True):
            row_key = tuple(record[n] for n in index)
            if row_key not in keys:
                keys[row_key] = len(keys)
                group_of.append(
                    None if self.group is None or record[self.group] is None else str(record[self.group])
                )
            head = (record[pivot.spanner] if pivot.spanner else None, record[pivot.on])
            if head not in headers:
                headers[head] = len(headers)
            values[(keys[row_key], headers[head])] = (
                record[pivot.value],
                record[pivot.p] if pivot.p else None,
            )
        rows = []
        for row_key, i in keys.items():
            cells = [
                _cell(col.fmt, value, None, False, None)
                for col, value in zip(self.columns, row_key, strict=True)
            ]
            for j in range(len(headers)):
                if (i, j) in values:
                    value, p = values[(i, j)]
                    cells.append(_cell(pivot.fmt, value, p, pivot.p is not None, pivot.fill))
                else:
                    cells.append(Cell(MISSING, fill=pivot.missing_fill))
            rows.append(tuple(cells))
        pivot_labels = [pivot.labels.get(str(on), str(on)) for _, on in headers]
        spanners: list[tuple[str, int, int]] = []
        if pivot.spanner:
            offset = len(self.columns)
            for j, (span, _) in enumerate(headers):
                label = pivot.spanner_labels.get(str(span), str(span))
                if spanners and spanners[-1][0] == label and spanners[-1][2] == offset + j - 1:
                    spanners[-1] = (label, spanners[-1][1], offset + j)
                else:
                    spanners.append((label, offset + j, offset + j))
        return Styled(
            key=self.key,
            title=self.title,
            labels=tuple(c.label for c in self.columns) + tuple(pivot_labels),
            align=tuple(c.align for c in self.columns) + tuple("right" for _ in headers),
            rows=tuple(rows),
            groups=tuple(group_of) if self.group else (),
            spanners=tuple(spanners),
            notes=self.notes,
            n_stub=len(self.columns),
        )


def _cell(
    fmt: Formatter,
    value: object,
    p: object,
    has_test: bool,
    fill: FillRule | None,
    args: tuple[object, ...] = (),
) -> Cell:
    text = fmt(value, *args)
    mark = significance_mark(p) if has_test else None
    return Cell(
        text=text,
        bold=mark is Mark.STRONG and text != MISSING,
        underline=mark is Mark.NOT_SIGNIFICANT and text != MISSING,
        fill=fill(value) if fill is not None else None,
    )
