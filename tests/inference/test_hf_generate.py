"""Batched generate mode (:mod:`cueshift.inference.backends.hf_generate`) on tiny random models.

Every architecture class: all prompts of an image in batched ``generate`` calls on the image
prefix's cache give, row by row, the tokens of one seeded ``generate`` call per prompt (the
per-prompt loop, ``batch_size = 1``). Sampling runs hot (temperature 1.5) so answers differ
between seeds and a lost seed would show.
"""

from __future__ import annotations

import copy
from typing import Any

import polars as pl
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.usefixtures("quiet_torch")  # torch on one thread (tests/inference/conftest.py)

from PIL import Image  # noqa: E402

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.inference.backends import hf_generate  # noqa: E402
from cueshift.inference.backends.base import StudyContext  # noqa: E402
from cueshift.inference.backends.hf import TransformersBackend  # noqa: E402
from cueshift.inference.backends.hf_generate import generate_group, generate_groups  # noqa: E402
from cueshift.inference.backends.hf_prompts import encode_image  # noqa: E402
from cueshift.inference.backends.hf_sampler import seeded_generate_kwargs  # noqa: E402
from cueshift.inference.backends.hf_score import prefix_cache  # noqa: E402
from cueshift.inference.backends.hf_warpers import sampling_warpers  # noqa: E402
from cueshift.inference.stand_ins.tiny import ARCHS, build_tiny  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE  # noqa: E402
from tests.inference.random_faces import prompt_batch, random_faces  # noqa: E402

# descriptors of different token lengths: several length groups per image
KEEP = {"competent", "emotionally_stable", "trustworthy"}
SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25 if s.scenario_id in KEEP}
HOT = {"mode": "generate", "temperature": 1.5, "max_new_tokens": 5}


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> StudyContext:
    return random_faces(tmp_path_factory.mktemp("images"), 3, SCENARIOS)


def _batch(context: StudyContext, seeds: list[int]) -> pl.DataFrame:
    return prompt_batch(context, seeds)


def _backend(context: StudyContext, loaded: Any, **settings: Any) -> TransformersBackend:
    cfg = ModelConfig(model_id="tiny", backend="transformers", checkpoint="in-memory", settings=settings)
    return TransformersBackend(cfg, context, loaded=loaded)


@pytest.fixture(scope="module", params=list(ARCHS))
def tiny(request: pytest.FixtureRequest) -> tuple[str, Any]:
    return request.param, build_tiny(request.param, seed=1)


def test_batched_backend_equals_the_per_prompt_loop(tiny: tuple[str, Any], context: StudyContext) -> None:
    arch, loaded = tiny
    batch = _batch(context, [1, 2, 3])
    # batches of 5: several generate calls per length group, a partial last one too
    batched = _backend(context, loaded, **HOT, batch_size=5).judge(batch)
    single = _backend(context, loaded, **HOT, batch_size=1).judge(batch)
    assert batched.response_text == single.response_text, arch
    assert batched.p_favorable is None and all(ms > 0 for ms in batched.latency_ms)
    # order and batch composition do not matter: each row keeps its seed
    again = _backend(context, loaded, **HOT, batch_size=7).judge(batch.reverse())
    assert again.response_text[::-1] == batched.response_text, arch


def test_batched_tokens_equal_one_generate_call_per_row(tiny: tuple[str, Any], context: StudyContext) -> None:
    """Token level (a tiny model's text may decode to nothing): rows of one call, distinct seeds
    and two prompts of equal length, against one single-row seeded ``generate`` call per row."""
    arch, (model, processor) = tiny
    with Image.open(context.images["face0"].path) as im:
        image = im.convert("RGB")
    scenario = SCENARIOS["competent"]
    prompts = [ORDERING_BY_ID[o].render(RELEASED_TEMPLATE, scenario) for o in (1, 2)]
    enc = encode_image(processor, image, prompts)
    assert len(enc.full_ids(0)) == len(enc.full_ids(1))
    cache = prefix_cache(model, enc)
    sampling = {"do_sample": True, "temperature": 1.5, "max_new_tokens": 5, "pad_token_id": 0}
    rows = [(0, 11), (1, 11), (0, 12), (1, 13), (0, 14), (0, 11)]
    warpers = sampling_warpers(model, sampling)
    assert warpers is not None
    got = generate_group(
        model, cache, [enc.full_ids(k) for k, _ in rows], [s for _, s in rows], sampling, warpers
    )
    eos = hf_generate.eos_ids(model)
    for (k, seed), tokens in zip(rows, got, strict=True):
        ids = torch.tensor([enc.full_ids(k)])
        alone = seeded_generate_kwargs(model, sampling, [seed], ids.device)
        assert alone is not None
        with torch.inference_mode():
            out = model.generate(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                past_key_values=copy.deepcopy(cache),
                **alone,
            )
        assert tokens == out[0, ids.shape[1] :].tolist(), (arch, k, seed)
        assert tokens and (len(tokens) == 5 or tokens[-1] in eos)
    assert got[0] == got[-1]  # the same prompt and seed
    assert len({tuple(t) for t in got}) > 2, f"{arch}: seeds should give different samples"


def test_checkpoint_sampling_settings_are_honoured(context: StudyContext) -> None:
    """A checkpoint's own top_k / top_p / repetition penalty (kept by the per-prompt call) apply
    to the batched rows the same way; greedy decoding (temperature 0) too."""
    model, processor = build_tiny("qwen2_vl", seed=4)
    model.generation_config.top_k = 20
    model.generation_config.top_p = 0.9
    model.generation_config.repetition_penalty = 1.3
    warpers = sampling_warpers(model, {"do_sample": True, "temperature": 0.7})
    assert warpers is not None
    assert [type(w).__name__ for w in warpers] == [
        "TemperatureLogitsWarper",
        "TopKLogitsWarper",
        "TopPLogitsWarper",
    ]
    batch = _batch(context, [1, 2])
    for settings in (HOT, {**HOT, "temperature": 0.0}):
        batched = _backend(context, (model, processor), **settings).judge(batch)
        single = _backend(context, (model, processor), **settings, batch_size=1).judge(batch)
        assert batched.response_text == single.response_text, settings


def test_unsupported_generation_configs_keep_the_per_prompt_loop(
    context: StudyContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    model, processor = build_tiny("llava_next", seed=5)
    greedy = sampling_warpers(model, {"do_sample": False})
    assert greedy is not None and len(greedy) == 0
    model.generation_config.num_beams = 2
    assert sampling_warpers(model, {"do_sample": True}) is None

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the batched path must not run")

    monkeypatch.setattr(hf_generate, "generate_group", refuse)
    model.generation_config.num_beams = 1
    model.generation_config.renormalize_logits = True
    answers = _backend(context, (model, processor), **HOT).judge(_batch(context, [1]))
    assert len(answers.response_text) == 2 * len(SCENARIOS) * 4


def test_generate_groups_by_length_in_chunks() -> None:
    assert generate_groups([5, 7, 5, 5, 7], 2) == [[0, 2], [3], [1, 4]]
    assert generate_groups([], 4) == []
    with pytest.raises(ValueError, match="one length"):
        generate_group(None, None, [[1, 2], [1]], [0, 0], {}, transformers.LogitsProcessorList())
