"""The methods ``result_manifest`` records for the tables a report reads (:func:`stored_methods`),
to fill the method placeholders of its notes (:mod:`cueshift._method_words`, re-exported here:
:func:`by_test`, :func:`by_ci_method`, :func:`scoped`, :func:`fill_methods`), table by table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb

from cueshift._method_words import (
    METHOD_COLUMNS,
    StoredMethods,
    TableMethods,
    by_ci_method,
    by_test,
    fill_methods,
    has_methods,
    scoped,
)
from cueshift.render._levels import source_rows

if TYPE_CHECKING:
    from cueshift.render._source import Source


def stored_methods(reader: duckdb.DuckDBPyConnection | Source, tables: Sequence[str] = ()) -> StoredMethods:
    """The ``test`` and ``ci_method`` values ``result_manifest`` records for ``tables`` (every table
    when empty), table by table (``rows``) and distinct (``test``, ``ci_method``); empty where the
    manifest or the column is missing. A placeholder filled with them names the method of its own
    tables, each table's where tables of separate runs differ (:func:`fill_methods`)."""
    params: dict[str, object] = {"tables": list(tables)} if tables else {}
    where = 'WHERE list_contains($tables, "table")' if tables else ""
    recorded = {str(r[0]) for r in source_rows(reader, _RECORDED, {})}
    if "table" not in recorded:  # no manifest, or an older one
        return StoredMethods()
    columns = ", ".join(column if column in recorded else f"NULL AS {column}" for column in METHOD_COLUMNS)
    sql = f'SELECT DISTINCT "table", {columns} FROM result_manifest {where} ORDER BY ALL'
    rows = tuple(
        TableMethods(str(table), _text(test), _text(ci_method))
        for table, test, ci_method in source_rows(reader, sql, params)
    )
    found = StoredMethods(rows=rows)
    return StoredMethods(found.values("test"), found.values("ci_method"), rows)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


_RECORDED = (
    "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
    "AND table_name = 'result_manifest' AND column_name IN ('table', 'test', 'ci_method')"
)


__all__ = [
    "METHOD_COLUMNS",
    "StoredMethods",
    "TableMethods",
    "by_ci_method",
    "by_test",
    "fill_methods",
    "has_methods",
    "scoped",
    "stored_methods",
]
