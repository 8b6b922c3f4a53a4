"""MTCNN with facenet-pytorch's REAL trained weights on real photographs (the 'faces' extra)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from cueshift.inference.faces import box_iou
from tests.inference.real_faces import astronaut, grace_hopper, resized

pytest.importorskip("torch", reason="MTCNN runs in torch (the 'faces' extra)")
if importlib.util.find_spec("facenet_pytorch") is None:  # not imported: it needs torchvision
    pytest.skip("facenet-pytorch's wheel holds the MTCNN weights ('faces' extra)", allow_module_level=True)


@pytest.fixture(scope="module")
def mtcnn():
    from cueshift.inference.faces.mtcnn import MTCNN

    return MTCNN()


def test_one_face_on_the_astronaut_with_landmarks_where_a_face_has_them(mtcnn) -> None:
    faces = mtcnn.detect(astronaut())
    assert len(faces) == 1
    face = faces[0]
    assert face.score > 0.99
    x0, y0, x1, y1 = face.box
    # the astronaut's face lies in the upper left quarter's right half (hand-read from the photo)
    assert 150 < x0 < x1 < 300 and 30 < y0 < y1 < 200
    left_eye, right_eye, nose, mouth_left, mouth_right = face.landmarks
    assert x0 < left_eye[0] < nose[0] < right_eye[0] < x1
    assert max(left_eye[1], right_eye[1]) < nose[1] < min(mouth_left[1], mouth_right[1]) < y1
    assert mouth_left[0] < mouth_right[0]


def test_the_same_face_is_found_at_half_the_size(mtcnn) -> None:
    full = mtcnn.detect(astronaut())[0].box
    half = mtcnn.detect(resized(astronaut(), 0.5))
    assert len(half) == 1
    assert box_iou(full, tuple(2 * v for v in half[0].box)) > 0.7


def test_no_face_on_a_blank_image_and_two_faces_side_by_side(mtcnn) -> None:
    assert mtcnn.detect(np.full((200, 200, 3), 128, dtype=np.uint8)) == []
    face = astronaut()[20:240, 140:310]
    pair = np.concatenate([face, face[:, ::-1]], axis=1)
    assert len(mtcnn.detect(pair)) == 2


def test_grace_hopper_has_one_face(mtcnn) -> None:
    assert len(mtcnn.detect(grace_hopper())) == 1


def test_mtcnn_box_overlaps_dlibs(mtcnn) -> None:
    pytest.importorskip("dlib", reason="dlib (the 'faces' extra) is not installed")
    from cueshift.inference.faces.dlib_models import DlibDetector

    hog = DlibDetector().detect(astronaut())
    assert len(hog) == 1
    assert box_iou(mtcnn.detect(astronaut())[0].box, hog[0].box) > 0.5
