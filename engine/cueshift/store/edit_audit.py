"""The ``edit_audit`` table: the edit audit of every variation, replaced as a whole.

Rows are computed by ``cueshift audit`` (and ``analyze --audit``) in the design layer
(:mod:`cueshift.designs.audit`); a new audit replaces every earlier row in one transaction,
so the table always holds one consistent audit (robust z values depend on every variation of
an attribute, and the encoder may have changed).
"""

from __future__ import annotations

import duckdb
import polars as pl

from cueshift.store.database import query
from cueshift.store.transaction import transaction
from cueshift.store.writes import validate


def replace_edit_audit(con: duckdb.DuckDBPyConnection, rows: pl.DataFrame) -> None:
    """Validate ``rows`` (schema ``edit_audit``) and make them the table's only rows."""
    checked = validate("edit_audit", rows)
    arrow = checked.to_arrow()  # noqa: F841  (read by name in SQL)
    columns = ", ".join(checked.columns)
    with transaction(con):
        con.execute("DELETE FROM edit_audit")
        if checked.height:
            con.execute(f"INSERT INTO edit_audit ({columns}) SELECT {columns} FROM arrow")


def read_edit_audit(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every stored audit row, by variation and measure."""
    return query(con, "SELECT * FROM edit_audit ORDER BY image_id, check_kind, measure")


def read_edit_verdict(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per audited variation (the ``edit_verdict`` view)."""
    return query(con, "SELECT * FROM edit_verdict ORDER BY image_id")


__all__ = ["read_edit_audit", "read_edit_verdict", "replace_edit_audit"]
