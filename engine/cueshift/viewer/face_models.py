"""The face models of the edit audit in the viewer (``[audit.faces]``, docs/faces.md).

``face_detection`` (what the detector found on each image) and ``audit_skin_tone`` (the ITA°
change of the edits by attribute and by the base face's ethnicity × gender) are copied into
memory at start, empty when the study file has none, beside ``edit_audit`` (:mod:`.audit`). The
overview shows the face-recognition identity beside the CLIP cosine, the detector's findings and
the skin tone by group; an attribute's page its skin tone. Nothing shows for a study without
face-model rows. The skin tone intervals are headed with the level ``audit_skin_tone`` stores with
them (``confidence_level``; rows written before it was stored read 95 %, the level they had).
"""

from __future__ import annotations

from typing import Any, Final

import duckdb

from cueshift import store
from cueshift.render import Col, ci_label, fmt_ci, fmt_effect, level_percent, stored_level, stub
from cueshift.schemas.audit_skin import ALL
from cueshift.schemas.audit_skin import SKIN_TONE_LEVEL as AUDIT_SKIN_TONE_LEVEL
from cueshift.viewer import tables

#: The columns the viewer reads, as ``sql/schema.sql`` declares them.
COLUMNS = {
    "face_detection": (
        "image_id VARCHAR, detector VARCHAR, face_count INTEGER, finding VARCHAR, score DOUBLE, "
        "x0 DOUBLE, y0 DOUBLE, x1 DOUBLE, y1 DOUBLE, skin_ita DOUBLE"
    ),
    "audit_skin_tone": (
        "summary VARCHAR, feature_key VARCHAR, variation_value VARCHAR, ethnicity VARCHAR, gender VARCHAR, "
        "estimate DOUBLE, ci_low DOUBLE, ci_high DOUBLE, n_edits BIGINT, n_faces BIGINT, "
        "confidence_level DOUBLE"
    ),
}
#: Columns a study file written before they existed lacks: copied as NULL.
_ADDED_LATER = {("audit_skin_tone", "confidence_level")}
#: The level ``cueshift audit`` computes ``audit_skin_tone``'s intervals at by default, whatever level
#: ``analyze`` used. The pages head them with the level the table stores (:func:`skin_tone_level`).
SKIN_TONE_LEVEL: Final = AUDIT_SKIN_TONE_LEVEL


def skin_tone_level(con: duckdb.DuckDBPyConnection) -> float:
    """The level ``audit_skin_tone``'s intervals were computed at, as the table stores it (its
    ``confidence_level``; NULL, rows written before it was stored: 95 %)."""
    return stored_level(con, ("audit_skin_tone",))


def _skin_columns(level: float) -> list[Col]:
    return [
        Col("estimate", "ΔITA°", lambda v: fmt_effect(v, 2)),
        Col("ci_low", ci_label(level), lambda low, high: fmt_ci(low, high, 2, True), args=("ci_high",)),
        Col("n_faces", "Faces", tables.count),
        Col("n_edits", "Edits", tables.count),
    ]


def _skin_note(level: float) -> str:
    return (
        "audit_skin_tone (`cueshift audit` with [audit.faces]): the individual typology angle of the "
        "face's skin on the variation minus on its base (positive = lighter), averaged within each base "
        f"face, then over faces, with a {level_percent(level)} face-level bootstrap interval (– with a "
        "single face), computed by `cueshift audit` at that level whatever level `analyze` used."
    )


def materialise(con: duckdb.DuckDBPyConnection, present: frozenset[str]) -> None:
    """``face_detection`` and ``audit_skin_tone`` in memory (empty where the file has none)."""
    for table, columns in COLUMNS.items():
        con.execute(f"CREATE TABLE memory.main.{table} ({columns})")
        if table in present:
            stored = {
                str(r[0])
                for r in con.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE database_name = 'study' "
                    "AND table_name = ?",
                    [table],
                ).fetchall()
            }
            names = ", ".join(
                name if name in stored or (table, name) not in _ADDED_LATER else f"NULL AS {name}"
                for name in (column.split()[0] for column in columns.split(", "))
            )
            con.execute(f"INSERT INTO memory.main.{table} SELECT {names} FROM study.main.{table}")


