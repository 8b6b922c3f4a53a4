"""The edit audit's face-model rows ([audit.faces]) on real photographs with the REAL trained models."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from PIL import Image

from cueshift.designs._audit_rows import EditPairs
from cueshift.study.audit import AuditConfig, FacesConfig
from tests.inference.real_faces import astronaut, grace_hopper, jpeg

pytest.importorskip("dlib", reason="dlib (the 'faces' extra) is not installed")
if importlib.util.find_spec("facenet_pytorch") is None:
    pytest.skip("facenet-pytorch's wheel holds the MTCNN weights ('faces' extra)", allow_module_level=True)
color = pytest.importorskip("skimage.color", reason="scikit-image (the 'faces' extra)")


def _darker_skin(photo: np.ndarray, shift: float) -> np.ndarray:
    lab = color.rgb2lab(photo)
    lab[60:180, 170:280, 0] += shift  # the face (MTCNN box about (180, 61, 269, 173))
    return np.asarray(np.clip(np.round(color.lab2rgb(lab) * 255), 0, 255), dtype=np.uint8)


@pytest.fixture(scope="module")
def edits(tmp_path_factory: pytest.TempPathFactory) -> EditPairs:
    root = tmp_path_factory.mktemp("faces")
    photo = astronaut()
    images = {
        "base.png": photo,
        "jpeg.png": jpeg(photo, 40),
        "darker.png": _darker_skin(photo, -12.0),
        "other.png": np.asarray(Image.fromarray(grace_hopper()).resize((512, 512))),
        "blank.png": np.full((512, 512, 3), 200, dtype=np.uint8),
    }
    for name, rgb in images.items():
        Image.fromarray(rgb).save(root / name)
    variations = ["jpeg.png", "darker.png", "other.png", "blank.png"]
    pairs = pl.DataFrame(
        {
            "image_id": [Path(v).stem for v in variations],
            "base_image_id": ["base"] * 4,
            "face_id": ["f1"] * 4,
            "feature_key": ["compression", "lighting", "swap", "erase"],
            "variation_value": ["q40", "dark", "other", "none"],
            "path": variations,
            "base_path": ["base.png"] * 4,
            "framing": ["face"] * 4,
            "base_framing": ["face"] * 4,
        }
    )
    return EditPairs(root, pairs)


@pytest.fixture(scope="module")
def rows(edits: EditPairs) -> pl.DataFrame:
    from cueshift.designs._audit_faces import face_rows, measure_faces

    config = FacesConfig(detector="mtcnn", ita_bound=5.0)
    paths = [*edits.pairs["base_path"], *edits.pairs["path"]]
    return face_rows(edits, config, measure_faces(edits.root, paths, config))


def _failed(rows: pl.DataFrame, image: str, measure: str) -> bool:
    picked = rows.filter((pl.col("image_id") == image) & (pl.col("measure") == measure))
    assert picked.height == 1, (image, measure)
    return bool(picked["failed"][0])


def test_a_recompressed_photo_passes_every_face_check(rows: pl.DataFrame) -> None:
    for measure in ("face_count", "face_identity_distance", "skin_ita"):
        assert not _failed(rows, "jpeg", measure)


def test_a_different_person_fails_identity_and_darker_skin_fails_skin_tone(rows: pl.DataFrame) -> None:
    assert _failed(rows, "other", "face_identity_distance")
    assert not _failed(rows, "darker", "face_identity_distance")
    assert _failed(rows, "darker", "skin_ita")
    darker = rows.filter((pl.col("image_id") == "darker") & (pl.col("measure") == "skin_ita"))
    assert darker["difference"][0] < -5.0


def test_no_face_is_a_finding_not_an_error(rows: pl.DataFrame) -> None:
    blank = rows.filter(pl.col("image_id") == "blank")
    assert blank["measure"].to_list() == ["face_count"]
    assert blank["failed"][0] and "no face on the variation" in blank["reason"][0]


def test_skin_tone_as_the_cue_never_fails_on_ita(edits: EditPairs) -> None:
    from cueshift.designs._audit_faces import face_rows, measure_faces

    config = FacesConfig(detector="mtcnn", recognizer="none", ita_bound=5.0, skin_tone_cues=["lighting"])
    paths = [*edits.pairs["base_path"], *edits.pairs["path"]]
    rows = face_rows(edits, config, measure_faces(edits.root, paths, config))
    assert not _failed(rows, "darker", "skin_ita")
    assert "face_identity_distance" not in rows["measure"].to_list()


def test_the_pixel_measures_use_the_detected_face_box(edits: EditPairs) -> None:
    from cueshift.designs._audit_faces import face_boxes, measure_faces
    from cueshift.designs.audit import pixel_rows

    config = AuditConfig(faces=FacesConfig(detector="mtcnn", recognizer="none"))
    assert config.faces is not None
    boxes = face_boxes(measure_faces(edits.root, ["base.png", "jpeg.png"], config.faces))
    x0, y0, x1, y1 = boxes["base.png"]
    assert 0.3 < x0 < x1 < 0.6 and 0.05 < y0 < y1 < 0.4  # the astronaut's face, not (0.2, 0.1, 0.8, 0.75)
    one = EditPairs(edits.root, edits.pairs.head(1))
    estimated = pixel_rows(one, config, progress=False)
    detected = pixel_rows(one, config, progress=False, face_boxes=boxes)
    pick = pl.col("measure") == "face_brightness"
    assert estimated.filter(pick)["measured_base"][0] != pytest.approx(
        detected.filter(pick)["measured_base"][0], abs=1e-3
    )


def test_the_section_is_off_by_default_and_refuses_unknown_models() -> None:
    import pydantic

    assert AuditConfig().faces is None
    assert AuditConfig.model_validate({"faces": {}}).faces == FacesConfig()
    with pytest.raises(pydantic.ValidationError, match="detector"):
        AuditConfig.model_validate({"faces": {"detector": "retinaface"}})
    with pytest.raises(pydantic.ValidationError, match="extra"):
        AuditConfig.model_validate({"faces": {"treshold": 0.5}})
