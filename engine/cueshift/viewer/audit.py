"""The edit audit in the viewer: did the cue appear, did anything else change, per variation.

``edit_audit`` (``sql/schema.sql``: one row per variation × measure, written by ``cueshift
audit``) is copied into memory at start, empty when the study file has none, so that every page
reads it the same way. A variation's verdict is the study's ``edit_verdict`` view (its own SQL,
``sql/views/edit_verdict.sql``, run once over the copy): it *fails* when any of its measures
failed. Pages read one face's or one attribute's rows, the failed edits, or the summary; nothing
shows when the table is empty.
"""

from __future__ import annotations

import duckdb
import polars as pl

from cueshift import store

#: The columns the viewer reads, as ``sql/schema.sql`` declares them.
COLUMNS = (
    "image_id VARCHAR, base_image_id VARCHAR, face_id VARCHAR, feature_key VARCHAR, "
    "variation_value VARCHAR, check_kind VARCHAR, measure VARCHAR, source VARCHAR, "
    "measured_base DOUBLE, measured_variation DOUBLE, difference DOUBLE, robust_z DOUBLE, "
    "bound DOUBLE, failed BOOLEAN, reason VARCHAR"
)
#: Failed edits per page of the list.
PER_PAGE = 24
#: How the measures of one variation are listed: the cue first, then what else moved.
_ORDER = "CASE check_kind WHEN 'cue' THEN 0 WHEN 'identity' THEN 1 ELSE 2 END, measure"


def materialise(con: duckdb.DuckDBPyConnection, tables: frozenset[str]) -> None:
    """``edit_audit`` in memory (empty when the file has none) and ``edit_verdict``, one row per variation."""
    con.execute(f"CREATE TABLE memory.main.edit_audit ({COLUMNS})")
    if "edit_audit" in tables:
        names = ", ".join(column.split()[0] for column in COLUMNS.split(", "))
        con.execute(
            f"INSERT INTO memory.main.edit_audit SELECT {names} FROM study.main.edit_audit "
            "ORDER BY image_id, measure"
        )
    # the study's own view (``sql/views/edit_verdict.sql``) over the copy, kept as a table
    con.execute("USE memory.main")
    con.execute(store.sql_text("views/edit_verdict.sql"))
    con.execute("CREATE TABLE memory.main.verdict AS SELECT * FROM edit_verdict ORDER BY image_id")
    con.execute("DROP VIEW memory.main.edit_verdict")
    con.execute("ALTER TABLE memory.main.verdict RENAME TO edit_verdict")


def summary(con: duckdb.DuckDBPyConnection, value: str | None = None) -> dict[str, int]:
    """Variations audited and failed, of one attribute or all (both 0 when the study has no audit)."""
    audited, failed = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE failed) FROM edit_verdict "
        "WHERE ? IS NULL OR variation_value = ?",
        [value, value],
    ).fetchall()[0]
    return {"audited": int(audited), "failed": int(failed)}


def _measures(con: duckdb.DuckDBPyConnection, where: str, params: list[object]) -> pl.DataFrame:
    return store.query(
        con,
        "SELECT a.image_id, a.check_kind, a.measure, a.source, a.measured_base, a.measured_variation, "
        f"a.difference, a.robust_z, a.bound, a.failed, a.reason FROM edit_audit AS a {where} "
        f"ORDER BY a.image_id, {_ORDER}",
        params,
    )


def by_image(frame: pl.DataFrame) -> dict[str, dict[str, object]]:
    """Per variation: ``failed`` (any measure failed), its ``measures`` and the ``failures`` alone."""
    found: dict[str, dict[str, object]] = {}
    for (image_id,), part in frame.group_by("image_id", maintain_order=True):
        rows = part.to_dicts()
        failures = [r for r in rows if r["failed"]]
        found[str(image_id)] = {"failed": bool(failures), "measures": rows, "failures": failures}
    return found


def of_face(con: duckdb.DuckDBPyConnection, face_id: str) -> dict[str, dict[str, object]]:
    """The audit of one face's variations, by image id (see :func:`by_image`)."""
    return by_image(_measures(con, "WHERE a.face_id = ?", [face_id]))


def of_images(con: duckdb.DuckDBPyConnection, image_ids: list[str]) -> dict[str, dict[str, object]]:
    """The audit of the given variations, by image id (see :func:`by_image`)."""
    if not image_ids:
        return {}
    return by_image(_measures(con, "WHERE list_contains(?, a.image_id)", [image_ids]))


def of_value(con: duckdb.DuckDBPyConnection, value: str) -> pl.DataFrame:
    """Per measure of one attribute: variations measured, failed, median and max |difference|."""
    return store.query(
        con,
        f"""
        SELECT check_kind, measure, any_value(source) AS source, count(*)::BIGINT AS n,
               count(*) FILTER (WHERE failed)::BIGINT AS n_failed, median(difference) AS median_difference,
               max(abs(difference)) AS max_abs_difference, any_value(bound) AS bound
        FROM edit_audit WHERE variation_value = ? GROUP BY check_kind, measure ORDER BY {_ORDER}
        """,
        [value],
    )


def failed_edits(con: duckdb.DuckDBPyConnection, value: str | None, page: int) -> pl.DataFrame:
    """Page ``page`` (from 1) of the variations that failed the audit (of one attribute, or all),
    ``PER_PAGE`` a page; :func:`summary` counts them."""
    condition, params = ("AND variation_value = ?", list[object]([value])) if value else ("", [])
    return store.query(
        con,
        f"""
        SELECT image_id, base_image_id, face_id, feature_key, variation_value, n_measures, n_failed_measures,
               failed_measures
        FROM edit_verdict WHERE failed {condition}
        ORDER BY variation_value, face_id, image_id LIMIT ? OFFSET ?
        """,
        [*params, PER_PAGE, (page - 1) * PER_PAGE],
    )


def failed_values(con: duckdb.DuckDBPyConnection) -> list[dict[str, object]]:
    """Per attribute with a failed edit: variations audited and failed (the list page's menu)."""
    return store.query(
        con,
        "SELECT variation_value, count(*)::BIGINT AS audited, "
        "count(*) FILTER (WHERE failed)::BIGINT AS failed FROM edit_verdict "
        "GROUP BY ALL HAVING count(*) FILTER (WHERE failed) > 0 ORDER BY variation_value",
    ).to_dicts()
