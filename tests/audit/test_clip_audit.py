"""The CLIP part of the edit audit against transformers' CLIPModel computed directly (a tiny random
CLIP saved in the test), the null edit's lift exactly 0, and `cueshift audit` end to end."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from PIL import Image  # noqa: E402
from rich.console import Console  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import cueshift as cs  # noqa: E402
from cueshift.cli import app  # noqa: E402
from cueshift.designs._audit_clip import attribute_values, clip_rows, cue_prompt  # noqa: E402
from cueshift.designs.audit import EditPairs, image_set_edit_pairs, measure_edit_audit, pixel_rows  # noqa: E402
from cueshift.designs.registry import design_of, load_study  # noqa: E402
from cueshift.images.demo import list_demo  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import build_tiny_clip, save_tiny_clip  # noqa: E402
from cueshift.store import open_study  # noqa: E402
from cueshift.study.audit import AuditConfig  # noqa: E402

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_clip(tmp_path_factory.mktemp("tiny-clip"), seed=0)


def _study_file(folder: Path, checkpoint: Path | None, extra: str = "") -> Path:
    path = folder / "study.toml"
    encoder = f'[audit]\nencoder = "{checkpoint}"\n' if checkpoint is not None else ""
    path.write_text(
        f'name = "clip-audit"\ndatabase = "{folder / "study.duckdb"}"\n'
        f'[image_set]\nkind = "demo"\nsize = 2\ncache_dir = "{folder / "cache"}"\n'
        f'[[models]]\nmodel_id = "sim"\nbackend = "simulated"\n{encoder}{extra}',
        encoding="utf-8",
    )
    return path


def _probabilities(model: object, processor: object, image: Path, prompts: list[str]) -> np.ndarray:
    """Softmax of CLIPModel's logits_per_image: the zero-shot classifier, computed by transformers."""
    with Image.open(image) as picture:
        inputs = processor(text=prompts, images=[picture.convert("RGB")], return_tensors="pt", padding=True)  # type: ignore[operator]  # transformers, untyped here
    with torch.no_grad():
        logits = model(**inputs).logits_per_image  # type: ignore[operator]  # transformers, untyped here
    return np.asarray(logits.softmax(dim=-1)[0].numpy(), dtype=np.float64)


@pytest.fixture(scope="module")
def audited(checkpoint: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pl.DataFrame]:
    folder = tmp_path_factory.mktemp("clip-audit")
    study = load_study(_study_file(folder, checkpoint))
    con = open_study(folder / "study.duckdb")
    rows = measure_edit_audit(
        con, study, design_of(study), console=Console(quiet=True), progress=False, write=True
    )
    con.close()
    return folder / "cache" / "n2", rows


def test_cue_and_probe_probabilities_match_clipmodel(
    checkpoint: Path, audited: tuple[Path, pl.DataFrame]
) -> None:
    root, rows = audited
    model, processor = build_tiny_clip(0)  # the same weights as the saved checkpoint
    model.eval()
    paths = dict(list_demo(2).image.select("image_id", "path").iter_rows())
    cue = rows.filter(pl.col("measure") == "cue_probability", pl.col("feature_key") == "hair_color").sort(
        "image_id"
    )
    assert cue.height >= 2
    for row in cue.head(3).iter_rows(named=True):
        values = attribute_values("hair_color", cue["variation_value"].unique().to_list())
        prompts = [cue_prompt("hair_color", v) for v in values]
        k = values.index(row["variation_value"])
        p_var = _probabilities(model, processor, root / paths[row["image_id"]], prompts)[k]
        p_base = _probabilities(model, processor, root / paths[row["base_image_id"]], prompts)[k]
        assert row["measured_variation"] == pytest.approx(p_var, abs=1e-5)
        assert row["measured_base"] == pytest.approx(p_base, abs=1e-5)
        assert row["failed"] == (p_var - p_base <= 0.0)
    probe = rows.filter(pl.col("measure") == "probe_expression").row(0, named=True)
    prompts = AuditConfig().confounds[0].prompts
    expected = _probabilities(model, processor, root / paths[probe["image_id"]], prompts)[0]
    assert probe["measured_variation"] == pytest.approx(expected, abs=1e-5)


def test_glasses_probe_skipped_for_eyewear_and_identity_joins(audited: tuple[Path, pl.DataFrame]) -> None:
    _, rows = audited
    glasses = rows.filter(pl.col("measure") == "probe_glasses")
    assert glasses.height and "eyewear" not in set(glasses["feature_key"])
    identity = rows.filter(pl.col("check_kind") == "identity")
    variations = rows["image_id"].n_unique()
    assert identity.height == variations and identity["difference"].is_between(-1, 1).all()


