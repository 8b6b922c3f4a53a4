"""The edit audit's pixel checks on planted defects: each defect is flagged by the right measure,
no clean edit is, and on the demo exactly the pixel-identical (null) edits fail."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from PIL import Image, ImageFilter
from rich.console import Console

from cueshift.designs.audit import EditPairs, measure_edit_audit, pixel_rows
from cueshift.designs.paired.section import PairedStudy
from cueshift.designs.registry import design_of, load_study
from cueshift.images.demo import list_demo
from cueshift.store import open_study
from cueshift.study.audit import AuditConfig

N_FACES = 24
DEFECTS = ("brightened", "recoloured", "cropped", "blurred", "no_cue")


def _photo(rng: np.random.Generator) -> np.ndarray:
    """A photo-like portrait: a noisy grey background and a skin-coloured face ellipse."""
    pixels = np.clip(rng.normal(110, 18, size=(64, 64, 3)), 0, 255)
    yy, xx = np.mgrid[:64, :64]
    face = ((xx - 32) / 14) ** 2 + ((yy - 30) / 18) ** 2 < 1
    skin = np.array([200, 150, 120]) + rng.normal(0, 12, size=3)
    pixels[face] = np.clip(skin + rng.normal(0, 6, size=(int(face.sum()), 3)), 0, 255)
    return pixels.astype(np.uint8)


def _with_cue(base: np.ndarray) -> np.ndarray:
    """The intended edit: a small dark moustache under the nose."""
    out = base.copy()
    out[38:41, 26:38] = (40, 30, 25)
    return out


def _defect(kind: str, base: np.ndarray) -> Image.Image:
    edited = _with_cue(base).astype(np.int16)
    if kind == "brightened":
        return Image.fromarray(np.clip(edited + 75, 0, 255).astype(np.uint8))
    if kind == "recoloured":
        edited[..., 0] += 60
        return Image.fromarray(np.clip(edited, 0, 255).astype(np.uint8))
    if kind == "cropped":
        return Image.fromarray(edited[:, :56].astype(np.uint8))
    if kind == "blurred":
        return Image.fromarray(edited.astype(np.uint8)).filter(ImageFilter.GaussianBlur(2))
    return Image.fromarray(base)  # no cue: the variation is the base


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> EditPairs:
    root = tmp_path_factory.mktemp("planted")
    rng = np.random.default_rng(7)
    rows = []
    for i in range(N_FACES):
        base = _photo(rng)
        Image.fromarray(base).save(root / f"f{i}-base.png")
        kind = DEFECTS[i] if i < len(DEFECTS) else "clean"
        image = _defect(kind, base) if kind != "clean" else Image.fromarray(_with_cue(base))
        image.save(root / f"f{i}-{kind}.png")
        rows.append(
            {
                "image_id": f"f{i}-{kind}",
                "base_image_id": f"f{i}-base",
                "face_id": f"f{i}",
                "feature_key": "facial_hair_male",
                "variation_value": "Mustache",
                "path": f"f{i}-{kind}.png",
                "sha256": f"v{i}",
                "framing": "face",
                "base_path": f"f{i}-base.png",
                "base_sha256": f"b{i}",
                "base_framing": "face",
            }
        )
    return EditPairs(root, pl.DataFrame(rows))


@pytest.fixture(scope="module")
def audited(planted: EditPairs) -> pl.DataFrame:
    return pixel_rows(planted, AuditConfig(face_box=(0.2, 0.1, 0.8, 0.9)), progress=False)


@pytest.mark.parametrize(
    ("kind", "measure"),
    [
        ("brightened", "brightness"),
        ("recoloured", "red_green"),
        ("cropped", "width"),
        ("blurred", "log_sharpness"),
        ("no_cue", "changed_pixels"),
    ],
)
def test_each_planted_defect_fails_on_its_measure(audited: pl.DataFrame, kind: str, measure: str) -> None:
    row = audited.filter(pl.col("image_id").str.ends_with(f"-{kind}"), pl.col("measure") == measure)
    assert row.height == 1
    assert row["failed"].item(), row
    assert row["reason"].item()
    if kind == "no_cue":
        assert row["reason"].item() == "the variation is pixel-identical to its base"
        assert row["difference"].item() == 0.0


def test_no_clean_edit_fails_and_the_rows_are_complete(audited: pl.DataFrame) -> None:
    clean = audited.filter(pl.col("image_id").str.ends_with("-clean"))
    assert clean.height == (N_FACES - len(DEFECTS)) * 19  # changed_pixels + 18 image statistics
    assert not clean["failed"].any(), clean.filter("failed")
    changed = clean.filter(pl.col("measure") == "changed_pixels")["difference"]
    assert (changed == 36 / 64**2).all()  # the 3 x 12 moustache, nothing else
    brightness = audited.filter(pl.col("measure") == "brightness").sort("image_id")
    assert (
        brightness["difference"] - (brightness["measured_variation"] - brightness["measured_base"])
    ).abs().max() == 0


def test_the_demo_fails_exactly_its_pixel_identical_edits(tmp_path: Path) -> None:
    study_file = tmp_path / "demo.toml"
    study_file.write_text(
        f'name = "audit-demo"\ndatabase = "{tmp_path / "demo.duckdb"}"\n'
        f'[image_set]\nkind = "demo"\nsize = 12\ncache_dir = "{tmp_path / "cache"}"\n'
        '[[models]]\nmodel_id = "sim"\nbackend = "simulated"\n',
        encoding="utf-8",
    )
    study = load_study(study_file)
    con = open_study(tmp_path / "demo.duckdb")
    rows = measure_edit_audit(
        con, study, design_of(study), console=Console(quiet=True), progress=False, write=True
    )
    image = list_demo(12, study.variations).image.filter(pl.col("evaluated"))
    root = tmp_path / "cache" / "n12"
    pixels = {p: np.asarray(Image.open(root / p)) for p in image["path"]}
    base_of = dict(zip(image["image_id"], image["base_image_id"], strict=True))
    path_of = dict(zip(image["image_id"], image["path"], strict=True))
    identical = {
        image_id
        for image_id, base in base_of.items()
        if base is not None and np.array_equal(pixels[path_of[image_id]], pixels[path_of[base]])
    }
    failed = rows.filter("failed")
    assert set(failed["image_id"]) == identical
    assert set(failed["measure"]) <= {"changed_pixels"}
    stored = con.sql("SELECT image_id FROM edit_verdict WHERE failed").pl()
    assert set(stored["image_id"]) == identical
    assert con.execute("SELECT count(*) FROM edit_audit").fetchall() == [(rows.height,)]
    con.close()


def test_every_design_with_pairs_is_audited_the_others_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cueshift.study import config

    monkeypatch.chdir(tmp_path)  # the synthetic photos are drawn under the working directory
    studies = Path(config.__file__).resolve().parents[1] / "studies"
    paired = load_study(studies / "paired-001.toml")
    assert isinstance(paired, PairedStudy)
    console = Console(record=True, width=200)
    rows = measure_edit_audit(
        None,  # type: ignore[arg-type]  # write=False must never touch a connection
        paired,
        design_of(paired),
        console=console,
        progress=False,
        write=False,
    )
    assert rows.height and set(rows["feature_key"]) == {paired.paired.filter_feature_key}
    assert not rows["failed"].any()
    for name in ("pairwise-002", "probe-004"):
        other = load_study(studies / f"{name}.toml")
        empty = measure_edit_audit(
            None,  # type: ignore[arg-type]  # write=False must never touch a connection
            other,
            design_of(other),
            console=console,
            progress=False,
            write=False,
        )
        assert empty.height == 0
        assert f"design {other.design} has no base/variation pairs: nothing to audit" in console.export_text()
