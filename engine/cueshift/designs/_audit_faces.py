"""The face-model part of the edit audit (``[audit.faces]``): real detector, recogniser and skin tone.

For every base and variation the trained detector (:mod:`cueshift.inference.faces`) finds the
faces; the largest is *the* face. Rows of ``edit_audit`` per variation:

- ``face_count`` (identity): variation's faces minus the base's; fails when either image has no
  face or several ("no face" and "several faces" are findings, not errors);
- ``face_detector_score`` (identity, never fails): the detector's score of the face on each image;
- ``face_identity_distance`` (identity): the Euclidean distance of the recogniser's descriptors of
  the two faces, failed beyond the recogniser's same-person threshold (0.6 for dlib's ResNet);
- ``skin_ita`` (unintended): the individual typology angle (ITA°) of the face's skin on base and
  variation, failed when it moves more than ``ita_bound`` unless the attribute is a skin-tone cue.

Rows needing a face on both images are left out where one has none (the ``face_count`` row says
so). :func:`face_boxes` gives the pixel measures the detected face box instead of the estimate (what
the detector found on each image is stored by :mod:`._audit_detections`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from PIL import Image

from cueshift._types import F64
from cueshift.designs._audit_rows import EditPairs, measure_rows
from cueshift.inference.faces import FaceDetection, face_detector, face_recognizer
from cueshift.inference.faces.dlib_models import SAME_PERSON_DISTANCE, descriptor_distance
from cueshift.inference.faces.skin_tone import skin_lab
from cueshift.study.audit import FacesConfig


@dataclass(frozen=True)
class FaceMeasure:
    """What the face models measured on one image: every face, and of the largest its ITA° and descriptor."""

    faces: list[FaceDetection]
    width: int
    height: int
    ita: float
    descriptor: F64 | None

    @property
    def face(self) -> FaceDetection | None:
        """The largest face, or None."""
        return max(self.faces, key=lambda f: f.area) if self.faces else None


def counted_faces(faces: list[FaceDetection], min_share: float) -> list[FaceDetection]:
    """The detections whose box side (square root of its area) is at least ``min_share`` of the
    largest one's: a 20-pixel false hit beside a 200-pixel face is no second face.

    >>> big = FaceDetection((0.0, 0.0, 200.0, 200.0), np.zeros((5, 2)), 0.99)
    >>> tiny = FaceDetection((300.0, 0.0, 320.0, 20.0), np.zeros((5, 2)), 0.77)
    >>> len(counted_faces([tiny, big], 0.25)), len(counted_faces([tiny, big], 0.0))
    (1, 2)
    """
    if not faces:
        return []
    largest = max(f.area for f in faces)
    return [f for f in faces if f.area >= (min_share**2) * largest]


def measure_faces(root: Path, paths: list[str], config: FacesConfig) -> dict[str, FaceMeasure]:
    """:class:`FaceMeasure` of every image ``root / path`` (each path once)."""
    detector = face_detector(config.detector)
    recognizer = face_recognizer(config.recognizer) if config.recognizer != "none" else None
    measured: dict[str, FaceMeasure] = {}
    for path in dict.fromkeys(paths):
        with Image.open(root / path) as image:
            rgb = np.asarray(image.convert("RGB"), dtype=np.uint8)
        faces = counted_faces(detector.detect(rgb), config.min_face_share)
        face = max(faces, key=lambda f: f.area) if faces else None
        ita = skin_lab(rgb, face.landmarks)[2] if face is not None else float("nan")
        descriptor = recognizer.descriptor(rgb, face) if face is not None and recognizer is not None else None
        measured[path] = FaceMeasure(faces, rgb.shape[1], rgb.shape[0], ita, descriptor)
    return measured


def face_boxes(measured: dict[str, FaceMeasure]) -> dict[str, tuple[float, float, float, float]]:
    """The detected (largest) face of each image as a fractional box, where one was found."""
    return {
        path: m.face.fractional_box(m.width, m.height) for path, m in measured.items() if m.face is not None
    }


def face_rows(edits: EditPairs, config: FacesConfig, measured: dict[str, FaceMeasure]) -> pl.DataFrame:
    """The ``edit_audit`` rows of the face models (module docstring)."""
    pairs = edits.pairs
    base = [measured[p] for p in pairs["base_path"]]
    variation = [measured[p] for p in pairs["path"]]
    frames = [_count_rows(pairs, config.detector, base, variation)]
    both = np.array([b.face is not None and v.face is not None for b, v in zip(base, variation, strict=True)])
    if not both.any():
        return frames[0]
    kept = pairs.filter(pl.Series(both))
    kb = [m for m, k in zip(base, both, strict=True) if k]
    kv = [m for m, k in zip(variation, both, strict=True) if k]
    score_b = np.array([m.face.score for m in kb if m.face is not None])
    score_v = np.array([m.face.score for m in kv if m.face is not None])
    none = [None] * kept.height
    frames.append(
        measure_rows(
            kept,
            "face_detector_score",
            "identity",
            config.detector,
            score_b,
            score_v,
            score_v - score_b,
            none,
        )
    )
    if config.recognizer != "none":
        distance = np.array([_distance(b, v) for b, v in zip(kb, kv, strict=True)])
        threshold = SAME_PERSON_DISTANCE
        rows = measure_rows(
            kept,
            "face_identity_distance",
            "identity",
            config.recognizer,
            None,
            None,
            distance,
            [threshold] * kept.height,
        )
        far = pl.col("difference") > threshold
        reason = pl.format(
            "face-recognition distance {} to the base exceeds the same-person threshold {}",
            pl.col("difference").round(3),
            threshold,
        )
        frames.append(_judged(rows, far, reason))
    ita_b, ita_v = np.array([m.ita for m in kb]), np.array([m.ita for m in kv])
    finite = np.isfinite(ita_b) & np.isfinite(ita_v)
    if finite.any():
        skin = kept.filter(pl.Series(finite))
        bounds = [None if key in config.skin_tone_cues else config.ita_bound for key in skin["feature_key"]]
        rows = measure_rows(
            skin,
            "skin_ita",
            "unintended",
            config.detector,
            ita_b[finite],
            ita_v[finite],
            (ita_v - ita_b)[finite],
            bounds,
        )
        moved = pl.col("bound").is_not_null() & (pl.col("difference").abs() > pl.col("bound"))
        reason = pl.format(
            "skin tone moved by {} ITA° (bound {})", pl.col("difference").round(1), pl.col("bound")
        )
        frames.append(_judged(rows, moved, reason))
    return pl.concat(frames)


def _judged(rows: pl.DataFrame, failed: pl.Expr, reason: pl.Expr) -> pl.DataFrame:
    """``rows`` with ``failed`` and, where it failed, ``reason``."""
    return rows.with_columns(failed=failed, reason=pl.when(failed).then(reason).otherwise(None))


def _count_rows(
    pairs: pl.DataFrame, source: str, base: list[FaceMeasure], variation: list[FaceMeasure]
) -> pl.DataFrame:
    n_base = np.array([len(m.faces) for m in base], dtype=np.float64)
    n_variation = np.array([len(m.faces) for m in variation], dtype=np.float64)
    reasons = [_finding(int(b), int(v)) for b, v in zip(n_base, n_variation, strict=True)]
    rows = measure_rows(
        pairs,
        "face_count",
        "identity",
        source,
        n_base,
        n_variation,
        n_variation - n_base,
        [None] * pairs.height,
    )
    return rows.with_columns(
        failed=pl.Series([r is not None for r in reasons], dtype=pl.Boolean),
        reason=pl.Series(reasons, dtype=pl.String),
    )


def _distance(base: FaceMeasure, variation: FaceMeasure) -> float:
    if base.descriptor is None or variation.descriptor is None:
        raise ValueError("a face without a descriptor")  # measure_faces gives every face one
    return descriptor_distance(base.descriptor, variation.descriptor)


def _finding(n_base: int, n_variation: int) -> str | None:
    """The face-count finding of a pair (None: one face on each)."""
    parts = [
        f"{'no face' if n == 0 else f'several faces ({n})'} on the {which}"
        for which, n in (("base", n_base), ("variation", n_variation))
        if n != 1
    ]
    return "; ".join(parts) or None


__all__ = ["FaceMeasure", "face_boxes", "face_rows", "measure_faces"]