def test_the_null_edit_has_lift_exactly_zero_and_fails(checkpoint: Path, tmp_path: Path) -> None:
    study = load_study(_study_file(tmp_path, checkpoint))
    edits = image_set_edit_pairs(study, progress=False)
    null = edits.pairs.row(0, named=True)["image_id"]
    same = pl.col("image_id") == null
    pairs = edits.pairs.with_columns(  # the first variation's file is its base's: a null edit
        path=pl.when(same).then("base_path").otherwise("path"),
        sha256=pl.when(same).then("base_sha256").otherwise("sha256"),
    )
    rows = clip_rows(
        None,  # type: ignore[arg-type]  # write=False must never touch a connection
        EditPairs(edits.root, pairs),
        checkpoint,
        AuditConfig(),
        console=Console(quiet=True),
        write=False,
    )
    cue = rows.filter(pl.col("measure") == "cue_probability", same).row(0, named=True)
    assert cue["difference"] == 0.0 and cue["failed"]
    assert "not more detectable" in cue["reason"]
    identity = rows.filter(pl.col("measure") == "identity_cosine", same)["difference"].item()
    assert identity == pytest.approx(1.0)
    pixels = pixel_rows(EditPairs(edits.root, pairs.filter(same)), AuditConfig(), progress=False)
    assert pixels.filter(pl.col("measure") == "changed_pixels")["reason"].item() == (
        "the variation is pixel-identical to its base"
    )


def test_cli_audit_writes_the_table_and_prints_the_summary(tmp_path: Path, checkpoint: Path) -> None:
    study_file = _study_file(tmp_path, checkpoint)
    done = CliRunner().invoke(app, ["audit", "--study", str(study_file), "--no-progress"])
    assert done.exit_code == 0, done.output
    assert "variations failed the audit" in done.output
    stored = cs.open_study(study_file).edit_audit()
    assert {"cue", "unintended", "identity"} == set(stored["check_kind"])


def test_cli_audit_bad_input_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    study_file = _study_file(tmp_path, None, "[audit]\nbounds = { loudness = 0.1 }\n")
    done = CliRunner().invoke(app, ["audit", "--study", str(study_file)])
    assert done.exit_code == 2
    assert "loudness" in done.output
    assert not (tmp_path / "study.duckdb").exists()


def test_without_an_encoder_only_pixels_are_measured(tmp_path: Path) -> None:
    study = load_study(_study_file(tmp_path, None))
    console = Console(record=True, width=200)
    con = open_study(tmp_path / "study.duckdb")
    rows = measure_edit_audit(con, study, design_of(study), console=console, progress=False, write=False)
    con.close()
    assert set(rows["source"]) == {"pixels"}
    assert "cue and confound probes skipped" in console.export_text()


def test_designs_without_pairs_have_nothing_to_audit(tmp_path: Path) -> None:
    class NoPairs:
        name = "pairwise"

    study = load_study(_study_file(tmp_path, None))
    console = Console(record=True, width=200)
    rows = measure_edit_audit(None, study, NoPairs(), console=console, progress=False, write=False)  # type: ignore[arg-type]  # no database: write=False never opens it
    assert rows.height == 0
    assert "has no base/variation pairs: nothing to audit" in console.export_text()


def test_the_random_weight_stand_in_is_named_noise(tmp_path: Path) -> None:
    study = load_study(_study_file(tmp_path, Path("cueshift:tiny-random-clip")))
    console = Console(record=True, width=300)
    con = open_study(tmp_path / "study.duckdb")
    rows = measure_edit_audit(con, study, design_of(study), console=console, progress=False, write=False)
    con.close()
    assert "cue_probability" in set(rows["measure"])  # measured all the same
    assert "random-weight CLIP stand-in" in console.export_text()


def test_declared_apparent_demographic_probes_measure_every_edit(checkpoint: Path, tmp_path: Path) -> None:
    """docs/faces.md "Apparent demographics": the documented confounds parse, and each edit gets its
    probe rows (skipped where the cue is gendered), the probability CLIPModel itself gives."""
    import re

    block = re.search(r"```toml\n(\[\[audit\.confounds\]\].*?)```", (DOCS / "faces.md").read_text(), re.S)
    assert block is not None
    study = load_study(_study_file(tmp_path, checkpoint, block.group(1)))
    assert study.audit is not None
    assert [c.name for c in study.audit.confounds] == ["apparent_gender", "apparent_age"]
    con = open_study(tmp_path / "study.duckdb")
    quiet = Console(quiet=True)
    rows = measure_edit_audit(con, study, design_of(study), console=quiet, progress=False, write=False)
    con.close()
    gender = rows.filter(pl.col("measure") == "probe_apparent_gender")
    assert gender.height and "facial_hair_male" not in set(gender["feature_key"])
    assert (
        rows.filter(pl.col("measure") == "probe_apparent_age")["image_id"].n_unique()
        == rows.filter(pl.col("feature_key") != "hair_color")["image_id"].n_unique()
    )
    model, processor = build_tiny_clip(0)
    model.eval()
    paths = dict(list_demo(2).image.select("image_id", "path").iter_rows())
    row = gender.row(0, named=True)
    image = tmp_path / "cache" / "n2" / paths[row["image_id"]]
    expected = _probabilities(model, processor, image, ["a photo of a man", "a photo of a woman"])[0]
    assert row["measured_variation"] == pytest.approx(expected, abs=1e-5)
