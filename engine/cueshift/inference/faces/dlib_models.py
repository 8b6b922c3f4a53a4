"""dlib's trained face models with the weights of ``face-recognition-models`` (the ``faces`` extra).

- :class:`DlibDetector`: the HOG + linear SVM frontal face detector built into dlib
  (``get_frontal_face_detector``; score: the SVM margin) or the CNN (MMOD) detector
  ``mmod_human_face_detector.dat`` (score: its confidence); landmarks from the 68-point predictor
  (eye centres: means of points 36-41 and 42-47; nose tip 30; mouth corners 48 and 54).
- :class:`DlibRecognizer`: the ResNet face recogniser ``dlib_face_recognition_resnet_model_v1.dat``
  on the face aligned by the 5-point predictor: a 128-d descriptor; two faces are the same person
  when their Euclidean distance is below :data:`SAME_PERSON_DISTANCE` (dlib's threshold, 99.38 % on
  LFW).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from cueshift._types import F64
from cueshift.errors import MissingExtra
from cueshift.inference.faces.detection import FaceDetection, ordered_landmarks

#: dlib's same-person threshold on the Euclidean distance of two 128-d descriptors.
SAME_PERSON_DISTANCE = 0.6


def _modules(feature: str) -> tuple[Any, Any]:
    """``(dlib, face_recognition_models)``, or :class:`MissingExtra` naming the missing one."""
    try:
        import dlib
    except ModuleNotFoundError:
        raise MissingExtra(feature, "faces", "dlib") from None
    try:
        import face_recognition_models
    except ModuleNotFoundError:
        raise MissingExtra(feature, "faces", "face_recognition_models") from None
    return dlib, face_recognition_models


class DlibDetector:
    """dlib's HOG (``cnn=False``) or CNN face detector, with 68-point landmarks."""

    def __init__(self, *, cnn: bool = False, upsample: int = 1) -> None:
        dlib, models = _modules("the dlib face detector")
        self.dlib, self.cnn, self.upsample = dlib, cnn, upsample
        self.hog = None if cnn else dlib.get_frontal_face_detector()
        self.mmod = (
            dlib.cnn_face_detection_model_v1(models.cnn_face_detector_model_location()) if cnn else None
        )
        self.predictor = dlib.shape_predictor(models.pose_predictor_model_location())

    def detect(self, rgb: npt.NDArray[np.uint8]) -> list[FaceDetection]:
        """Faces of ``rgb`` (``(height, width, 3)`` uint8), highest score first."""
        image = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
        if self.mmod is not None:
            found = [(d.rect, float(d.confidence)) for d in self.mmod(image, self.upsample)]
        else:
            assert self.hog is not None
            rects, scores, _ = self.hog.run(image, self.upsample, 0.0)
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
        self.aligner = dlib.shape_predictor(models.pose_predictor_five_point_model_location())
        self.network = dlib.face_recognition_model_v1(models.face_recognition_model_location())

    def descriptor(self, rgb: npt.NDArray[np.uint8], face: FaceDetection) -> F64:
        """The 128-d descriptor of ``face`` in ``rgb`` (aligned by the 5-point predictor on its box)."""
        image = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
        x0, y0, x1, y1 = (int(round(v)) for v in face.box)
        shape = self.aligner(image, self.dlib.rectangle(x0, y0, x1 - 1, y1 - 1))
        return np.asarray(self.network.compute_face_descriptor(image, shape), dtype=np.float64)


def descriptor_distance(a: F64, b: F64) -> float:
    """The Euclidean distance of two descriptors (same person below :data:`SAME_PERSON_DISTANCE`)."""
    return float(np.linalg.norm(np.asarray(a) - np.asarray(b)))


__all__ = ["SAME_PERSON_DISTANCE", "DlibDetector", "DlibRecognizer", "descriptor_distance"]
