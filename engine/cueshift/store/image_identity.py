"""The ``image_identity`` table: counterfactual quality of each variation, replaced per encoder.

Rows are computed from the embedding cache by ``cueshift analyze`` (the design layer); a new
computation for an encoder replaces that encoder's rows in one transaction, so the table always
holds one consistent set of robust z values (they depend on every variation of an attribute).
"""

from __future__ import annotations

import duckdb
import polars as pl

from cueshift.store.database import query
from cueshift.store.transaction import transaction
from cueshift.store.writes import validate


def replace_image_identity(con: duckdb.DuckDBPyConnection, encoder: str, rows: pl.DataFrame) -> None:
    """Validate ``rows`` (schema ``image_identity``) and make them the rows of ``encoder``."""
    checked = validate("image_identity", rows)
    if checked.height and set(checked["encoder"].unique().to_list()) != {encoder}:
        raise ValueError(f"replace_image_identity: rows of another encoder than {encoder!r}")
    arrow = checked.to_arrow()  # noqa: F841  (read by name in SQL)
    columns = ", ".join(checked.columns)
    with transaction(con):
        con.execute("DELETE FROM image_identity WHERE encoder = ?", [encoder])
        if checked.height:
            con.execute(f"INSERT INTO image_identity ({columns}) SELECT {columns} FROM arrow")


def read_image_identity(con: duckdb.DuckDBPyConnection, encoder: str) -> pl.DataFrame:
    """The stored rows of ``encoder``, by image id."""
    return query(con, "SELECT * FROM image_identity WHERE encoder = ? ORDER BY image_id", [encoder])


__all__ = ["read_image_identity", "replace_image_identity"]
