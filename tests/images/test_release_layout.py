"""The StylisticBias release layout exactly as the release code writes it (synthetic fixtures)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cueshift.errors import ImageSetError
from cueshift.images import load_image_set
from cueshift.images.base import ImageSet
from cueshift.study.config import ImageSetConfig
from cueshift.study.variations import VariationFilter
from tests.images.release_layout import FACES, GENERATING_MACHINE, variant_stem, write_release_images

FACE0, FACE1 = FACES[0].stem, FACES[1].stem


def load(root: Path) -> ImageSet:
    return load_image_set(ImageSetConfig(kind="stylisticbias", root=root), VariationFilter(), progress=False)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return write_release_images(tmp_path / "StylisticBias")


def _meta(checkout: Path, stem: str, face: str = FACE0) -> Path:
    return checkout / "output" / "final_dataset" / face / f"{stem}_metadata.json"


def _rewrite(path: Path, **changes: Any) -> None:
    data = json.loads(path.read_text())
    for dotted, value in changes.items():
        target = data
        *parents, last = dotted.split("__")
        for key in parents:
            target = target[key]
        target[last] = value
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("where", ["checkout", "output", "final_dataset"])
def test_release_rows(checkout: Path, where: str) -> None:
    root = {
        "checkout": checkout,
        "output": checkout / "output",
        "final_dataset": checkout / "output/final_dataset",
    }
    image_set = load(root[where])
    assert image_set.root == (checkout / "output" / "final_dataset").absolute()
    identity = {r["face_id"]: r for r in image_set.face.iter_rows(named=True)}
    assert set(identity) == {FACE0, FACE1}
    assert identity[FACE1]["body_type"] == "obese"  # body_index 2: thin, normal, obese
    assert (identity[FACE0]["age"], identity[FACE0]["body_type"]) == ("young adult", "thin")
    rows = {r["image_id"]: r for r in image_set.image.iter_rows(named=True)}
    assert len(rows) == 2 + 3 + 2
    sun = rows[variant_stem(FACES[0], 0, "face")]
    assert (sun["role"], sun["base_image_id"], sun["feature_key"], sun["variation_value"]) == (
        "variation", FACE0, "eyewear", "Sunglasses",
    )  # fmt: skip
    # image_path names the generating machine's file: the sibling .png is used
    assert sun["path"] == f"{FACE0}/{variant_stem(FACES[0], 0, 'face')}.png"
    tattoo = rows[variant_stem(FACES[0], 1, "face")]  # base given by name, image_path relative
    assert tattoo["path"] == f"{FACE0}/{variant_stem(FACES[0], 1, 'face')}.png" and tattoo["evaluated"]
    casual = rows[variant_stem(FACES[0], 2, "body")]
    assert (casual["framing"], casual["variation_value"], casual["height"]) == ("body", "Casual", 24)
    assert rows[FACE1]["path"] == f"{FACE1}/{FACE1}.png" and image_set.croissant is None


def test_image_path_inside_the_face_folder_wins_over_the_sibling(checkout: Path) -> None:
    stem = variant_stem(FACES[0], 0, "face")
    folder = checkout / "output" / "final_dataset" / FACE0
    (folder / "renamed.png").write_bytes((folder / f"{stem}.png").read_bytes())
    (folder / f"{stem}.png").unlink()
    _rewrite(_meta(checkout, stem), image_path=f"{GENERATING_MACHINE}/{FACE0}/renamed.png")
    rows = {r["image_id"]: r for r in load(checkout).image.iter_rows(named=True)}
    assert rows[stem]["path"] == f"{FACE0}/renamed.png"


def test_croissant_metadata_is_read(tmp_path: Path) -> None:
    checkout = write_release_images(tmp_path / "rel", croissant=True)
    croissant = load(checkout).croissant
    assert croissant is not None
    assert (croissant.name, croissant.version, croissant.file_sets) == ("StylisticBias", "1.0.0", ("images",))
    assert "creativecommons.org/licenses/by/4.0" in croissant.license
    data = json.loads((checkout / "croissant.json").read_text())
    data["distribution"][0]["@type"] = "cr:Nonsense"
    (checkout / "croissant.json").write_text(json.dumps(data))
    with pytest.raises(ImageSetError) as exc:
        load(checkout)
    assert str(exc.value).startswith(f"{checkout / 'croissant.json'}: not valid Croissant metadata")
    assert "\n" not in str(exc.value)
    (checkout / "croissant.json").write_text("{not json")
    with pytest.raises(ImageSetError, match="unreadable Croissant metadata"):
        load(checkout)


STEM0 = variant_stem(FACES[0], 0, "face")
STEM1 = variant_stem(FACES[0], 1, "face")


def _unresolved_image(checkout: Path) -> tuple[Path, tuple[str, ...]]:
    (checkout / "output" / "final_dataset" / FACE0 / f"{STEM0}.png").unlink()
    return _meta(checkout, STEM0), ("field 'image_path'", "does not resolve", "no image file next to it")


def _base_named_wrongly(checkout: Path) -> tuple[Path, tuple[str, ...]]:
    _rewrite(_meta(checkout, STEM1), characteristics__base="face_9_20250101_000000_deadbeef.png")
    return _meta(checkout, STEM1), ("field 'characteristics.base'", "does not name the base")


def _base_disagrees(checkout: Path) -> tuple[Path, tuple[str, ...]]:
    base = dict(FACES[0].demographics, gender="female")
    _rewrite(_meta(checkout, STEM0), characteristics__base=base)
    return _meta(checkout, STEM0), ("field 'gender'", "'female'", "'male'")


def _body_index_out_of_range(checkout: Path) -> tuple[Path, tuple[str, ...]]:
    _rewrite(_meta(checkout, FACE1, FACE1), characteristics__body_index=3)
    return _meta(checkout, FACE1, FACE1), ("field 'characteristics.body_index'", "not an index")


def _body_index_disagrees(checkout: Path) -> tuple[Path, tuple[str, ...]]:
    _rewrite(_meta(checkout, FACE1, FACE1), characteristics__body_type="thin")
    return _meta(checkout, FACE1, FACE1), ("field 'characteristics.body_index'", "'obese'", "'thin'")


def _base_missing(checkout: Path) -> tuple[Path, tuple[str, ...]]:
    data = json.loads(_meta(checkout, STEM0).read_text())
    del data["characteristics"]["base"]
    _meta(checkout, STEM0).write_text(json.dumps(data))
    return _meta(checkout, STEM0), ("field 'characteristics.age'", "missing")


BREAKS = {
    "unresolved image": _unresolved_image,
    "base named wrongly": _base_named_wrongly,
    "base disagrees": _base_disagrees,
    "body_index out of range": _body_index_out_of_range,
    "body_index disagrees": _body_index_disagrees,
    "variation without base": _base_missing,
}


@pytest.mark.parametrize("case", list(BREAKS))
def test_release_bad_input(checkout: Path, case: str) -> None:
    named, fragments = BREAKS[case](checkout)
    with pytest.raises(ImageSetError) as exc:
        load(checkout)
    message = str(exc.value)
    assert "\n" not in message and str(named) in message
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
