"""The CLIP embedding cache: keyed by encoder and image content, stored through a protocol.

The study-level test is the README's promise: a second model entry of the same checkpoint
with other probe templates re-scores every image without one vision-tower call (counted
with a forward hook), and m and the logit scale are readable from the study database.
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from PIL import Image  # noqa: E402

from cueshift import store  # noqa: E402
from cueshift.designs.registry import load_study  # noqa: E402
from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.errors import CueshiftError, SchemaViolation  # noqa: E402
from cueshift.execution.run_options import RunOptions  # noqa: E402
from cueshift.execution.runner import run_study  # noqa: E402
from cueshift.inference.backends import clip as clip_module  # noqa: E402
from cueshift.inference.backends.base import ImageRecord, StudyContext  # noqa: E402
from cueshift.inference.backends.clip import ClipBackend  # noqa: E402
from cueshift.inference.backends.clip_embeddings import encoder_key  # noqa: E402
from cueshift.inference.backends.clip_probe import ClipSettings  # noqa: E402
from cueshift.inference.embedding_cache import EmbeddingCache, MemoryEmbeddingCache  # noqa: E402
from cueshift.inference.stand_ins import checkpoints  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import TINY_CLIP_CHECKPOINT, save_tiny_clip  # noqa: E402
from cueshift.store.embedding_cache import DuckDBEmbeddingCache  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from cueshift.study.scenarios import RELEASED_TEMPLATE  # noqa: E402

pytestmark = pytest.mark.timeout(120)

T1 = "a photo of someone who is {x}"
T2 = "a close-up picture of a person who is {x}"
SCENARIOS = '["competent", "wealthy", "honest"]'


# --------------------------------------------------------------------------- the study end to end


def study_file(tmp: Path, cache: Path, models: list[tuple[str, list[str]]]) -> Path:
    entries = "".join(
        f"""
[[models]]
model_id = "{model_id}"
backend = "clip"
checkpoint = "{TINY_CLIP_CHECKPOINT}"
[models.settings]
templates = {templates!r}
device = "cpu"
batch_size = 16
"""
        for model_id, templates in models
    )
    path = tmp / "clip.toml"
    path.write_text(
        f"""
name = "clip-cache"
database = "{(tmp / "clip.duckdb").as_posix()}"
[image_set]
kind = "demo"
size = 3
cache_dir = "{cache.as_posix()}"
[scenarios]
only = {SCENARIOS}
{entries}"""
    )
    return path


class TowerCalls:
    """Forward calls of the vision and text towers of every CLIP the backend loads, the paths it
    loads (``load_clip``) and the stand-ins written (``save_tiny_clip``) under a fresh cache."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, stand_ins: Path) -> None:
        self.vision = 0
        self.text = 0
        self.loaded: list[str] = []
        self.written: list[int] = []
        self._load, self._save = clip_module.load_clip, save_tiny_clip
        monkeypatch.setattr(checkpoints, "STAND_IN_CACHE", stand_ins)
        monkeypatch.setattr(checkpoints, "save_tiny_clip", self.save)
        monkeypatch.setattr(clip_module, "load_clip", self.load)

    def save(self, directory: str | Path, seed: int = 0) -> Path:
        self.written.append(seed)
        return self._save(directory, seed=seed)

    def load(
        self, model_id: str, path: str, revision: str | None, *, random_seed: int | None = None
    ) -> tuple[Any, Any]:
        self.loaded.append(path)
        model, processor = self._load(model_id, path, revision, random_seed=random_seed)
        model.vision_model.register_forward_hook(lambda *_: setattr(self, "vision", self.vision + 1))
        model.text_model.register_forward_hook(lambda *_: setattr(self, "text", self.text + 1))
        return model, processor


