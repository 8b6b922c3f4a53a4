"""ClipBackend on a tiny randomly initialised transformers CLIPModel (built and saved locally).

References are computed independently from the saved checkpoint: the model's own forward
pass (``logits_per_image`` = logit_scale · cosine) and its feature heads, per seed 004
Eq. 1 and the two-way softmax.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import torch  # noqa: E402
from PIL import Image  # noqa: E402

from cueshift import store  # noqa: E402
from cueshift.designs.registry import load_study  # noqa: E402
from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.errors import ConfigError  # noqa: E402
from cueshift.inference.backends.base import BackendAnswers, ImageRecord, StudyContext  # noqa: E402
from cueshift.inference.backends.clip import ClipBackend  # noqa: E402
from cueshift.inference.backends.clip_probe import ClipSettings  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import TINY_CLIP_CHECKPOINT, build_tiny_clip, save_tiny_clip  # noqa: E402
from cueshift.store.embedding_cache import DuckDBEmbeddingCache  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from cueshift.study.scenarios import RELEASED_TEMPLATE  # noqa: E402

pytestmark = pytest.mark.timeout(120)

REPO = Path(__file__).resolve().parents[2]
T1 = "a photo of someone who is {x}"
T2 = "a close-up picture of a person who is {x}"


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_clip(tmp_path_factory.mktemp("tiny-clip"), seed=0)


@pytest.fixture
def context(tmp_path: Path) -> StudyContext:
    rng = np.random.default_rng(4)
    images = {}
    for i in range(4):
        path = tmp_path / f"face{i}.png"
        Image.fromarray(rng.integers(0, 256, size=(40, 36, 3), dtype=np.uint8)).save(path)
        images[f"img{i}"] = ImageRecord(
            image_id=f"img{i}", face_id=f"id{i}", path=path, role="base", feature_key=None,
            variation_category=None, variation_value=None, framing="face",
            age=None, gender=None, ethnicity=None, body_type=None,
        )  # fmt: skip
    chosen = [
        STYLISTICBIAS_25[0],
        STYLISTICBIAS_25[11],
        STYLISTICBIAS_25[14],
    ]  # Competent, Trustworthy, Home owner
    return StudyContext(
        images=images, scenarios={s.scenario_id: s for s in chosen}, template=RELEASED_TEMPLATE
    )


def favorable(answers: BackendAnswers) -> list[float]:
    """The answers' P(favorable), one per row: CLIP gives every row one."""
    assert answers.p_favorable is not None
    present = [p for p in answers.p_favorable if p is not None]
    assert len(present) == len(answers.p_favorable)
    return present


