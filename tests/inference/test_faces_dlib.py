"""dlib's REAL trained detector and ResNet recogniser (face-recognition-models) on real photographs."""

from __future__ import annotations

import pytest

from cueshift.inference.faces.dlib_models import SAME_PERSON_DISTANCE, descriptor_distance
from tests.inference.real_faces import RGB, astronaut, grace_hopper, jpeg, resized

pytest.importorskip("dlib", reason="dlib (the 'faces' extra: pip install 'cueshift[faces]') is not installed")


@pytest.fixture(scope="module")
def models():
    from cueshift.inference.faces.dlib_models import DlibDetector, DlibRecognizer

    return DlibDetector(), DlibRecognizer()


def _descriptor(models, rgb: RGB):
    detector, recognizer = models
    faces = detector.detect(rgb)
    assert len(faces) == 1
    return recognizer.descriptor(rgb, faces[0])


@pytest.mark.parametrize(
    "altered",
    [
        pytest.param(lambda p: resized(p, 0.6), id="resized to 60%"),
        pytest.param(lambda p: jpeg(p, 40), id="JPEG quality 40"),
        pytest.param(lambda p: p[30:330, 100:400], id="cropped to 300 x 300"),
    ],
)
def test_the_same_photo_altered_stays_the_same_person(models, altered) -> None:
    photo = astronaut()
    distance = descriptor_distance(_descriptor(models, photo), _descriptor(models, altered(photo)))
    assert distance < SAME_PERSON_DISTANCE


def test_two_different_people_are_beyond_the_threshold(models) -> None:
    distance = descriptor_distance(_descriptor(models, astronaut()), _descriptor(models, grace_hopper()))
    assert distance > SAME_PERSON_DISTANCE


def test_the_cnn_detector_finds_the_astronaut_where_hog_does() -> None:
    from cueshift.inference.faces import box_iou
    from cueshift.inference.faces.dlib_models import DlibDetector

    cnn, hog = DlibDetector(cnn=True).detect(astronaut()), DlibDetector().detect(astronaut())
    assert len(cnn) == len(hog) == 1
    assert box_iou(cnn[0].box, hog[0].box) > 0.5
