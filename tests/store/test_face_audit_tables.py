"""The face-model tables of the edit audit (``face_detection``, ``audit_skin_tone``): written with
``edit_audit`` in one transaction and replaced whole by the next audit, refused rows writing
nothing, and merged from shards written before the tables existed (docs/faces.md).

Rows are planted here; every expectation is a query of the database against the planted frame.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest

from cueshift import store
from cueshift.designs._audit_detections import DETECTION_SCHEMA
from cueshift.designs._audit_rows import empty_audit
from cueshift.errors import SchemaViolation
from cueshift.schemas.audit_skin import ALL
from cueshift.store.edit_audit import read_face_detection, read_skin_tone, replace_edit_audit

LANDMARKS = (0.40, 0.30, 0.60, 0.30, 0.50, 0.42, 0.42, 0.55, 0.58, 0.55)


def detections() -> pl.DataFrame:
    """A base with one face, a variation with two, one with none."""
    rows = [
        ("b1", "mtcnn", 1, "one face", 0.999, 0.30, 0.20, 0.70, 0.70, *LANDMARKS, 41.5),
        ("v1", "mtcnn", 2, "several faces", 0.98, 0.05, 0.10, 0.45, 0.60, *LANDMARKS, 30.25),
        ("v2", "mtcnn", 0, "no face", *[None] * 16),
    ]
    return pl.DataFrame(rows, schema=DETECTION_SCHEMA, orient="row")


def skin_tone() -> pl.DataFrame:
    rows = [
        ("attribute", "hat", "beret", ALL, ALL, 2.5, 1.0, 4.0, 6, 3),
        ("group", ALL, ALL, "black", "female", 3.0, None, None, 2, 1),
        ("difference", ALL, ALL, "black", ALL, 1.25, -0.5, 3.0, 6, 3),
    ]
    schema = ["summary", "feature_key", "variation_value", "ethnicity", "gender"]
    schema += ["estimate", "ci_low", "ci_high", "n_edits", "n_faces"]
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return frame.with_columns(pl.col("estimate", "ci_low", "ci_high").cast(pl.Float64), confidence_level=0.95)


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    return int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])


def test_the_tables_are_written_with_the_audit_and_replaced_whole(tmp_path: Path) -> None:
    con = store.open_study(tmp_path / "study.duckdb")
    try:
        replace_edit_audit(con, empty_audit(), detections=detections(), skin_tone=skin_tone())
        stored = read_face_detection(con)
        assert stored.sort("image_id").equals(detections().sort("image_id"))
        assert read_skin_tone(con).sort("summary").equals(skin_tone().sort("summary"))
        found = con.execute(
            "SELECT finding, face_count, x0 IS NULL FROM face_detection ORDER BY image_id"
        ).fetchall()
        assert found == [("one face", 1, False), ("several faces", 2, False), ("no face", 0, True)]
        replace_edit_audit(con, empty_audit())  # an audit without [audit.faces]
        assert _count(con, "face_detection") == 0 and _count(con, "audit_skin_tone") == 0
    finally:
        con.close()


@pytest.mark.parametrize(
    ("table", "column", "value"),
    [
        ("face_detection", "finding", "one face"),  # the row of two faces called one
        ("face_detection", "x1", 1.5),  # a box past the image
        ("audit_skin_tone", "summary", "overall"),
    ],
)
def test_a_refused_row_writes_nothing(tmp_path: Path, table: str, column: str, value: object) -> None:
    con = store.open_study(tmp_path / "study.duckdb")
    try:
        replace_edit_audit(con, empty_audit(), detections=detections(), skin_tone=skin_tone())
        frames = {"face_detection": detections(), "audit_skin_tone": skin_tone()}
        bad = frames[table].with_columns(
            pl.when(pl.int_range(pl.len()) == 1).then(pl.lit(value)).otherwise(pl.col(column)).alias(column)
        )
        frames[table] = bad
        with pytest.raises(SchemaViolation, match=table):
            replace_edit_audit(
                con, empty_audit(), detections=frames["face_detection"], skin_tone=frames["audit_skin_tone"]
            )
        assert _count(con, "face_detection") == 3 and _count(con, "audit_skin_tone") == 3  # as before
    finally:
        con.close()


def test_merge_takes_shards_written_before_the_tables_existed(tmp_path: Path) -> None:
    new, old = tmp_path / "new.duckdb", tmp_path / "old.duckdb"
    con = store.open_study(new)
    replace_edit_audit(con, empty_audit(), detections=detections(), skin_tone=skin_tone())
    con.close()
    con = store.open_study(old)
    con.execute("DROP TABLE face_detection")
    con.execute("DROP TABLE audit_skin_tone")
    con.close()
    store.merge_databases(tmp_path / "merged.duckdb", [old, new])
    store.merge_databases(tmp_path / "only_old.duckdb", [old])
    with duckdb.connect(str(tmp_path / "merged.duckdb"), read_only=True) as merged:
        assert (
            merged.sql("SELECT * FROM face_detection")
            .pl()
            .sort("image_id")
            .equals(detections().sort("image_id"))
        )
        assert _count(merged, "audit_skin_tone") == skin_tone().height
    with duckdb.connect(str(tmp_path / "only_old.duckdb"), read_only=True) as merged:
        assert _count(merged, "face_detection") == 0 and _count(merged, "audit_skin_tone") == 0