def summary(con: duckdb.DuckDBPyConnection) -> dict[str, Any] | None:
    """The face models over every audited variation (None: no face-model row): ``detector``,
    ``recognizer``, ``threshold``, ``variations``, ``no_face``, ``several``, ``measured`` (with a
    distance), ``changed`` (over the threshold), ``median_distance``, ``max_distance``,
    ``skin_failed``; and ``groups`` and ``attributes``, the skin tone tables (HTML, or None)."""
    row = store.query(
        con,
        """
        WITH pairs AS (
            SELECT image_id, base_image_id, source AS detector FROM edit_audit WHERE measure = 'face_count'
        ), found AS (
            SELECT p.detector, coalesce(b.finding = 'no face' OR v.finding = 'no face', false) AS no_face,
                   coalesce(b.finding = 'several faces' OR v.finding = 'several faces', false) AS several
            FROM pairs AS p
            LEFT JOIN face_detection AS b ON b.image_id = p.base_image_id AND b.detector = p.detector
            LEFT JOIN face_detection AS v ON v.image_id = p.image_id AND v.detector = p.detector
        ), distance AS (
            SELECT any_value(source) AS recognizer, max(bound) AS threshold, count(*)::BIGINT AS measured,
                   count(*) FILTER (WHERE failed)::BIGINT AS changed,
                   median(difference) AS median_distance, max(difference) AS max_distance
            FROM edit_audit WHERE measure = 'face_identity_distance'
        )
        SELECT (SELECT any_value(detector) FROM found) AS detector, d.*,
               (SELECT count(*) FROM found)::BIGINT AS variations,
               (SELECT count(*) FILTER (WHERE no_face) FROM found)::BIGINT AS no_face,
               (SELECT count(*) FILTER (WHERE several) FROM found)::BIGINT AS several,
               (SELECT count(*) FILTER (WHERE failed) FROM edit_audit WHERE measure = 'skin_ita')::BIGINT
                 AS skin_failed
        FROM distance AS d
        """,
    ).row(0, named=True)
    if not row["variations"]:
        return None
    return {**row, "groups": _skin_groups(con), "attributes": _skin_attributes(con)}


def _skin_groups(con: duckdb.DuckDBPyConnection) -> str | None:
    frame = store.query(
        con,
        f"""
        SELECT CASE summary WHEN 'group' THEN 'Each group, over every edit'
                    ELSE 'Each ethnicity minus all other faces' END AS kind,
               CASE WHEN summary = 'group' THEN ethnicity || ' / ' || gender ELSE ethnicity END AS cell,
               estimate, ci_low, ci_high, n_faces, n_edits
        FROM audit_skin_tone WHERE summary IN ('group', 'difference') AND feature_key = '{ALL}'
        ORDER BY summary DESC, ethnicity, gender
        """,
    )
    if not frame.height:
        return None
    level = skin_tone_level(con)
    return tables.render(
        frame,
        key="skin-groups",
        title="Skin tone change (ITA°) by the base face's ethnicity × gender",
        columns=[stub("cell", "Ethnicity / gender"), *_skin_columns(level)],
        group="kind",
        notes=[
            _skin_note(level),
            "An ethnicity minus all other faces whose interval excludes 0: the editor moves that group's "
            "skin tone differently (does it lighten darker faces more?).",
        ],
    )


def _skin_attributes(con: duckdb.DuckDBPyConnection) -> str | None:
    frame = store.query(
        con,
        "SELECT feature_key, variation_value, estimate, ci_low, ci_high, n_faces, n_edits "
        "FROM audit_skin_tone WHERE summary = 'attribute' ORDER BY feature_key, variation_value",
    )
    if not frame.height:
        return None
    level = skin_tone_level(con)
    return tables.render(
        frame,
        key="skin-attributes",
        title="Skin tone change (ITA°) by attribute",
        columns=[stub("variation_value", "Attribute"), *_skin_columns(level)],
        group="feature_key",
        notes=[_skin_note(level)],
    )


def of_value(con: duckdb.DuckDBPyConnection, value: str) -> str | None:
    """The skin tone change of one attribute value, over every face and by ethnicity × gender (HTML;
    None without face-model rows)."""
    frame = store.query(
        con,
        f"""
        SELECT CASE WHEN summary = 'attribute' THEN 'every face'
                    ELSE ethnicity || ' / ' || gender END AS cell,
               estimate, ci_low, ci_high, n_faces, n_edits
        FROM audit_skin_tone WHERE variation_value = ? AND summary IN ('attribute', 'group')
          AND feature_key <> '{ALL}'
        ORDER BY summary = 'group', ethnicity, gender
        """,
        [value],
    )
    if not frame.height:
        return None
    level = skin_tone_level(con)
    return tables.render(
        frame,
        key="skin-value",
        title="Skin tone change (ITA°) of this attribute's edits",
        columns=[stub("cell", "Faces"), *_skin_columns(level)],
        notes=[_skin_note(level)],
    )
