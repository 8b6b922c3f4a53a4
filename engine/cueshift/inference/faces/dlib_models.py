"""dlib's trained face models with the weights of ``face-recognition-models`` (the ``faces`` extra).

- :class:`DlibDetector`: the HOG + linear SVM frontal face detector built into dlib
  (``get_frontal_face_detector``; score: the SVM margin) or the CNN (MMOD) detector
  ``mmod_human_face_detector.dat`` (score: its confidence); landmarks from the 68-point predictor
  (eye centres: means of points 36-41 and 42-47; nose tip 30; mouth corners 48 and 54). The image
  is upsampled once (dlib finds faces from about 80 pixels); HOG detections scoring under
  :data:`MIN_HOG_SCORE` are dropped (upsampled, the astronaut photo gets a spurious second "face"
  of score 0.12 beside her own at 1.16; real faces of the tests score 1.1-1.4).
- :class:`DlibRecognizer`: the ResNet face recogniser ``dlib_face_recognition_resnet_model_v1.dat``
  on the face aligned by the 5-point predictor: a 128-d descriptor; two faces are the same person
  when their Euclidean distance is below :data:`SAME_PERSON_DISTANCE` (dlib's threshold, 99.38 % on
  LFW).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from cueshift._types import F64
from cueshift.errors import MissingExtra
from cueshift.inference.faces.detection import FaceDetection, ordered_landmarks

#: dlib's same-person threshold on the Euclidean distance of two 128-d descriptors.
SAME_PERSON_DISTANCE = 0.6
#: The smallest HOG detector score (SVM margin) kept as a face.
MIN_HOG_SCORE = 0.5


def _modules(feature: str) -> tuple[Any, Path]:
    """``(dlib, the weights folder of face_recognition_models)``, or :class:`MissingExtra`.

    The weights are found by path: importing ``face_recognition_models`` needs ``pkg_resources``,
    which recent setuptools no longer ship.
    """
    try:
        import dlib
    except ModuleNotFoundError:
        raise MissingExtra(feature, "faces", "dlib") from None
    spec = importlib.util.find_spec("face_recognition_models")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    if not folders or not (Path(folders[0]) / "models").is_dir():
        raise MissingExtra(feature, "faces", "face_recognition_models")
    return dlib, Path(folders[0]) / "models"


class DlibDetector:
    """dlib's HOG (``cnn=False``) or CNN face detector, with 68-point landmarks."""

    def __init__(self, *, cnn: bool = False, upsample: int = 1, min_score: float = MIN_HOG_SCORE) -> None:
        dlib, models = _modules("the dlib face detector")
        self.dlib, self.cnn, self.upsample, self.min_score = dlib, cnn, upsample, min_score
        self.hog = None if cnn else dlib.get_frontal_face_detector()
        self.mmod = (
            dlib.cnn_face_detection_model_v1(str(models / "mmod_human_face_detector.dat")) if cnn else None
        )
        self.predictor = dlib.shape_predictor(str(models / "shape_predictor_68_face_landmarks.dat"))

    def detect(self, rgb: npt.NDArray[np.uint8]) -> list[FaceDetection]:
        """Faces of ``rgb`` (``(height, width, 3)`` uint8), highest score first."""
        image = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
        if self.mmod is not None:
            found = [(d.rect, float(d.confidence)) for d in self.mmod(image, self.upsample)]
        else:
            assert self.hog is not None
            rects, scores, _ = self.hog.run(image, self.upsample, self.min_score)
            found = list(zip(rects, (float(s) for s in scores), strict=True))
        faces = []
        for rect, score in sorted(found, key=lambda item: -item[1]):
            shape = self.predictor(image, rect)
            points = np.array([(p.x, p.y) for p in shape.parts()], dtype=np.float64)
            landmarks = ordered_landmarks(
                np.stack([points[36:42].mean(axis=0), points[42:48].mean(axis=0)]),
                points[30],
                points[[48, 54]],
            )
            box = (float(rect.left()), float(rect.top()), float(rect.right() + 1), float(rect.bottom() + 1))
            faces.append(FaceDetection(box=box, landmarks=landmarks, score=score))
        return faces


class DlibRecognizer:
    """dlib's ResNet face recogniser: :meth:`descriptor` of a detected face (128 floats)."""

    threshold = SAME_PERSON_DISTANCE
    name = "dlib-resnet"

    def __init__(self) -> None:
        dlib, models = _modules("the dlib face recogniser")
        self.dlib = dlib
        self.aligner = dlib.shape_predictor(str(models / "shape_predictor_5_face_landmarks.dat"))
        self.network = dlib.face_recognition_model_v1(
            str(models / "dlib_face_recognition_resnet_model_v1.dat")
        )

    def descriptor(self, rgb: npt.NDArray[np.uint8], face: FaceDetection) -> F64:
        """The 128-d descriptor of ``face`` in ``rgb`` (aligned by the 5-point predictor on its box)."""
        image = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
        x0, y0, x1, y1 = (int(round(v)) for v in face.box)
        shape = self.aligner(image, self.dlib.rectangle(x0, y0, x1 - 1, y1 - 1))
        return np.asarray(self.network.compute_face_descriptor(image, shape), dtype=np.float64)


def descriptor_distance(a: F64, b: F64) -> float:
    """The Euclidean distance of two descriptors (same person below :data:`SAME_PERSON_DISTANCE`)."""
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b)))


__all__ = ["MIN_HOG_SCORE", "SAME_PERSON_DISTANCE", "DlibDetector", "DlibRecognizer", "descriptor_distance"]
