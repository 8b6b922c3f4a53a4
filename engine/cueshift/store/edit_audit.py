"""The ``edit_audit`` table: the edit audit of every variation, replaced as a whole (with the
face-model tables ``face_detection`` and ``audit_skin_tone`` of the same audit).

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


def replace_edit_audit(
    con: duckdb.DuckDBPyConnection,
    rows: pl.DataFrame,
    *,
    detections: pl.DataFrame | None = None,
    skin_tone: pl.DataFrame | None = None,
) -> None:
    """Validate ``rows`` (schema ``edit_audit``) and make them the table's only rows.

    The face-model tables of the same audit (``[audit.faces]``) are replaced with it, in the same
    transaction: ``detections`` (``face_detection``) and ``skin_tone`` (``audit_skin_tone``); left
    empty when not given, so no table describes an earlier audit.
    """
    frames = {"edit_audit": rows, "face_detection": detections, "audit_skin_tone": skin_tone}
    checked = {table: validate(table, frame) for table, frame in frames.items() if frame is not None}
    with transaction(con):
        for table in frames:
            con.execute(f"DELETE FROM {table}")
        for table, frame in checked.items():
            if frame.height:
                arrow = frame.to_arrow()  # noqa: F841  (read by name in SQL)
                columns = ", ".join(f'"{c}"' for c in frame.columns)
                con.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM arrow")


def read_edit_audit(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Every stored audit row, by variation and measure."""
    return query(con, "SELECT * FROM edit_audit ORDER BY image_id, check_kind, measure")


def read_edit_verdict(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """One row per audited variation (the ``edit_verdict`` view)."""
    return query(con, "SELECT * FROM edit_verdict ORDER BY image_id")


def read_face_detection(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """What the face detector of the latest audit found on each image (``face_detection``)."""
    return query(con, "SELECT * FROM face_detection ORDER BY image_id, detector")


def read_skin_tone(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """The latest audit's skin tone summary (``audit_skin_tone``)."""
    return query(
        con, "SELECT * FROM audit_skin_tone ORDER BY summary, feature_key, variation_value, ethnicity, gender"
    )


__all__ = [
    "read_edit_audit",
    "read_edit_verdict",
    "read_face_detection",
    "read_skin_tone",
    "replace_edit_audit",
]
