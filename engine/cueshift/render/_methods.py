"""The methods ``result_manifest`` records for the tables a report reads (:func:`stored_methods`),
to fill the method placeholders of its notes (:mod:`cueshift._method_words`, re-exported here:
:func:`by_test`, :func:`by_ci_method`, :func:`fill_methods`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb

from cueshift._method_words import (
    METHOD_COLUMNS,
    StoredMethods,
    by_ci_method,
    by_test,
    fill_methods,
    has_methods,
)
from cueshift.render._levels import source_rows

if TYPE_CHECKING:
    from cueshift.render._source import Source


def stored_methods(reader: duckdb.DuckDBPyConnection | Source, tables: Sequence[str] = ()) -> StoredMethods:
    """The distinct ``test`` and ``ci_method`` values ``result_manifest`` records for ``tables``
    (every table when empty); empty where the manifest or the column is missing."""
    params: dict[str, object] = {"tables": list(tables)} if tables else {}
    where = 'WHERE list_contains($tables, "table")' if tables else ""
    recorded = {str(r[0]) for r in source_rows(reader, _RECORDED, {})}
    if "table" not in recorded:  # no manifest, or an older one
        return StoredMethods()
    values = {
        column: tuple(
            sorted(
                str(r[0])
                for r in source_rows(reader, f"SELECT DISTINCT {column} FROM result_manifest {where}", params)
                if r[0] is not None
            )
        )
        if column in recorded
        else ()
        for column in METHOD_COLUMNS
    }
    return StoredMethods(**values)


_RECORDED = (
    "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database() "
    "AND table_name = 'result_manifest' AND column_name IN ('table', 'test', 'ci_method')"
)


__all__ = [
    "METHOD_COLUMNS",
    "StoredMethods",
    "by_ci_method",
    "by_test",
    "fill_methods",
    "has_methods",
    "stored_methods",
]
