"""``[audit.faces] min_face_share``: a tiny detection beside a portrait is not "several faces"."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

from cueshift.designs import _audit_faces
from cueshift.inference.faces import FaceDetection
from cueshift.study.audit import FacesConfig

LANDMARKS = np.array([[80.0, 90.0], [120.0, 90.0], [100.0, 110.0], [85.0, 130.0], [115.0, 130.0]])


class _Detector:
    """A 140-pixel face, a 21-pixel false hit (MTCNN's in JPEG noise) and a 70-pixel second face."""

    def detect(self, rgb: npt.NDArray[np.uint8]) -> list[FaceDetection]:
        return [
            FaceDetection((30.0, 30.0, 170.0, 170.0), LANDMARKS, 0.99),
            FaceDetection((180.0, 5.0, 201.0, 26.0), LANDMARKS, 0.77),
            FaceDetection((200.0, 100.0, 270.0, 170.0), LANDMARKS, 0.95),
        ]


@pytest.mark.parametrize(("share", "kept_sides"), [(0.0, [140, 21, 70]), (0.25, [140, 70]), (0.6, [140])])
def test_detections_below_the_share_of_the_largest_face_are_not_counted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, share: float, kept_sides: list[int]
) -> None:
    Image.new("RGB", (300, 200), (180, 140, 120)).save(tmp_path / "a.png")
    monkeypatch.setattr(_audit_faces, "face_detector", lambda name: _Detector())
    config = FacesConfig(recognizer="none", min_face_share=share)
    measured = _audit_faces.measure_faces(tmp_path, ["a.png"], config)["a.png"]
    assert [round(f.box[2] - f.box[0]) for f in measured.faces] == kept_sides
    assert measured.face is not None and measured.face.score == 0.99


def test_the_default_share_keeps_two_people_side_by_side() -> None:
    assert FacesConfig().min_face_share == 0.25
    two = [
        FaceDetection((0.0, 0.0, 100.0, 100.0), LANDMARKS, 0.9),
        FaceDetection((0.0, 0.0, 80.0, 80.0), LANDMARKS, 0.9),
    ]
    assert len(_audit_faces.counted_faces(two, FacesConfig().min_face_share)) == 2
