"""The CLIP measures of the build's edit gate (``identity``, ``cue``) on the tiny random CLIP.

Every verdict is checked against an independent computation: the stand-in checkpoint loaded
with transformers' ``CLIPModel`` directly (not through cueshift's encoders), each image and
prompt encoded alone. The tiny CLIP's weights are random, so the bound of a test is set where
that reference puts it, and the test asserts the planted cases fall on the expected side.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl
import pytest

from cueshift.designs import load_study
from cueshift.images.manifest import read_manifest_table
from cueshift.stimuli.command import build_study
from cueshift.stimuli.generators import registry
from cueshift.stimuli.generators.base import ImageRequest, ImageResult
from cueshift.stimuli.generators.stand_in import DemoFacesGenerator
from cueshift.stimuli.run import BuildOptions
from tests.stimuli.studies import write_study

pytest.importorskip("transformers")

QUIET = BuildOptions(progress=False)
#: The identity bound: the tiny CLIP puts a demo face and its edit above it, another face below.
MIN_IDENTITY = 0.995
#: The cue bound: the tiny CLIP's lifts are near -1e-3 for a cap, near -1e-7 for sunglasses.
CUE_THRESHOLD = -0.0005


class SwapFaceGenerator:
    """A TEST DOUBLE editor: its first call per edit (prompt and base) returns another person (a
    new demo face of other demographics); later calls edit the base as demo-faces does."""

    name = "swap-face"

    def __init__(self, model: str, settings: Mapping[str, object]) -> None:
        self.model = model or "swap-face"
        self.editor = DemoFacesGenerator("", {})
        self.calls: dict[tuple[str, bytes | None], int] = {}

    def generate(self, request: ImageRequest) -> ImageResult:
        edit = (request.prompt, request.parent_png)
        self.calls[edit] = self.calls.get(edit, 0) + 1
        if self.calls[edit] > 1:
            return self.editor.generate(request)
        other = (
            "an obese elderly African female person"
            if "female" not in request.prompt
            else "a thin young adult Latino male person"
        )
        stranger = ImageRequest("base", other, request.seed, None, request.width, request.height)
        return self.editor.generate(stranger)


class Reference:
    """The tiny CLIP loaded with transformers' CLIPModel, one image or prompt per forward pass."""

    def __init__(self, folder: Path) -> None:
        from transformers import CLIPModel, CLIPProcessor

        self.model: Any = CLIPModel.from_pretrained(folder)
        self.model.eval()
        self.processor: Any = CLIPProcessor.from_pretrained(folder)

    def image(self, path: Path) -> np.ndarray[Any, Any]:
        import torch
        from PIL import Image

        with Image.open(path) as picture:
            pixels = self.processor(images=picture.convert("RGB"), return_tensors="pt")["pixel_values"]
        with torch.no_grad():
            pooled = self.model.vision_model(pixel_values=pixels).pooler_output
            return np.asarray(self.model.visual_projection(pooled)[0].numpy(), dtype=np.float64)

    def text(self, prompt: str) -> np.ndarray[Any, Any]:
        import torch

        tokens = self.processor.tokenizer(prompt, return_tensors="pt")
        with torch.no_grad():
            pooled = self.model.text_model(**tokens).pooler_output
            return np.asarray(self.model.text_projection(pooled)[0].numpy(), dtype=np.float64)

    def probability(self, image: np.ndarray[Any, Any], prompts: list[str]) -> float:
        """Softmax probability of ``prompts[0]`` for ``image`` at the checkpoint's temperature."""
        scale = float(self.model.logit_scale.exp())
        unit = image / np.linalg.norm(image)
        logits = np.array([scale * unit @ (t / np.linalg.norm(t)) for t in map(self.text, prompts)])
        weights = np.exp(logits - logits.max())
        return float(weights[0] / weights.sum())


