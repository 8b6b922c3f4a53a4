"""Counterfactual quality in the viewer: each variation's identity cosine with its base.

``image_identity`` (written by ``cueshift analyze`` when the study sets ``[quality] encoder``) is
copied into memory at start, with its per-encoder summary; the threshold shown is the
``--min-identity`` of the latest analysis (``result_manifest.min_identity``): a variation below it
was left out of the analyses. Pages read one face's or one image's rows, or the summary.
"""

from __future__ import annotations

import duckdb

from cueshift import store

#: The columns the viewer reads, as ``sql/schema.sql`` declares them.
COLUMNS = (
    "encoder VARCHAR, image_id VARCHAR, base_image_id VARCHAR, feature_key VARCHAR, cosine DOUBLE, "
    "robust_z DOUBLE, outlier BOOLEAN"
)


def applied_min_identity(con: duckdb.DuckDBPyConnection, tables: frozenset[str]) -> float | None:
    """The ``--min-identity`` of the latest ``cueshift analyze`` (None: none applied, or no results)."""
    if "result_manifest" not in tables:
        return None
    found = con.execute(
        "SELECT count(*) FROM duckdb_columns() WHERE database_name = 'study' AND schema_name = 'main' "
        "AND table_name = 'result_manifest' AND column_name = 'min_identity'"
    ).fetchall()
    if not found[0][0]:
        return None
    value = con.execute("SELECT max(min_identity) FROM study.main.result_manifest").fetchall()[0][0]
    return None if value is None else float(value)


def materialise(con: duckdb.DuckDBPyConnection, tables: frozenset[str], min_identity: float | None) -> None:
    """``image_identity`` (empty when the file has none) and ``identity_summary`` in memory."""
    con.execute(f"CREATE TABLE memory.main.image_identity ({COLUMNS})")
    if "image_identity" in tables:
        names = ", ".join(column.split()[0] for column in COLUMNS.split(", "))
        con.execute(
            f"INSERT INTO memory.main.image_identity SELECT {names} FROM study.main.image_identity "
            "ORDER BY image_id"
        )
    con.execute(
        """
        CREATE TABLE memory.main.identity_summary AS
        SELECT encoder, count(*)::BIGINT AS n_variations,
               count(*) FILTER (WHERE cosine < ?)::BIGINT AS n_below,
               count(*) FILTER (WHERE outlier)::BIGINT AS n_outliers,
               min(cosine) AS min_cosine, median(cosine) AS median_cosine
        FROM memory.main.image_identity GROUP BY encoder ORDER BY encoder
        """,
        [min_identity],
    )


def summary(con: duckdb.DuckDBPyConnection) -> list[dict[str, object]]:
    """Per encoder: variations measured, below the applied threshold, outliers, min and median cosine."""
    return store.query(con, "SELECT * FROM identity_summary ORDER BY encoder").to_dicts()


def _rows(
    con: duckdb.DuckDBPyConnection, where: str, key: str, min_identity: float | None
) -> list[dict[str, object]]:
    frame = store.query(
        con,
        "SELECT q.image_id, q.encoder, q.cosine, q.robust_z, q.outlier, "
        f"coalesce(q.cosine < ?, false) AS below FROM image_identity AS q {where} "
        "ORDER BY q.image_id, q.encoder",
        [min_identity, key],
    )
    return frame.to_dicts()


def of_face(
    con: duckdb.DuckDBPyConnection, face_id: str, min_identity: float | None
) -> dict[str, list[dict[str, object]]]:
    """The identity rows of one face's variations, by image id."""
    rows = _rows(con, "JOIN image AS m USING (image_id) WHERE m.face_id = ?", face_id, min_identity)
    by_image: dict[str, list[dict[str, object]]] = {}
    for row in rows:
        by_image.setdefault(str(row["image_id"]), []).append(row)
    return by_image


def of_image(
    con: duckdb.DuckDBPyConnection, image_id: str, min_identity: float | None
) -> list[dict[str, object]]:
    """The identity rows of one image (one per encoder; none for a base or an unmeasured image)."""
    return _rows(con, "WHERE q.image_id = ?", image_id, min_identity)
