"""A detected face and the detectors' names (:data:`DETECTORS`).

Every detector returns :class:`FaceDetection` rows: the box ``(x0, y0, x1, y1)`` in pixels, five
landmarks in a common order — the eye on the image's left, the eye on its right, the nose tip,
the mouth corner on the image's left, on its right — and the detector's score (MTCNN's face
probability; dlib's HOG and CNN detectors' SVM / MMOD confidence, not a probability).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from cueshift._types import F64

#: The detectors a study may select (``[faces] detector``).
DETECTORS: tuple[str, ...] = ("dlib-hog", "dlib-cnn", "mtcnn")
#: The recognisers a study may select (``[faces] recognizer``).
RECOGNIZERS: tuple[str, ...] = ("dlib-resnet",)


@dataclass(frozen=True)
class FaceDetection:
    """One face: ``box`` (x0, y0, x1, y1) in pixels, ``landmarks`` (5, 2) as (x, y), ``score``."""

    box: tuple[float, float, float, float]
    landmarks: F64
    score: float

    @property
    def area(self) -> float:
        """The box's area in square pixels."""
        return max(0.0, self.box[2] - self.box[0]) * max(0.0, self.box[3] - self.box[1])

    def fractional_box(self, width: int, height: int) -> tuple[float, float, float, float]:
        """The box as fractions of the image, clipped to it (the pixel measures' ``face_box``).

        >>> FaceDetection((10.0, 20.0, 60.0, 90.0), np.zeros((5, 2)), 1.0).fractional_box(100, 100)
        (0.1, 0.2, 0.6, 0.9)
        """
        x0, y0, x1, y1 = self.box
        fx0, fy0 = min(max(x0 / width, 0.0), 1.0), min(max(y0 / height, 0.0), 1.0)
        fx1, fy1 = min(max(x1 / width, 0.0), 1.0), min(max(y1 / height, 0.0), 1.0)
        if fx1 <= fx0 or fy1 <= fy0:
            return (0.0, 0.0, 1.0, 1.0)
        return (fx0, fy0, fx1, fy1)


class FaceDetector(Protocol):
    """Finds every face of an RGB image (``(height, width, 3)`` uint8)."""

    def detect(self, rgb: npt.NDArray[np.uint8]) -> list[FaceDetection]: ...


def box_iou(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """Intersection over union of two ``(x0, y0, x1, y1)`` boxes.

    >>> box_iou((0, 0, 2, 2), (1, 0, 3, 2))
    0.3333333333333333
    """
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def ordered_landmarks(eyes: F64, nose: F64, mouth: F64) -> F64:
    """The five landmarks in the common order from two eye centres, a nose tip and two mouth corners."""
    eyes, mouth = eyes[np.argsort(eyes[:, 0])], mouth[np.argsort(mouth[:, 0])]
    return np.asarray(np.vstack([eyes, nose.reshape(1, 2), mouth]), dtype=np.float64)


__all__ = [
    "DETECTORS",
    "RECOGNIZERS",
    "FaceDetection",
    "FaceDetector",
    "box_iou",
    "ordered_landmarks",
]