def _cosine(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module")
def clip_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cueshift.inference.stand_ins.tiny_clip import save_tiny_clip

    folder = tmp_path_factory.mktemp("clip") / "tiny-clip"
    save_tiny_clip(folder)
    return folder


def _tries(db: Path) -> pl.DataFrame:
    with duckdb.connect(str(db), read_only=True) as con:
        frame: pl.DataFrame = con.sql(
            "SELECT * FROM generation WHERE stage = 'variation' ORDER BY image_id, try"
        ).pl()
    return frame


def _kept_base(db: Path, root: Path, base_id: str) -> Path:
    with duckdb.connect(str(db), read_only=True) as con:
        sha = con.execute(
            "SELECT sha256 FROM generation WHERE image_id = ? AND outcome = 'ok'", [base_id]
        ).fetchall()[0][0]
    return root / "images" / str(sha)[:2] / f"{sha}.png"


def _audit(clip: Path, measures: str, extra: str = "") -> str:
    return (
        f"\n[build.audit]\nmeasures = {measures}\nmin_identity = {MIN_IDENTITY}\n"
        f'\n[audit]\nencoder = "{clip.as_posix()}"\n{extra}'
    )


def test_an_edit_replaced_by_another_face_fails_identity_and_is_tried_again(
    tmp_path: Path, clip_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = registry.GeneratorSpec("swap-face", f"{__name__}:SwapFaceGenerator", frozenset({"variation"}))
    monkeypatch.setitem(registry.GENERATORS, "swap-face", spec)
    path = write_study(
        tmp_path, count=2, base="{}", edit="{}", edit_generator="swap-face",
        extra=_audit(clip_folder, '["identity"]'),
    )  # fmt: skip
    summary = build_study(load_study(path), QUIET)
    tries = _tries(summary.database)
    reference, root = Reference(clip_folder), summary.manifest.parent
    for row in tries.iter_rows(named=True):
        cosine = _cosine(
            reference.image(_kept_base(summary.database, root, row["parent_id"])),
            reference.image(root / "images" / row["sha256"][:2] / f"{row['sha256']}.png"),
        )
        if row["try"] == 1:  # the planted stranger
            assert cosine < MIN_IDENTITY and row["outcome"] == "rejected"
            assert row["message"].startswith(f"identity_cosine {cosine:.3f} < {MIN_IDENTITY:g}")
        else:  # the same face edited
            assert cosine >= MIN_IDENTITY and row["outcome"] == "ok" and row["try"] == 2
    assert tries.group_by("image_id").agg(pl.col("seed").n_unique())["seed"].to_list() == [2] * 4
    manifest = read_manifest_table(summary.manifest).filter(pl.col("role") == "variation")
    assert manifest.height == 4  # 2 bases x 2 variations, each kept at its second try
    assert set(manifest["tries"]) == {"2"} and set(manifest["verdict"]) == {"passed"}
    kept = tries.filter(pl.col("outcome") == "ok")
    assert dict(zip(manifest["image_id"], manifest["seed"], strict=True)) == {
        i: str(s) for i, s in zip(kept["image_id"], kept["seed"], strict=True)
    }


def test_an_edit_that_changed_nothing_fails_the_cue_measure_at_every_try(
    tmp_path: Path, clip_folder: Path
) -> None:
    path = write_study(
        tmp_path, count=2, base="{}", edit="{noop_rate = 1.0}", extra=_audit(clip_folder, '["cue"]')
    )
    summary = build_study(load_study(path), QUIET)
    tries = _tries(summary.database)
    assert tries.height == 4 * 3  # every variation: max_tries tries, each rejected
    assert set(tries["outcome"]) == {"rejected"}
    assert tries["message"].str.starts_with("cue_probability rose 0.000 <= 0").all()
    assert tries["seed"].n_unique() == tries.height
    manifest = read_manifest_table(summary.manifest)
    assert set(manifest["role"]) == {"base"}  # no variation kept


def test_the_cue_verdict_of_a_real_edit_follows_the_reference_probability(
    tmp_path: Path, clip_folder: Path
) -> None:
    path = write_study(
        tmp_path,
        count=2,
        base="{}",
        edit="{}",
        extra=_audit(clip_folder, '["cue"]', f"cue_threshold = {CUE_THRESHOLD}\n"),
    )
    study = load_study(path)
    summary = build_study(study, QUIET)
    tries, reference, root = _tries(summary.database), Reference(clip_folder), summary.manifest.parent
    features = {"eyewear": ["Sunglasses"], "accessories": ["Cap"]}
    labels = {"eyewear": "eyewear", "accessories": "accessories"}
    for row in tries.iter_rows(named=True):
        key, value = row["feature_key"], row["variation_value"]
        values = list(dict.fromkeys([value, *features[key]]))
        prompts = [f"a photo of a person with {v.lower()} {labels[key]}" for v in values]
        prompts += ["a photo of a person"] if len(prompts) == 1 else []
        base = reference.image(_kept_base(summary.database, root, row["parent_id"]))
        edit = reference.image(root / "images" / row["sha256"][:2] / f"{row['sha256']}.png")
        lift = reference.probability(edit, prompts) - reference.probability(base, prompts)
        assert row["outcome"] == ("ok" if lift > CUE_THRESHOLD else "rejected"), (row["image_id"], lift)
    assert set(tries["outcome"]) == {"ok", "rejected"}  # the reference puts edits on both sides
