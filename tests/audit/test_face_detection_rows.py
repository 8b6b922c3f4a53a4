"""``face_detection`` rows of the edit audit from the REAL trained MTCNN on real photographs: one
face, several faces (the largest kept) and no face are rows, positions are fractions of the image.

Expectations come from the detector called directly on the same pixels and from where the test
placed the faces, not from the rows' own code.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from PIL import Image

from cueshift.designs._audit_rows import EditPairs
from cueshift.schemas.face_detection import FaceDetectionSchema
from cueshift.study.audit import FacesConfig
from tests.inference.real_faces import astronaut, jpeg, resized

pytest.importorskip("torch", reason="MTCNN runs in torch (the 'faces' extra)")
if importlib.util.find_spec("facenet_pytorch") is None:
    pytest.skip("facenet-pytorch's wheel holds the MTCNN weights ('faces' extra)", allow_module_level=True)
pytest.importorskip("skimage.color", reason="scikit-image (the 'faces' extra)")

#: The astronaut's head (rows, columns), as test_faces_mtcnn.py crops it.
HEAD = (slice(20, 240), slice(140, 310))


def _two_faces() -> np.ndarray:
    """The head at full size on the left and at half size on the right, on grey (220 x 300)."""
    head = astronaut()[HEAD]
    small = resized(np.ascontiguousarray(head[:, ::-1]), 0.5)
    canvas = np.full((head.shape[0], head.shape[1] + 130, 3), 128, dtype=np.uint8)
    canvas[:, : head.shape[1]] = head
    canvas[40 : 40 + small.shape[0], head.shape[1] + 20 : head.shape[1] + 20 + small.shape[1]] = small
    return canvas


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, np.ndarray]]:
    root = tmp_path_factory.mktemp("detections")
    found = {
        "base": astronaut(),
        "jpeg": jpeg(astronaut(), 40),
        "pair": _two_faces(),
        "blank": np.full((300, 400, 3), 200, dtype=np.uint8),
    }
    for name, rgb in found.items():
        Image.fromarray(rgb).save(root / f"{name}.png")
    return root, found


@pytest.fixture(scope="module")
def rows(images: tuple[Path, dict[str, np.ndarray]]) -> pl.DataFrame:
    from cueshift.designs._audit_detections import detection_rows
    from cueshift.designs._audit_faces import measure_faces

    root, _ = images
    variations = ["jpeg", "pair", "blank"]
    pairs = pl.DataFrame(
        {
            "image_id": variations,
            "base_image_id": ["base"] * 3,
            "path": [f"{v}.png" for v in variations],
            "base_path": ["base.png"] * 3,
        }
    )
    config = FacesConfig(detector="mtcnn", recognizer="none")
    measured = measure_faces(root, [*pairs["base_path"], *pairs["path"]], config)
    frame = detection_rows(EditPairs(root, pairs), "mtcnn", measured)
    FaceDetectionSchema.validate(frame)
    return frame


def _row(rows: pl.DataFrame, image_id: str) -> dict[str, Any]:
    picked = rows.filter(pl.col("image_id") == image_id)
    assert picked.height == 1, image_id
    return picked.row(0, named=True)


def test_every_base_and_variation_is_one_row(rows: pl.DataFrame) -> None:
    assert sorted(rows["image_id"]) == ["base", "blank", "jpeg", "pair"]
    assert set(rows["detector"]) == {"mtcnn"}


def test_one_face_is_stored_as_fractions_of_the_image(
    rows: pl.DataFrame, images: tuple[Path, dict[str, np.ndarray]]
) -> None:
    from cueshift.inference.faces.mtcnn import MTCNN
    from cueshift.inference.faces.skin_tone import skin_lab

    photo = images[1]["base"]
    faces = MTCNN().detect(photo)
    assert len(faces) == 1
    face, (height, width) = faces[0], photo.shape[:2]
    row = _row(rows, "base")
    assert (row["face_count"], row["finding"]) == (1, "one face")
    assert row["score"] == pytest.approx(face.score)
    expected_box = [face.box[0] / width, face.box[1] / height, face.box[2] / width, face.box[3] / height]
    assert [row[c] for c in ("x0", "y0", "x1", "y1")] == pytest.approx(expected_box)
    names = ("left_eye", "right_eye", "nose", "mouth_left", "mouth_right")
    for name, (x, y) in zip(names, face.landmarks, strict=True):
        assert (row[f"{name}_x"], row[f"{name}_y"]) == pytest.approx((x / width, y / height))
    assert row["skin_ita"] == pytest.approx(skin_lab(photo, face.landmarks)[2])
    assert _row(rows, "jpeg")["finding"] == "one face"


def test_several_faces_keep_the_largest(rows: pl.DataFrame) -> None:
    row = _row(rows, "pair")
    assert (row["face_count"], row["finding"]) == (2, "several faces")
    head_width = HEAD[1].stop - HEAD[1].start
    canvas_width = head_width + 130
    assert row["x1"] <= (head_width + 5) / canvas_width  # the full-size head on the left
    assert row["left_eye_x"] < row["right_eye_x"]


def test_no_face_is_a_row_without_positions(rows: pl.DataFrame) -> None:
    row = _row(rows, "blank")
    assert (row["face_count"], row["finding"]) == (0, "no face")
    positions = {k: v for k, v in row.items() if k not in ("image_id", "detector", "face_count", "finding")}
    assert set(positions.values()) == {None}
