"""``cueshift audit`` with ``[audit.faces]`` stores what the REAL face models found beside
``edit_audit`` (``face_detection``, ``audit_skin_tone``), consistent with the audit rows, and an
audit without the section empties both.

Three images of a manifest image set: scikit-image's astronaut (base), the same photo as JPEG
quality 40 (one face, the same person) and a blank image (no face). MTCNN finds the faces, dlib's
ResNet compares them; no CLIP encoder (the CLIP measures are skipped).
"""

from __future__ import annotations

import csv
import importlib.util
from pathlib import Path

import duckdb
import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from cueshift.cli import app
from tests.inference.real_faces import astronaut, jpeg
from tests.scalars import real

pytest.importorskip("dlib", reason="dlib (the 'faces' extra) is not installed")
pytest.importorskip("torch", reason="MTCNN runs in torch (the 'faces' extra)")
pytest.importorskip("skimage.color", reason="scikit-image (the 'faces' extra)")
if importlib.util.find_spec("facenet_pytorch") is None:
    pytest.skip("facenet-pytorch's wheel holds the MTCNN weights ('faces' extra)", allow_module_level=True)

RUNNER = CliRunner()
#: An audit row's base and variation detections.
PAIRED = (
    "JOIN face_detection b ON b.image_id = a.base_image_id JOIN face_detection v ON v.image_id = a.image_id"
)
FACES = """[audit.faces]
detector = "mtcnn"
recognizer = "dlib-resnet"
"""


def _study(folder: Path, *, faces: bool) -> Path:
    images = {
        "a0": astronaut(),
        "a-jpeg": jpeg(astronaut(), 40),
        "a-blank": np.full((512, 512, 3), 200, np.uint8),
    }
    with (folder / "faces.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["image_id", "face_id", "path", "role", "base_image_id", "feature_key",
                         "variation_value", "age", "gender", "ethnicity", "body_type"])  # fmt: skip
        for image_id, rgb in images.items():
            Image.fromarray(rgb).save(folder / f"{image_id}.png")
            key, value = {"a-jpeg": ("compression", "JPEG"), "a-blank": ("erase", "blank")}.get(
                image_id, ("", "")
            )
            role, base = ("variation", "a0") if key else ("base", "")
            demographics = ["middle-aged adult", "female", "White", "normal"]
            writer.writerow([image_id, "a", f"{image_id}.png", role, base, key, value, *demographics])
    study = folder / ("faces.toml" if faces else "plain.toml")
    study.write_text(
        f'name = "face-tables"\ndatabase = "{(folder / "study.duckdb").as_posix()}"\nseeds = [1]\n'
        f'[image_set]\nkind = "manifest"\nmanifest = "{(folder / "faces.csv").as_posix()}"\n'
        "placebos = false\n"
        '[variations.whitelist]\ncompression = ["JPEG"]\nerase = ["blank"]\n'
        + (FACES if faces else "")
        + '[[models]]\nmodel_id = "sim"\n',
        encoding="utf-8",
    )
    return study


def _audit(study: Path) -> str:
    done = RUNNER.invoke(app, ["audit", "--study", str(study), "--no-progress"])
    assert done.exit_code == 0, (done.stdout, done.stderr, done.exception)
    return done.stdout


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("face-tables")
    _audit(_study(folder, faces=True))
    return folder


def _rows(folder: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(folder / "study.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_every_image_has_its_detection_row(folder: Path) -> None:
    found = _rows(
        folder, "SELECT image_id, detector, face_count, finding, x0 IS NULL FROM face_detection ORDER BY 1"
    )
    assert found == [
        ("a-blank", "mtcnn", 0, "no face", True),
        ("a-jpeg", "mtcnn", 1, "one face", False),
        ("a0", "mtcnn", 1, "one face", False),
    ]


def test_detections_agree_with_the_audit_rows(folder: Path) -> None:
    counts = _rows(
        folder,
        "SELECT a.image_id, a.measured_base, a.measured_variation, b.face_count, v.face_count "
        f"FROM edit_audit a {PAIRED} WHERE a.measure = 'face_count' ORDER BY 1",
    )
    assert [(r[0], r[1], r[2]) for r in counts] == [(r[0], real(r[3]), real(r[4])) for r in counts]
    (skin,) = _rows(
        folder,
        "SELECT a.measured_base, a.measured_variation, b.skin_ita, v.skin_ita "
        f"FROM edit_audit a {PAIRED} WHERE a.measure = 'skin_ita'",
    )
    assert skin[0] == pytest.approx(skin[2]) and skin[1] == pytest.approx(skin[3])
    (box,) = _rows(
        folder, "SELECT x0, y0, x1, y1, left_eye_x, right_eye_x FROM face_detection WHERE image_id = 'a0'"
    )
    x0, y0, x1, y1, left, right = (float(str(v)) for v in box)
    assert 0.3 < x0 < left < right < x1 < 0.6 and 0.05 < y0 < y1 < 0.4  # the astronaut's face, as fractions


def test_the_skin_tone_summary_is_stored(folder: Path) -> None:
    (skin_change,) = _rows(folder, "SELECT difference FROM edit_audit WHERE measure = 'skin_ita'")
    attribute = _rows(
        folder,
        "SELECT feature_key, variation_value, estimate, n_edits, n_faces, ci_low FROM audit_skin_tone "
        "WHERE summary = 'attribute'",
    )
    assert attribute == [("compression", "JPEG", pytest.approx(skin_change[0]), 1, 1, None)]
    assert _rows(folder, "SELECT count(*) FROM audit_skin_tone WHERE summary = 'group'") == [(2,)]


def test_an_audit_without_face_models_empties_the_tables(folder: Path) -> None:
    _audit(_study(folder, faces=False))
    assert _rows(folder, "SELECT count(*) FROM face_detection") == [(0,)]
    assert _rows(folder, "SELECT count(*) FROM audit_skin_tone") == [(0,)]
    assert _rows(folder, "SELECT count(*) FROM edit_audit WHERE measure = 'changed_pixels'") == [(2,)]
