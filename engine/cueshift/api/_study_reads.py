"""How :class:`~cueshift.api._study.Study` reads its database: one fresh read-only connection per
query (refused once the study is closed), the result-version check, and the database's tables and
result tables by name (:class:`DatabaseReads`, which ``Study`` inherits)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import one_line_errors
from cueshift.errors import CueshiftError

if TYPE_CHECKING:
    import duckdb
    import polars as pl

_MANIFEST = "result_manifest"


class DatabaseReads:
    """The private reads of :class:`~cueshift.api._study.Study` (the database at ``path``)."""

    path: Path
    _closed: bool

    @one_line_errors
    def _frame(self, sql: str, params: list[object] | None = None) -> pl.DataFrame:
        """Run one query of Study's own on a fresh read-only connection (no guard: use :meth:`sql`)."""
        from cueshift import store

        con = self._connect()
        try:
            return store.query(con, sql, params)
        finally:
            con.close()

    def _connect(self) -> duckdb.DuckDBPyConnection:
        if self._closed:
            raise CueshiftError(f"{self.path}: the study is closed; open it again with cs.open_study")
        from cueshift import store

        return store.open_study(self.path, read_only=True)

    @one_line_errors
    def _check_result_version(self) -> None:
        """Refuse result tables an older cueshift wrote (one line naming ``cueshift analyze``)."""
        from cueshift.store.result_version import check_result_version

        con = self._connect()
        try:
            check_result_version(self.path, con)
        finally:
            con.close()

    def _tables(self) -> set[str]:
        names = self._frame("SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()")
        return set(names["table_name"].to_list())

    def _result_tables(self) -> dict[str, str]:
        """Result name → table: the manifest's rows, then any other ``result_*`` table by its suffix."""
        tables = self._tables()
        named: dict[str, str] = {}
        if _MANIFEST in tables:
            rows = self._frame(f'SELECT name, "table" FROM {_MANIFEST} ORDER BY rowid').rows()
            named = {name: table for name, table in rows if table in tables}
        others = sorted(t for t in tables if t.startswith("result_") and t != _MANIFEST)
        return named | {t.removeprefix("result_"): t for t in others if t not in named.values()}
