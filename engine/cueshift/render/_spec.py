"""Declared tables: a SQL query plus how to show its columns, rendered to any output.

A :class:`TableSpec` is declared once (by a design's report catalog) and rendered to an
output-neutral :class:`~cueshift.render.Styled` table, from which :mod:`cueshift.render._outputs`
builds a great_tables HTML table, a typst table (PDF path), a markdown pipe table or a rich
console table. Every number shown is a value of the query's result, formatted for display only;
significance marks are derived from the stored p-values when the table is built.

Specs are frozen dataclasses; derive variants with :func:`dataclasses.replace`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import duckdb
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.render._cells import Col, Pivot, Styled, make_cell
from cueshift.render._levels import CI_LEVEL, LEVEL, fill_level, stored_ci_level, stored_level
from cueshift.render._methods import fill_methods, has_methods, stored_methods
from cueshift.render._pivot import pivot_table
from cueshift.store.damage import is_damage

#: SQL filter of per-model rows to the report's model subset (the ``$models`` parameter).
MODELS_FILTER = "list_contains($models, model_id)"


def bound_params(sql: str, params: Mapping[str, object] | None) -> dict[str, object] | None:
    """The parameters ``sql`` names (``$name``); DuckDB refuses unused ones. ``None`` when none."""
    bound = {k: v for k, v in (params or {}).items() if f"${k}" in sql}
    return bound or None


@dataclass(frozen=True)
class TableSpec:
    """A declared report table.

    Parameters
    ----------
    key : str
        Identifier (``report.table(key)``; HTML id ``tbl-<key>``).
    title : str
        Caption.
    sql : str
        DuckDB query. It may use the named parameter ``$models`` (the model subset, a
        ``VARCHAR[]``), e.g. ``WHERE list_contains($models, model_id)`` (:data:`MODELS_FILTER`).
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
    optional : bool
        Left out of the document without a note when the query returns no row or a source table
        is missing: a measure the study did not ask for (e.g. ``[audit.faces]``).
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
    optional: bool = False

    def fetch(
        self, con: duckdb.DuckDBPyConnection, params: Mapping[str, object] | None = None
    ) -> pl.DataFrame:
        """Run the query (only the parameters it names are bound)."""
        try:
            frame: pl.DataFrame = con.sql(self.sql, params=bound_params(self.sql, params)).pl()
        except duckdb.Error as exc:
            if is_damage(exc):  # the database's own error: the command names the file (store.damage)
                raise
            raise CueshiftError(f"report table {self.key}: {str(exc).splitlines()[0]}") from None
        return frame

    def build(self, frame: pl.DataFrame) -> Styled:
        """Format a fetched result into a :class:`~cueshift.render.Styled` table."""
        if self.pivot is None:
            return self._build_plain(frame)
        pivot = self.pivot
        self._check_columns(
            frame,
            [*(c.name for c in self.columns), pivot.on, pivot.value, pivot.p, pivot.spanner]
            + [self.group, pivot.order, *pivot.args],
        )
        return pivot_table(
            frame,
            key=self.key,
            title=self.title,
            columns=self.columns,
            pivot=pivot,
            group=self.group,
            notes=self.notes,
        )

    def render(self, con: duckdb.DuckDBPyConnection, params: Mapping[str, object] | None = None) -> Styled:
        """:meth:`fetch` then :meth:`build`, with the notes of ``notes_sql`` appended, every
        :data:`~cueshift.render.LEVEL` filled with the level ``requires``' results were computed at
        (:data:`~cueshift.render.CI_LEVEL` with the level their ``ci_level`` column stores)
        and every :func:`~cueshift.render.by_test` / :func:`~cueshift.render.by_ci_method` with the
        words of the test and interval ``result_manifest`` records for them."""
        styled = self.build(self.fetch(con, params))
        if self.notes_sql is not None:
            styled = self._with_stored_notes(styled, self.notes_sql, con, params)
        return _filled(styled, con, self.requires)

    def _with_stored_notes(
        self, styled: Styled, sql: str, con: duckdb.DuckDBPyConnection, params: Mapping[str, object] | None
    ) -> Styled:
        try:
            rows = con.sql(sql, params=bound_params(sql, params)).fetchall()
        except duckdb.Error as exc:
            if is_damage(exc):
                raise
            raise CueshiftError(f"report table {self.key} (notes): {str(exc).splitlines()[0]}") from None
        extra = tuple(str(r[0]) for r in rows if r and r[0] is not None)
        return replace(styled, notes=styled.notes + extra)

    def _check_columns(self, frame: pl.DataFrame, names: Sequence[str | None]) -> None:
        missing = [n for n in names if n is not None and n not in frame.columns]
        if missing:
            raise CueshiftError(f"report table {self.key}: query result lacks column(s) {', '.join(missing)}")

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
                make_cell(
                    col.fmt,
                    record[col.name],
                    args=tuple(record[a] for a in col.args),
                    tested=col.p is not None,
                    p=record[col.p] if col.p else None,
                    notation=col.notation,
                    fill=col.fill,
                )
                for col in self.columns
            )
            for record in frame.iter_rows(named=True)
        )
        groups = () if self.group is None else tuple(_text(g) for g in frame[self.group].to_list())
        return Styled(
            key=self.key,
            title=self.title,
            labels=tuple(c.label for c in self.columns),
            align=tuple(c.align for c in self.columns),
            rows=rows,
            groups=groups,
            notes=self.notes,
            n_stub=sum(1 for c in self.columns if c.align == "left") or 1,
        )


def _filled(styled: Styled, con: duckdb.DuckDBPyConnection, tables: Sequence[str]) -> Styled:
    """``styled`` with :data:`~cueshift.render.LEVEL` and the method placeholders
    (:mod:`cueshift.render._methods`) filled in title, headers, spanners and notes."""
    texts = (styled.title, *styled.labels, *(s[0] for s in styled.spanners), *styled.notes)
    level = stored_level(con, tables) if any(LEVEL in t or CI_LEVEL in t for t in texts) else None
    own = stored_ci_level(con, tables) if any(CI_LEVEL in t for t in texts) else None
    methods = stored_methods(con, tables) if any(has_methods(t) for t in texts) else None
    if level is None and methods is None:
        return styled

    def fill(text: str) -> str:
        text = text if level is None else fill_level(text, level, own)
        return text if methods is None else fill_methods(text, methods)

    return replace(
        styled,
        title=fill(styled.title),
        labels=tuple(fill(label) for label in styled.labels),
        spanners=tuple((fill(text), a, b) for text, a, b in styled.spanners),
        notes=tuple(fill(note) for note in styled.notes),
    )


def _text(value: object) -> str | None:
    return None if value is None else str(value)
