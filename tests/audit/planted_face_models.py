"""Face-model rows of the edit audit planted into any study database (for the report and viewer
tests): ``edit_audit`` rows of ``[audit.faces]`` beside CLIP's ``identity_cosine``, the
``face_detection`` rows of every base and variation and the ``audit_skin_tone`` summary of the
planted ITA° changes, written by the audit's own store call.

:class:`Planted` keeps what was planted, in Python, so a test can compute what a page or a table
should show without the SQL it tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cueshift import store
from cueshift.designs._audit_detections import DETECTION_SCHEMA
from cueshift.designs._audit_rows import AUDIT_SCHEMA
from cueshift.designs._audit_skin import skin_tone_summary
from cueshift.schemas.audit_skin import SKIN_TONE_LEVEL
from cueshift.store.edit_audit import replace_edit_audit
from cueshift.views import PLACEBO_FEATURE_KEY

THRESHOLD = 0.6  # dlib's same-person distance
ITA_BOUND = 8.0
DETECTOR, RECOGNIZER, CLIP = "mtcnn", "dlib-resnet", "tiny-clip@default:float32"
LANDMARKS = (0.40, 0.35, 0.60, 0.35, 0.50, 0.48, 0.42, 0.60, 0.58, 0.60)


@dataclass(frozen=True)
class Planted:
    """One row per audited variation: ``image_id, base_image_id, face_id, feature_key,
    variation_value, base_faces, variation_faces, distance, ita_change, cosine, cosine_failed``
    (distance and ita_change null where either image has not exactly one face)."""

    variations: pl.DataFrame
    skin_tone: pl.DataFrame


def _faces(i: int, is_base: bool) -> int:
    """How many faces the detector 'found': one base without a face, one variation with two, one without."""
    if is_base:
        return 0 if i == 0 else 1
    return {1: 2, 2: 0}.get(i, 1)


def plant(db: Path, *, per_value: int = 6, confidence_level: float = SKIN_TONE_LEVEL) -> Planted:
    """Plant the face-model audit of ``per_value`` variations of each of the first two attribute
    values (by name) into ``db``, the skin tone intervals at ``confidence_level``."""
    con = store.open_study(db)
    try:
        audited = f"role = 'variation' AND evaluated AND lower(feature_key) <> '{PLACEBO_FEATURE_KEY}'"
        values = con.sql(
            f"SELECT variation_value FROM image WHERE {audited} GROUP BY ALL "
            f"HAVING count(*) >= {per_value} ORDER BY variation_value LIMIT 2"
        ).fetchall()
        picked = con.sql(
            "SELECT image_id, base_image_id, face_id, feature_key, variation_value FROM ("
            "SELECT *, row_number() OVER (PARTITION BY variation_value ORDER BY image_id) AS k FROM image "
            f"WHERE {audited} AND list_contains(?, variation_value)) WHERE k <= ? ORDER BY image_id",
            params=[[v[0] for v in values], per_value],
        ).pl()
        faces = con.sql("SELECT face_id, ethnicity, gender FROM face").pl()
        variations, rows, found = _plant_rows(picked)
        audit = pl.DataFrame(rows, schema=AUDIT_SCHEMA, orient="row")
        detections = pl.DataFrame(
            [_detection(image_id, n, ita) for image_id, (n, ita) in sorted(found.items())],
            schema=DETECTION_SCHEMA,
            orient="row",
        )
        skin = skin_tone_summary(audit, faces, n_resamples=200, confidence_level=confidence_level)
        replace_edit_audit(con, audit, detections=detections, skin_tone=skin)
    finally:
        con.close()
    return Planted(variations, skin)


def _plant_rows(
    picked: pl.DataFrame,
) -> tuple[pl.DataFrame, list[tuple[object, ...]], dict[str, tuple[int, float]]]:
    rows: list[tuple[object, ...]] = []
    found: dict[str, tuple[int, float]] = {}  # image id -> (faces found, ITA° of the face)
    kept = []
    for i, v in enumerate(picked.iter_rows(named=True)):
        keys = (v["image_id"], v["base_image_id"], v["face_id"], v["feature_key"], v["variation_value"])

        def row(kind: str, measure: str, source: str, *values: object, keys: tuple[str, ...] = keys) -> None:
            rows.append((*keys, kind, measure, source, *values))

        n_base, b_ita = found.setdefault(v["base_image_id"], (_faces(i, True), 20.0 + len(v["face_id"]) % 7))
        n_var = _faces(i, False)
        change = 10.0 if i % 4 == 0 else 1.5 - 0.5 * (i % 3)
        found[v["image_id"]] = (n_var, b_ita + change)
        both = n_base == 1 and n_var == 1
        row("identity", "face_count", DETECTOR, n_base, n_var, n_var - n_base, None, None, not both, None)
        cosine, cosine_failed = 0.95 - 0.01 * i, i == 5
        row("identity", "identity_cosine", CLIP, None, None, cosine, -4.0 if cosine_failed else 0.1, None,
            cosine_failed, None)  # fmt: skip
        distance = ita_change = None
        if both:
            distance, ita_change = 0.15 + 0.1 * (i % 6), change
            row("identity", "face_detector_score", DETECTOR, 0.99, 0.98, -0.01, None, None, False, None)
            row("identity", "face_identity_distance", RECOGNIZER, None, None, distance, None, THRESHOLD,
                distance > THRESHOLD, None)  # fmt: skip
            row("unintended", "skin_ita", DETECTOR, b_ita, b_ita + change, change, None, ITA_BOUND,
                abs(change) > ITA_BOUND, None)  # fmt: skip
        kept.append(
            {
                **v,
                "base_faces": n_base,
                "variation_faces": n_var,
                "distance": distance,
                "ita_change": ita_change,
                "cosine": cosine,
                "cosine_failed": cosine_failed,
            }
        )
    reasons = [(*r[:-1], "planted failure" if r[-2] else None) for r in rows]
    return pl.DataFrame(kept), reasons, found


def _detection(image_id: str, n: int, ita: float) -> tuple[object, ...]:
    finding = {0: "no face", 1: "one face"}.get(n, "several faces")
    if n == 0:
        return (image_id, DETECTOR, n, finding, *[None] * 16)
    return (image_id, DETECTOR, n, finding, 0.99, 0.30, 0.20, 0.70, 0.75, *LANDMARKS, ita)
