"""Batched generate mode on a static cache (:mod:`cueshift.inference.backends.hf_static`), tiny models.

Every architecture class: with ``static_cache = true`` (rows padded to bucketed lengths on a
pre-allocated cache) each row's answer equals today's batched path and the per-prompt loop,
float32, on the CPU. Sampling runs hot (temperature 1.5) so a moved position or a lost seed
would change answers (it does: padding Gemma 3's rows changed 11 of 24 answers, which is why
it is in ``NO_PADDING``, and :func:`test_padding_would_show` checks that this test can see it).
"""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.usefixtures("quiet_torch")  # torch on one thread (tests/inference/conftest.py)

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.errors import ConfigError  # noqa: E402
from cueshift.inference.backends import hf_static  # noqa: E402
from cueshift.inference.backends.base import StudyContext  # noqa: E402
from cueshift.inference.backends.hf_settings import parse_settings  # noqa: E402
from cueshift.inference.stand_ins.tiny import ARCHS, build_tiny  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from tests.inference.random_faces import (  # noqa: E402
    HOT,
    VARIED_LENGTHS,
    prompt_batch,
    random_faces,
    tiny_backend,
)

SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25 if s.scenario_id in VARIED_LENGTHS}


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> StudyContext:
    return random_faces(tmp_path_factory.mktemp("images"), 3, SCENARIOS)


_backend = tiny_backend


@pytest.mark.parametrize("arch", list(ARCHS))
def test_static_cache_gives_the_answers_of_the_batched_path(arch: str, context: StudyContext) -> None:
    loaded = build_tiny(arch, seed=1)
    batch = prompt_batch(context, [1, 2, 3])
    dynamic = _backend(context, loaded, **HOT, batch_size=5).judge(batch)
    backend = _backend(context, loaded, **HOT, batch_size=5, static_cache=True)
    static = backend.judge(batch)
    assert static.response_text == dynamic.response_text, arch
    assert len(set(static.response_text)) > 1, f"{arch}: hot sampling should vary between seeds"
    assert all(ms > 0 for ms in static.latency_ms)
    # the cache is kept between images and calls; another batch size and row order: same answers
    assert isinstance(backend._static, hf_static.StaticPrefix)
    again = _backend(context, loaded, **HOT, batch_size=7, static_cache=True).judge(batch.reverse())
    assert again.response_text[::-1] == static.response_text, arch
    single = _backend(context, loaded, **HOT, batch_size=1).judge(batch.head(12))
    assert single.response_text == static.response_text[:12], arch


def test_padding_would_show(context: StudyContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """Padded rows of Gemma 3 (positions not from the mask) change answers: the test above can fail."""
    loaded = build_tiny("gemma3", seed=1)
    batch = prompt_batch(context, [1, 2, 3])
    dynamic = _backend(context, loaded, **HOT, batch_size=5).judge(batch)
    monkeypatch.setattr(hf_static, "NO_PADDING", ())
    padded = _backend(context, loaded, **HOT, batch_size=5, static_cache=True).judge(batch)
    assert padded.response_text != dynamic.response_text


def test_greedy_and_checkpoint_settings_on_the_static_cache(context: StudyContext) -> None:
    model, processor = build_tiny("llava_next", seed=4)
    model.generation_config.top_k = 20
    model.generation_config.repetition_penalty = 1.3
    batch = prompt_batch(context, [1, 2])
    for settings in (HOT, {**HOT, "temperature": 0.0}):
        dynamic = _backend(context, (model, processor), **settings).judge(batch)
        static = _backend(context, (model, processor), **settings, static_cache=True).judge(batch)
        assert static.response_text == dynamic.response_text, settings


def test_buckets_and_groups() -> None:
    assert [hf_static.bucket(n, 8) for n in (1, 8, 9, 16)] == [8, 8, 16, 16]
    assert hf_static.bucket(37, 1) == 37
    assert hf_static.static_groups([33, 38, 41, 35, 40], 2, 8) == [(40, [0, 1]), (40, [3, 4]), (48, [2])]
    assert hf_static.static_groups([5, 7, 5], 4, 1) == [(5, [0, 2]), (7, [1])]


def test_row_bytes_and_auto_batch_size() -> None:
    model, _ = build_tiny("llava_next", seed=1)
    text = model.config.get_text_config(decoder=True)
    kv_heads = text.num_key_value_heads or text.num_attention_heads
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    # keys and values of every layer in float32 (4 bytes) for 256 positions, plus 4 rows of logits
    expected = 2 * text.num_hidden_layers * kv_heads * head_dim * 256 * 4 + 16 * text.vocab_size
    assert hf_static.row_bytes(model, 256) == expected
    assert hf_static.auto_batch_size(model, 256) == hf_static.CPU_BATCH  # no CUDA here
    assert hf_static.rows_per_call("auto", model, 256, 300) == hf_static.CPU_BATCH
    assert hf_static.rows_per_call(3, model, 256, 300) == 3  # on CUDA: tests/inference/test_hf_batch_size.py


def test_settings() -> None:
    def settings(**values: Any) -> Any:
        return parse_settings(
            ModelConfig(model_id="m", backend="transformers", checkpoint="c", settings=values)
        )

    defaults = settings()
    assert defaults.static_cache is False and defaults.compile is False and defaults.batch_size == "auto"
    assert settings(batch_size="auto", static_cache=True, compile=True).batch_size == "auto"
    with pytest.raises(ConfigError, match=r"^model 'm': settings.batch_size: .*greater than or equal to 1"):
        settings(batch_size=0)
    with pytest.raises(ConfigError, match="compile = true needs static_cache = true"):
        settings(compile=True)


@pytest.mark.skipif(torch.cuda.is_available(), reason="the refusal needs a machine without CUDA")
def test_a_missing_device_names_the_model(context: StudyContext) -> None:
    from cueshift.inference.backends.hf import TransformersBackend

    model = ModelConfig(model_id="m", backend="transformers", checkpoint="c", settings={"device": "cuda"})
    refusal = r"^model 'm': settings.device = 'cuda' but torch sees no CUDA device$"
    with pytest.raises(ConfigError, match=refusal):
        TransformersBackend(model, context, loaded=(None, None))  # refused before the weights are used


def test_compiled_calls_keep_one_shape(context: StudyContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``compile``, short calls are filled to ``batch_size`` rows and one cache length is used per
    image (no recompilation); the filler rows are dropped. Decoding itself runs eager here (the CPU
    compiler takes minutes; the compiled run is in test_hf_cuda.py)."""
    shapes: list[tuple[int, int]] = []
    eager = hf_static.generate_static_group

    def recorded(pool: Any, prefix: Any, prompts: Any, *args: Any, **kwargs: Any) -> Any:
        shapes.append((len(prompts), kwargs["cache_len"]))
        return eager(pool, prefix, prompts, *args, **{**kwargs, "compile": False})

    monkeypatch.setattr(hf_static, "generate_static_group", recorded)
    loaded = build_tiny("llava_next", seed=1)
    batch = prompt_batch(context, [1, 2, 3])
    dynamic = _backend(context, loaded, **HOT, batch_size=5).judge(batch)
    compiled = _backend(context, loaded, **HOT, batch_size=5, static_cache=True, compile=True).judge(batch)
    assert compiled.response_text == dynamic.response_text
    assert {rows for rows, _ in shapes} == {5} and len({n for _, n in shapes}) <= len(context.images)
