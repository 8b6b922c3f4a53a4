"""Counterfactual quality in the viewer: each variation's identity cosine with its base.

``image_identity`` (written by ``cueshift analyze`` when the study sets ``[quality] encoder``) is
copied into memory at start, with its per-encoder summary; the threshold shown is the
``--min-identity`` of the latest analysis (``result_manifest.min_identity``): a variation below it
was left out of the analyses. Where the face models joined that ``--min-identity`` (``[audit.faces]
identity_filter``, docs/decisions.md D38: ``result_identity_drops`` counts their drops), the
variations they dropped (``face_identity_drops``: a face-recognition distance past its threshold,
or no single face on base and variation, from the stored ``edit_audit``) are marked and counted
too. Pages read one face's or one image's rows, or the summary.
"""

from __future__ import annotations

import duckdb

from cueshift import store

#: The columns the viewer reads, as ``sql/schema.sql`` declares them.
COLUMNS = (
    "encoder VARCHAR, image_id VARCHAR, base_image_id VARCHAR, feature_key VARCHAR, cosine DOUBLE, "
    "robust_z DOUBLE, outlier BOOLEAN"
)


def _has_column(con: duckdb.DuckDBPyConnection, table: str, column: str) -> bool:
    """Whether the study's ``table`` has ``column`` (results stored by an older version may not)."""
    found = con.execute(
        "SELECT count(*) FROM duckdb_columns() WHERE database_name = 'study' AND schema_name = 'main' "
        "AND table_name = ? AND column_name = ?",
        [table, column],
    ).fetchall()
    return bool(found[0][0])


def applied_min_identity(con: duckdb.DuckDBPyConnection, tables: frozenset[str]) -> float | None:
    """The ``--min-identity`` of the latest ``cueshift analyze`` (None: none applied, or no results)."""
    if "result_manifest" not in tables or not _has_column(con, "result_manifest", "min_identity"):
        return None
    value = con.execute("SELECT max(min_identity) FROM study.main.result_manifest").fetchall()[0][0]
    return None if value is None else float(value)


def _face_filtered(con: duckdb.DuckDBPyConnection, tables: frozenset[str]) -> bool:
    """Whether the face models joined the latest analysis's ``--min-identity``: its
    ``result_identity_drops`` counts their drops."""
    if not {"result_identity_drops", "edit_audit"} <= tables:
        return False
    if not _has_column(con, "result_identity_drops", "n_dropped_both"):  # stored before schema 13
        return False
    filled = "SELECT count(*) FROM study.main.result_identity_drops WHERE n_dropped_both IS NOT NULL"
    return bool(con.execute(filled).fetchall()[0][0])


def _face_drops(con: duckdb.DuckDBPyConnection, tables: frozenset[str]) -> bool:
    """``face_identity_drops`` in memory: ``image_id, reason ('face_count' | 'distance'), threshold``
    of each variation the face models dropped (empty unless they joined the latest ``--min-identity``:
    then False)."""
    con.execute(
        "CREATE TABLE memory.main.face_identity_drops (image_id VARCHAR, reason VARCHAR, threshold DOUBLE)"
    )
    if not _face_filtered(con, tables):
        return False
    con.execute(
        """
        INSERT INTO memory.main.face_identity_drops
        SELECT image_id,
               CASE WHEN bool_or(failed) FILTER (WHERE measure = 'face_count') THEN 'face_count'
                    ELSE 'distance' END,
               max(bound) FILTER (WHERE measure = 'face_identity_distance')
        FROM study.main.edit_audit WHERE measure IN ('face_count', 'face_identity_distance')
        GROUP BY image_id HAVING bool_or(failed) ORDER BY image_id
        """
    )
    return True


def materialise(con: duckdb.DuckDBPyConnection, tables: frozenset[str], min_identity: float | None) -> None:
    """``image_identity`` (empty when the file has none), ``face_identity_drops`` and
    ``identity_summary`` in memory."""
    con.execute(f"CREATE TABLE memory.main.image_identity ({COLUMNS})")
    if "image_identity" in tables:
        names = ", ".join(column.split()[0] for column in COLUMNS.split(", "))
        con.execute(
            f"INSERT INTO memory.main.image_identity SELECT {names} FROM study.main.image_identity "
            "ORDER BY image_id"
        )
    faces = _face_drops(con, tables)
    con.execute(
        """
        CREATE TABLE memory.main.identity_summary AS
        WITH q AS (
            SELECT i.*, coalesce(i.cosine < $min, false) AS below, f.reason, f.threshold
            FROM memory.main.image_identity AS i
            LEFT JOIN memory.main.face_identity_drops AS f USING (image_id)
        )
        SELECT encoder, count(*)::BIGINT AS n_variations,
               count(*) FILTER (WHERE below)::BIGINT AS n_below,
               count(*) FILTER (WHERE outlier)::BIGINT AS n_outliers,
               min(cosine) AS min_cosine, median(cosine) AS median_cosine,
               CASE WHEN $faces THEN count(*) FILTER (WHERE reason = 'distance') END AS n_face_distance,
               CASE WHEN $faces THEN count(*) FILTER (WHERE reason = 'face_count') END AS n_face_count,
               CASE WHEN $faces THEN count(*) FILTER (WHERE reason IS NOT NULL AND below) END AS n_both,
               CASE WHEN $faces THEN count(*) FILTER (WHERE reason IS NOT NULL OR below) END AS n_dropped,
               max(threshold) AS face_threshold
        FROM q GROUP BY encoder ORDER BY encoder
        """,
        {"min": min_identity, "faces": faces},
    )


def summary(con: duckdb.DuckDBPyConnection) -> list[dict[str, object]]:
    """Per encoder: variations measured, below the applied threshold, outliers, min and median cosine;
    where the face models filtered, those they dropped (``n_face_distance``, ``n_face_count``), those
    both models dropped (``n_both``) and all dropped (``n_dropped``; null without the face models)."""
    return store.query(con, "SELECT * FROM identity_summary ORDER BY encoder").to_dicts()


def _rows(
    con: duckdb.DuckDBPyConnection, where: str, key: str, min_identity: float | None
) -> list[dict[str, object]]:
    frame = store.query(
        con,
        "SELECT q.image_id, q.encoder, q.cosine, q.robust_z, q.outlier, "
        "coalesce(q.cosine < ?, false) AS below, f.reason AS face_dropped, f.threshold AS face_threshold "
        f"FROM image_identity AS q LEFT JOIN face_identity_drops AS f USING (image_id) {where} "
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
