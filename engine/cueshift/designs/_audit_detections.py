"""What the face detector of ``[audit.faces]`` found on each image of the edit audit: the rows of
``face_detection`` (:mod:`cueshift.schemas.face_detection`, docs/faces.md).

Every base and variation audited is one row, also where the detector found no face or several
(findings, not errors; with several, the largest is *the* face, as in :mod:`._audit_faces`).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs._audit_faces import FaceMeasure
from cueshift.designs._audit_rows import EditPairs
from cueshift.schemas.face_detection import BOX, LANDMARKS


def detection_rows(edits: EditPairs, detector: str, measured: dict[str, FaceMeasure]) -> pl.DataFrame:
    """``face_detection`` rows: every base and variation of ``edits`` once, with what was found.

    Positions are fractions of the image (the box clipped to it, landmarks not); an image without
    a face keeps its row (``finding`` 'no face', positions null).
    """
    pairs = edits.pairs
    images = dict(zip(pairs["base_image_id"], pairs["base_path"], strict=True))
    images |= dict(zip(pairs["image_id"], pairs["path"], strict=True))
    rows = [_detection_row(image_id, detector, measured[path]) for image_id, path in sorted(images.items())]
    return pl.DataFrame(rows, schema=DETECTION_SCHEMA, orient="row")


#: The dtypes of a ``face_detection`` frame, as written (:mod:`cueshift.schemas.face_detection`).
DETECTION_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "image_id": pl.String,
    "detector": pl.String,
    "face_count": pl.Int32,
    "finding": pl.String,
    "score": pl.Float64,
    **{name: pl.Float64 for name in BOX},
    **{f"{name}_{axis}": pl.Float64 for name in LANDMARKS for axis in "xy"},
    "skin_ita": pl.Float64,
}


def _detection_row(image_id: str, detector: str, measure: FaceMeasure) -> tuple[object, ...]:
    n = len(measure.faces)
    finding = "no face" if n == 0 else "one face" if n == 1 else "several faces"
    face = measure.face
    if face is None:
        return (image_id, detector, n, finding, *[None] * (1 + len(BOX) + 2 * len(LANDMARKS)), None)
    scale = np.array([measure.width, measure.height], dtype=np.float64)
    landmarks = (np.asarray(face.landmarks, dtype=np.float64) / scale).ravel().tolist()
    box = face.fractional_box(measure.width, measure.height)
    ita = measure.ita if np.isfinite(measure.ita) else None
    return (image_id, detector, n, finding, float(face.score), *box, *landmarks, ita)


__all__ = ["DETECTION_SCHEMA", "detection_rows"]