def test_new_templates_rescore_without_encoding_an_image(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "demo-cache"
    calls = TowerCalls(monkeypatch, tmp_path / "stand-ins")
    first = run_study(
        load_study(study_file(tmp_path, cache, [("clip-t1", [T1])])), RunOptions(progress=False)
    )
    assert first.n_written > 0 and calls.vision > 0 and calls.text > 0
    tiny_dir = str(tmp_path / "stand-ins" / "tiny-random-clip-seed0")
    assert (calls.written, calls.loaded) == ([0], [tiny_dir])  # written once, loaded from its directory
    with duckdb.connect(str(first.database), read_only=True) as con:
        n_images = con.execute("SELECT count(*) FROM image WHERE evaluated").fetchone()
        stored_images = con.execute("SELECT count(*) FROM embedding WHERE kind = 'image'").fetchone()
    assert n_images is not None and stored_images is not None
    assert 0 < stored_images[0] <= n_images[0]  # one per distinct image content

    # the same checkpoint with other templates, as a new model entry: no image is encoded again
    calls.vision = calls.text = 0
    second = run_study(
        load_study(study_file(tmp_path, cache, [("clip-t1", [T1]), ("clip-t2", [T2, T1])])),
        RunOptions(progress=False),
    )
    assert calls.vision == 0, "an image went through the vision tower again"
    assert calls.written == [0] and calls.loaded[1:] == [tiny_dir] * 2  # loaded again, not rewritten
    assert calls.text > 0  # the new probe texts (T2) were encoded
    assert second.n_written == first.n_written  # every image x scenario of the new entry

    with duckdb.connect(str(second.database), read_only=True) as con:
        rows = con.sql(
            "SELECT model_id, image_id, scenario_id, association, logit_scale, p_favorable, response_text "
            "FROM judgment"
        ).pl()
        assert con.execute("SELECT count(*) FROM embedding WHERE kind = 'image'").fetchone() == stored_images
    assert rows["association"].null_count() == 0 and rows["logit_scale"].null_count() == 0
    assert rows["logit_scale"].unique().to_list() == pytest.approx([100.0], rel=1e-5)
    sigma = 1.0 / (1.0 + np.exp(-rows["logit_scale"].to_numpy() * rows["association"].to_numpy()))
    np.testing.assert_allclose(rows["p_favorable"].to_numpy(), sigma, atol=1e-12)
    wide = rows.pivot(on="model_id", index=["image_id", "scenario_id"], values="association")
    assert wide.height == first.n_written
    assert not np.allclose(wide["clip-t1"].to_numpy(), wide["clip-t2"].to_numpy(), atol=1e-4)  # new scores


def test_a_backend_without_a_cache_encodes_what_it_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = TowerCalls(monkeypatch, tmp_path / "stand-ins")
    context = image_context(tmp_path, 3)
    backend = tiny_backend(context)  # context.embeddings is None
    backend.judge(batch_of(context))
    assert (backend.images_encoded, calls.vision) == (3, 3)  # one image per forward pass (D50)


# --------------------------------------------------------------------------- the backend and the protocol


def image_context(tmp_path: Path, n: int, *, duplicate_of_first: bool = False) -> StudyContext:
    rng = np.random.default_rng(7)
    images = {}
    for i in range(n):
        path = tmp_path / f"face{i}.png"
        if duplicate_of_first and i == n - 1:
            shutil.copyfile(tmp_path / "face0.png", path)
        else:
            Image.fromarray(rng.integers(0, 256, size=(36, 30, 3), dtype=np.uint8)).save(path)
        images[f"img{i}"] = ImageRecord(
            f"img{i}", f"id{i}", path, "base", None, None, None, "face", None, None, None, None
        )
    scenarios = {s.scenario_id: s for s in STYLISTICBIAS_25[:2]}
    return StudyContext(images=images, scenarios=scenarios, template=RELEASED_TEMPLATE)


def batch_of(context: StudyContext) -> pl.DataFrame:
    rows = [(i, s, 1, 0) for i in context.images for s in context.scenarios]
    schema = {"image_id": pl.String, "scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32}
    return pl.DataFrame(rows, schema=schema, orient="row")


def tiny_backend(context: StudyContext, model_id: str = "tiny", **settings: Any) -> ClipBackend:
    model = ModelConfig(
        model_id=model_id,
        backend="clip",
        checkpoint=TINY_CLIP_CHECKPOINT,
        settings={"device": "cpu", "templates": [T1], **settings},
    )
    return ClipBackend(model, context)


@pytest.mark.parametrize("kind", ["memory", "duckdb"])
def test_the_cache_is_shared_across_model_ids_and_keyed_by_content(tmp_path: Path, kind: str) -> None:
    con = store.open_study(tmp_path / "study.duckdb")
    embeddings: EmbeddingCache = MemoryEmbeddingCache() if kind == "memory" else DuckDBEmbeddingCache(con)
    context = image_context(tmp_path, 4, duplicate_of_first=True)
    context = StudyContext(context.images, context.scenarios, context.template, embeddings=embeddings)

    first = tiny_backend(context, "a")
    a = first.judge(batch_of(context))
    assert first.images_encoded == 3  # img3 is a copy of img0: one embedding
    assert a.association is not None and a.association[0:2] == a.association[6:8]

    other = tiny_backend(context, "b", templates=[T2])  # another model_id and other templates
    b = other.judge(batch_of(context))
    assert (other.images_encoded, other.texts_encoded) == (0, 4)
    assert other.encoder == first.encoder
    assert b.association != a.association

    reseeded = tiny_backend(context, "c", tiny_seed=1)  # other weights: another encoder
    reseeded.judge(batch_of(context))
    assert reseeded.encoder != first.encoder and reseeded.images_encoded == 3
    con.close()


def test_encoder_key_names_checkpoint_revision_dtype_and_encoding(tmp_path: Path) -> None:
    settings = ClipSettings()
    hub = ModelConfig(model_id="m", backend="clip", checkpoint="org/clip", revision="abc123")
    assert encoder_key(hub, settings, "float16") == "org/clip@abc123:float16#encoding=2"
    local = ModelConfig(model_id="m", backend="clip", checkpoint=str(tmp_path))
    assert encoder_key(local, settings, "float32") == f"{tmp_path.resolve()}@default:float32#encoding=2"
    tiny = ModelConfig(model_id="m", backend="clip", checkpoint=TINY_CLIP_CHECKPOINT)
    key = encoder_key(tiny, ClipSettings(tiny_seed=2), "float32")
    assert key.endswith("#seed=2@default:float32#encoding=2")


def test_duckdb_cache_round_trip_first_write_wins_and_bad_vectors(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "study.duckdb"
    con = store.open_study(path)
    cache = DuckDBEmbeddingCache(con)
    vectors = np.arange(6, dtype=np.float32).reshape(2, 3)
    cache.put("enc", "image", ["x", "y"], vectors)
    cache.put("enc", "image", ["x"], np.full((1, 3), 9.0, dtype=np.float32))  # stored already: kept
    got = cache.get("enc", "image", ["x", "y", "z"])
    assert set(got) == {"x", "y"} and got["x"].dtype == np.float32
    np.testing.assert_array_equal(got["x"], vectors[0])
    assert cache.get("enc", "text", ["x"]) == {} and cache.get("other", "image", ["x"]) == {}
    with pytest.raises(SchemaViolation, match="embedding"):
        cache.put("enc", "text", ["nan"], np.array([[np.nan, 1.0, 2.0]], dtype=np.float32))
    with pytest.raises(ValueError, match="2 keys"):
        cache.put("enc", "text", ["p", "q"], vectors[:1])
    con.close()

    read_only = duckdb.connect(str(path), read_only=True)
    with caplog.at_level(logging.WARNING):
        DuckDBEmbeddingCache(read_only).put("enc", "text", ["t"], vectors[:1])  # logged, not raised
    assert "embedding cache not written" in caplog.text
    assert DuckDBEmbeddingCache(read_only).get("enc", "text", ["t"]) == {}
    read_only.close()


def test_vectors_of_another_size_under_the_same_encoder_are_refused(tmp_path: Path) -> None:
    embeddings = MemoryEmbeddingCache()
    context = image_context(tmp_path, 2)
    context = StudyContext(context.images, context.scenarios, context.template, embeddings=embeddings)
    backend = tiny_backend(context)
    content = hashlib.sha256(context.images["img0"].path.read_bytes()).hexdigest()
    embeddings.put(backend.encoder, "image", [content], np.ones((1, 5), dtype=np.float32))
    with pytest.raises(CueshiftError, match="5 values stored but gives 16"):
        backend.judge(batch_of(context))


def test_an_unreadable_image_is_one_line(tmp_path: Path) -> None:
    context = image_context(tmp_path, 2)
    context.images["img1"].path.unlink()
    with pytest.raises(CueshiftError, match=r"^image img1: cannot read .*face1\.png") as info:
        tiny_backend(context).judge(batch_of(context))
    assert "\n" not in str(info.value)
