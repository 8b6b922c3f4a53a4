"""One transaction, all or nothing, whose failure shows its real cause.

When DuckDB itself aborts a transaction (a full disk while committing, an I/O error), a
``ROLLBACK`` afterwards fails with ``cannot rollback - no transaction is active`` and, raised
inside the handler, would replace the real cause. :func:`rollback` keeps the cause.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager, suppress

import duckdb


def rollback(con: duckdb.DuckDBPyConnection) -> None:
    """Roll back the open transaction, if DuckDB has not already done so."""
    with suppress(duckdb.Error):
        con.execute("ROLLBACK")


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``BEGIN`` … ``COMMIT``; on any exception (Ctrl-C included) roll back and re-raise it."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield con
        con.execute("COMMIT")
    except BaseException:
        rollback(con)
        raise
