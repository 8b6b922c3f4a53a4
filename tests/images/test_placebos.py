"""Noise-floor placebos: two per base image, pixel-identical to it, kept by every filter, zero planted
effect in the simulated judge, written once and reused."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from PIL import Image

from cueshift.errors import ImageSetError
from cueshift.images import load_image_set
from cueshift.images.demo import list_demo
from cueshift.images.placebos import PLACEBO_FOLDER, lossless_reencode
from cueshift.inference.stand_ins.simulated.settings import SimulatedSettings
from cueshift.inference.stand_ins.simulated.truth import content_logit, population_delta
from cueshift.schemas import ImageSchema
from cueshift.study.config import ImageSetConfig
from cueshift.study.variations import IDENTICAL_COPY, LOSSLESS_REENCODE, PLACEBO_FEATURE_KEY, VariationFilter

PLACEBO = pl.col("feature_key") == PLACEBO_FEATURE_KEY


def pixels(path: Path) -> np.ndarray:
    with Image.open(path) as img:
        return np.asarray(img.convert("RGBA") if img.mode == "P" else img)


def demo(tmp_path: Path, *, placebos: bool = True, faces: int = 3) -> tuple[pl.DataFrame, Path]:
    config = ImageSetConfig(kind="demo", size=faces, cache_dir=tmp_path, placebos=placebos)
    image_set = load_image_set(config, VariationFilter(), progress=False)
    return image_set.image, image_set.root


def test_every_base_gets_two_evaluated_placebos_with_their_labels(tmp_path):
    image, _ = demo(tmp_path)
    ImageSchema.validate(image)
    bases = image.filter(pl.col("role") == "base")
    placebos = image.filter(PLACEBO)
    assert placebos.height == 2 * bases.height
    assert placebos["evaluated"].all() and placebos["exclusion_reason"].is_null().all()
    assert set(placebos["variation_category"]) == {PLACEBO_FEATURE_KEY}
    per_base = placebos.group_by("base_image_id").agg(pl.col("variation_value").sort())
    assert set(per_base["base_image_id"]) == set(bases["image_id"])
    assert all(v.to_list() == [IDENTICAL_COPY, LOSSLESS_REENCODE] for v in per_base["variation_value"])
    # the same face and framing as the base, distinct ids
    joined = placebos.join(bases, left_on="base_image_id", right_on="image_id", suffix="_base")
    assert (joined["face_id"] == joined["face_id_base"]).all()
    assert (joined["framing"] == joined["framing_base"]).all()
    assert image["image_id"].n_unique() == image.height


def test_opting_out_plans_none_and_the_listed_demo_matches_the_loaded_one(tmp_path):
    without, _ = demo(tmp_path, placebos=False)
    assert without.filter(PLACEBO).height == 0
    with_placebos, _ = demo(tmp_path)
    listed = list_demo(3, VariationFilter(), placebos=True).image
    columns = [c for c in listed.columns]
    assert listed.sort("image_id").equals(with_placebos.select(columns).sort("image_id"))
    assert list_demo(3).image.filter(PLACEBO).height == 0


def test_placebo_pixels_equal_the_base_and_the_re_encode_has_other_bytes(tmp_path):
    image, root = demo(tmp_path)
    rows = image.filter(PLACEBO).join(
        image.select("image_id", pl.col("path").alias("base_path"), pl.col("sha256").alias("base_sha")),
        left_on="base_image_id",
        right_on="image_id",
    )
    for r in rows.iter_rows(named=True):
        assert np.array_equal(pixels(root / r["path"]), pixels(root / r["base_path"]))
        if r["variation_value"] == IDENTICAL_COPY:
            assert r["path"] == r["base_path"] and r["sha256"] == r["base_sha"]
        else:
            assert r["path"].startswith(f"{PLACEBO_FOLDER}/") and r["sha256"] != r["base_sha"]
            assert (root / r["path"]).read_bytes() != (root / r["base_path"]).read_bytes()


@pytest.mark.parametrize(
    ("fmt", "mode"), [("JPEG", "RGB"), ("JPEG", "L"), ("PNG", "RGBA"), ("PNG", "P"), ("WEBP", "RGB")]
)
def test_lossless_re_encode_keeps_the_decoded_pixels(fmt, mode):
    rng = np.random.default_rng(3)
    picture = Image.fromarray(rng.integers(0, 256, (17, 23, 3), dtype=np.uint8)).convert(mode)
    buffer = io.BytesIO()
    picture.save(buffer, format=fmt)
    source = buffer.getvalue()
    out = lossless_reencode(source)
    assert out != source
    with Image.open(io.BytesIO(source)) as a, Image.open(io.BytesIO(out)) as b:
        assert b.format == "PNG" and a.size == b.size
        assert np.array_equal(np.asarray(a.convert("RGBA")), np.asarray(b.convert("RGBA")))


def test_re_encodes_are_reused_and_redone_when_the_base_changes(tmp_path):
    image, root = demo(tmp_path, faces=2)
    reencode = root / image.filter(pl.col("variation_value") == LOSSLESS_REENCODE)["path"][0]
    os.utime(reencode, (1, 1))
    again, _ = demo(tmp_path, faces=2)
    assert again.equals(image) and reencode.stat().st_mtime == 1  # reused, not rewritten
    reencode.write_bytes(b"damaged")
    repaired, _ = demo(tmp_path, faces=2)
    assert repaired.equals(image) and reencode.read_bytes() != b"damaged"


def _manifest(folder: Path, rows: list[dict[str, str]]) -> Path:
    path = folder / "manifest.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def _row(image_id: str, path: str, role: str = "base", **extra: str) -> dict[str, str]:
    row = dict.fromkeys(("base_image_id", "feature_key", "variation_value"), "")
    row |= {"image_id": image_id, "face_id": "p1", "path": path, "role": role}
    row |= {"age": "", "gender": "male", "ethnicity": "", "body_type": ""}
    return row | extra


def test_a_manifest_with_a_jpeg_base_and_a_whitelist_that_keeps_nothing(tmp_path):
    Image.new("RGB", (8, 6), (200, 30, 90)).save(tmp_path / "p1.jpg", quality=70)
    Image.new("RGB", (8, 6), (10, 30, 90)).save(tmp_path / "p1-cap.png")
    manifest = _manifest(
        tmp_path,
        [
            _row("p1", "p1.jpg"),
            _row(
                "p1-cap",
                "p1-cap.png",
                "variation",
                base_image_id="p1",
                feature_key="accessories",
                variation_value="Cap",
            ),  # fmt: skip
        ],
    )
    config = ImageSetConfig(kind="manifest", manifest=manifest, placebos=True)
    image_set = load_image_set(config, VariationFilter(whitelist={}), progress=False)
    image = image_set.image
    assert not image.filter(pl.col("image_id") == "p1-cap")["evaluated"][0]  # the filter still filters
    placebos = image.filter(PLACEBO)
    assert placebos.height == 2 and placebos["evaluated"].all()
    reencode = placebos.filter(pl.col("variation_value") == LOSSLESS_REENCODE)["path"][0]
    assert reencode == f"{PLACEBO_FOLDER}/p1.jpg--lossless.png"
    assert np.array_equal(pixels(tmp_path / reencode), pixels(tmp_path / "p1.jpg"))


def test_a_taken_placebo_id_is_one_line_and_nothing_is_written(tmp_path):
    Image.new("RGB", (4, 4)).save(tmp_path / "a.png")
    manifest = _manifest(
        tmp_path,
        [
            _row("p1", "a.png"),
            _row(
                "p1--placebo-identical-copy",
                "a.png",
                "variation",
                base_image_id="p1",
                feature_key="eyewear",
                variation_value="Sunglasses",
            ),  # fmt: skip
        ],
    )
    config = ImageSetConfig(kind="manifest", manifest=manifest, placebos=True)
    with pytest.raises(ImageSetError) as exc:
        load_image_set(config, VariationFilter(), progress=False)
    message = str(exc.value)
    assert "\n" not in message and "image_id" in message and "placebos = false" in message
    assert not (tmp_path / PLACEBO_FOLDER).exists()


def test_the_simulated_judge_plants_nothing_on_placebos():
    judge = SimulatedSettings()
    for value in (IDENTICAL_COPY, LOSSLESS_REENCODE):
        competent = population_delta(
            judge,
            PLACEBO_FEATURE_KEY,
            value,
            "competent",
            scenario_category="Personality & Social",
            gender="male",
        )
        assert competent == 0.0
    n = 4
    columns = {
        "scenario_ids": ["competent"] * n,
        "scenario_categories": ["Personality & Social"] * n,
        "face_ids": ["f1"] * n,
        "age": ["elderly"] * n,
        "gender": ["female"] * n,
        "ethnicity": ["Asian"] * n,
        "body_type": ["obese"] * n,
    }
    logits = content_logit(
        judge,
        **columns,
        feature_keys=[None, PLACEBO_FEATURE_KEY, PLACEBO_FEATURE_KEY, "eyewear"],
        values=[None, IDENTICAL_COPY, LOSSLESS_REENCODE, "Sunglasses"],
    )
    assert logits[0] == logits[1] == logits[2] != logits[3]  # a real cue does move it


def test_an_unwritable_placebo_folder_is_one_line_naming_the_opt_out(tmp_path):
    Image.new("RGB", (4, 4)).save(tmp_path / "a.png")
    manifest = _manifest(tmp_path, [_row("p1", "a.png")])
    (tmp_path / PLACEBO_FOLDER).write_text("a file where the folder goes")
    with pytest.raises(ImageSetError) as exc:
        load_image_set(ImageSetConfig(kind="manifest", manifest=manifest, placebos=True), VariationFilter())
    message = str(exc.value)
    assert "\n" not in message and PLACEBO_FOLDER in message and "placebos = false" in message
