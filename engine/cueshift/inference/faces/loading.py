"""The trained face models of a study by name (``[faces] detector`` and ``recognizer``)."""

from __future__ import annotations

from cueshift.inference.faces.detection import DETECTORS, RECOGNIZERS, FaceDetector
from cueshift.inference.faces.dlib_models import DlibRecognizer


def face_detector(name: str) -> FaceDetector:
    """The trained detector ``name`` (one of :data:`DETECTORS`), loaded from the ``faces`` extra."""
    if name == "mtcnn":
        from cueshift.inference.faces.mtcnn import MTCNN

        return MTCNN()
    if name in ("dlib-hog", "dlib-cnn"):
        from cueshift.inference.faces.dlib_models import DlibDetector

        return DlibDetector(cnn=name == "dlib-cnn")
    raise ValueError(f"unknown face detector {name!r}; known: {', '.join(DETECTORS)}")


def face_recognizer(name: str) -> DlibRecognizer:
    """The trained recogniser ``name`` (one of :data:`RECOGNIZERS`)."""
    if name == "dlib-resnet":
        return DlibRecognizer()
    raise ValueError(f"unknown face recogniser {name!r}; known: {', '.join(RECOGNIZERS)}")


__all__ = ["face_detector", "face_recognizer"]