def make_batch(context: StudyContext) -> pl.DataFrame:
    rows = [(i, s, 1, 0) for i in context.images for s in context.scenarios]
    schema = {"image_id": pl.String, "scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32}
    return pl.DataFrame(rows, schema=schema, orient="row").sample(fraction=1.0, shuffle=True, seed=1)


def clip_backend(context: StudyContext, checkpoint: str | Path, **settings: object) -> ClipBackend:
    model = ModelConfig(
        model_id="tiny-clip",
        backend="clip",
        checkpoint=str(checkpoint),
        settings={"device": "cpu", **settings},
    )
    return ClipBackend(model, context)


def reference(
    tiny_dir: Path, context: StudyContext, batch: pl.DataFrame, templates: list[str]
) -> tuple[np.ndarray, np.ndarray]:
    """m and P(favorable) per row, computed from the saved checkpoint without the backend."""
    from transformers import CLIPModel, CLIPProcessor

    model = CLIPModel.from_pretrained(tiny_dir).eval()
    processor = CLIPProcessor.from_pretrained(tiny_dir)
    scale = model.logit_scale.exp().item()
    phrase = {"Home owner": "a home owner", "Renter": "a renter"}

    def unit(x: torch.Tensor) -> torch.Tensor:
        scaled: torch.Tensor = x / x.norm(dim=-1, keepdim=True)
        return scaled

    def features(out: object) -> torch.Tensor:
        return out if isinstance(out, torch.Tensor) else out.pooler_output  # type: ignore[attr-defined]

    @functools.cache
    def pole(descriptor: str) -> torch.Tensor:
        x = phrase.get(descriptor, descriptor.lower())
        embeddings = []
        for template in templates:  # one text at a time: no padding involved
            tokens = processor(text=[template.format(x=x)], return_tensors="pt")
            embeddings.append(unit(features(model.get_text_features(input_ids=tokens["input_ids"]))[0]))
        return unit(torch.stack(embeddings).mean(0))

    ms, ps = [], []
    with torch.no_grad():
        for image_id, scenario_id, _, _ in batch.iter_rows():
            scenario = context.scenarios[scenario_id]
            with Image.open(context.images[image_id].path) as img:
                pixels = processor(images=[img.convert("RGB")], return_tensors="pt")["pixel_values"]
            image = unit(features(model.get_image_features(pixel_values=pixels))[0])
            cos_plus = float(image @ pole(scenario.favorable))
            cos_minus = float(image @ pole(scenario.unfavorable))
            ms.append(cos_plus - cos_minus)
            ps.append(math.exp(scale * cos_plus) / (math.exp(scale * cos_plus) + math.exp(scale * cos_minus)))
    return np.array(ms), np.array(ps)


def test_probe_equals_the_models_own_forward_pass(tiny_dir: Path, context: StudyContext) -> None:
    batch = make_batch(context)
    backend = clip_backend(context, tiny_dir)
    answers = backend.judge(batch)
    assert ClipBackend.scores and not ClipBackend.uses_orderings
    assert backend.logit_scale == pytest.approx(100.0, rel=1e-5)

    # the model's forward pass: logits_per_image = logit_scale * cos(image, text)
    from transformers import CLIPModel, CLIPProcessor

    model = CLIPModel.from_pretrained(tiny_dir).eval()
    processor = CLIPProcessor.from_pretrained(tiny_dir)
    m = backend.associations(batch)
    for (image_id, scenario_id, _, _), p_fav, text, mi in zip(
        batch.iter_rows(), answers.p_favorable or [], answers.response_text, m, strict=True
    ):
        scenario = context.scenarios[scenario_id]
        phrase = {"Home owner": "a home owner", "Renter": "a renter"}
        texts = [T1.format(x=phrase.get(d, d.lower())) for d in (scenario.favorable, scenario.unfavorable)]
        with Image.open(context.images[image_id].path) as img:
            inputs = processor(text=texts, images=[img.convert("RGB")], return_tensors="pt", padding=True)
        with torch.no_grad():
            logits = model(**inputs).logits_per_image[0]
        scale = model.logit_scale.exp().item()
        assert mi == pytest.approx(float(logits[0] - logits[1]) / scale, abs=1e-5)
        assert p_fav == pytest.approx(float(torch.softmax(logits, dim=0)[0]), abs=1e-5)
        assert text == (scenario.favorable if mi >= 0 else scenario.unfavorable)
    assert answers.p_neither == [None] * batch.height
    assert all(ms >= 0 for ms in answers.latency_ms)
    assert len(set(answers.response_text)) > 2  # the random model does not answer one pole throughout
    assert np.std(favorable(answers)) > 0.01


def test_templates_are_averaged_in_embedding_space(tiny_dir: Path, context: StudyContext) -> None:
    batch = make_batch(context)
    answers = clip_backend(context, tiny_dir, templates=[T1, T2]).judge(batch)
    m_ref, p_ref = reference(tiny_dir, context, batch, [T1, T2])
    np.testing.assert_allclose(favorable(answers), p_ref, atol=1e-5)
    only_t1 = clip_backend(context, tiny_dir).judge(batch)
    assert not np.allclose(favorable(answers), favorable(only_t1), atol=1e-4)


def test_embeddings_are_cached_in_the_study_database(
    tiny_dir: Path, context: StudyContext, tmp_path: Path
) -> None:
    con = store.open_study(tmp_path / "study.duckdb")
    cached = dataclasses.replace(context, embeddings=DuckDBEmbeddingCache(con))
    batch = make_batch(context)

    def counted(backend: ClipBackend) -> list[int]:
        calls = [0]
        backend.clip_model.vision_model.register_forward_hook(lambda *_: calls.__setitem__(0, calls[0] + 1))
        return calls

    first = clip_backend(cached, tiny_dir, templates=[T1], batch_size=3)
    vision_first = counted(first)
    a = first.judge(batch)
    assert (first.images_encoded, first.texts_encoded, vision_first[0]) == (4, 6, 4)  # one image per call
    first.judge(batch)
    assert vision_first[0] == 4  # the second batch comes from memory

    # a new run with another prompt set: texts are encoded, images are read from the database
    second = clip_backend(cached, tiny_dir, templates=[T2], batch_size=3)
    vision_second = counted(second)
    b = second.judge(batch)
    assert (second.images_encoded, second.texts_encoded, vision_second[0]) == (0, 6, 0)
    fresh = clip_backend(context, tiny_dir, templates=[T2]).judge(batch)  # no database at all
    # each image went through the encoder alone in both (D50): the same bits, read or encoded
    assert b.p_favorable == fresh.p_favorable
    assert b.response_text == fresh.response_text
    _, p_ref = reference(tiny_dir, context, batch, [T2])
    np.testing.assert_allclose(favorable(b), p_ref, atol=1e-5)
    assert not np.allclose(favorable(a), favorable(b), atol=1e-4)

    # the first prompt set again: nothing is encoded, the scores are the same
    third = clip_backend(cached, tiny_dir, templates=[T1])
    c = third.judge(batch)
    assert (third.images_encoded, third.texts_encoded) == (0, 0)
    assert c.p_favorable == a.p_favorable

    counts = dict(
        con.execute(
            "SELECT kind, count(*) FROM embedding WHERE encoder = ? GROUP BY kind", [first.encoder]
        ).fetchall()
    )
    assert counts == {"image": 4, "text": 12}
    assert first.encoder == f"{tiny_dir.resolve()}@default:float32#encoding=2"  # the checkpoint, not the id
    image_keys = {k for (k,) in con.execute("SELECT item_key FROM embedding WHERE kind = 'image'").fetchall()}
    assert image_keys == {hashlib.sha256(r.path.read_bytes()).hexdigest() for r in context.images.values()}
    (dim,) = con.execute("SELECT DISTINCT len(vector) FROM embedding").fetchone() or (None,)
    assert dim == first.embed_dim == 16
    con.close()


def test_reserved_tiny_checkpoint_and_settings(context: StudyContext) -> None:
    backend = clip_backend(context, TINY_CLIP_CHECKPOINT, tiny_seed=1)
    answers = backend.judge(make_batch(context))
    assert len(answers.response_text) == 12 and all(0.0 <= p <= 1.0 for p in favorable(answers))
    model = ModelConfig(
        model_id="tiny-clip", backend="clip", checkpoint="in-memory", settings={"device": "cpu"}
    )
    injected = ClipBackend(model, context, loaded=build_tiny_clip(seed=1))  # same weights, passed in
    assert injected.judge(make_batch(context)).p_favorable == answers.p_favorable
    assert backend.judge(make_batch(context)[:0]).response_text == []
    refused: list[tuple[dict[str, object], str]] = [
        ({"templates": ["a photo of {y}"]}, "must contain {x} exactly once"),
        ({"templates": []}, "settings.templates"),
        ({"batch_size": 0}, "settings.batch_size"),
        ({"colour": 1}, "settings.colour: Extra inputs are not permitted"),
    ]
    for settings, needle in refused:
        with pytest.raises(ConfigError) as info:
            clip_backend(context, TINY_CLIP_CHECKPOINT, **settings)
        assert needle in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="cannot load CLIP checkpoint"):
        clip_backend(context, context.images["img0"].path.parent / "no-such-model")


def test_study_file_is_valid() -> None:
    study = load_study(REPO / "studies" / "tiny-clip.toml")
    (model,) = study.models
    assert (model.backend, model.checkpoint, study.image_set.kind) == ("clip", TINY_CLIP_CHECKPOINT, "demo")
    settings = ClipSettings.model_validate(model.settings)
    assert settings.probe_texts("Home owner")[0] == "a photo of someone who is a home owner"
