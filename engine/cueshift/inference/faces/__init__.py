"""Faces measured by real, trained face models (the ``faces`` extra).

- :mod:`.detection`: a detected face (box, five landmarks, score) and the detectors by name;
- :mod:`.mtcnn`: MTCNN with facenet-pytorch's trained weights, in a torch network written here;
- :mod:`.dlib_models`: dlib's HOG and CNN detectors, its landmark predictors and its ResNet face
  recogniser (128-d descriptors, same person below a Euclidean distance of 0.6), with the weights of
  ``face-recognition-models``;
- :mod:`.skin_tone`: CIELAB and the individual typology angle (ITA°) of the face's skin.

Nothing here downloads weights: a missing package is :class:`~cueshift.errors.MissingExtra`.
"""

from cueshift.inference.faces.detection import (
    DETECTORS,
    RECOGNIZERS,
    FaceDetection,
    FaceDetector,
    box_iou,
)
from cueshift.inference.faces.loading import face_detector, face_recognizer

__all__ = [
    "DETECTORS",
    "RECOGNIZERS",
    "FaceDetection",
    "FaceDetector",
    "box_iou",
    "face_detector",
    "face_recognizer",
]
