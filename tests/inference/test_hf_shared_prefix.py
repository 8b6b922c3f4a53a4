"""Shared-prefix decoding (:mod:`cueshift.inference.backends.hf_shared_prefix`), tiny models of every class.

Float32 on the CPU: with one copy of the image prefix's cache for all rows (the default), each
row's answer equals the batched path with per-row copies and the per-prompt loop, hot (T = 1.5,
so a moved position, a lost seed or a wrong mask would change answers) and at the protocol's
T = 0.2. Each test also counts the cascade's calls, so a silent fallback to plain attention
cannot pass, and :func:`test_a_wrong_merge_would_show` checks that dropping the prefix's part
changes answers. In bfloat16 the answer distribution stays the float32 one (counts).
"""

from __future__ import annotations

from typing import Any, cast

import polars as pl
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.usefixtures("quiet_torch")  # torch on one thread (tests/inference/conftest.py)

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.inference.backends import hf_cascade, hf_shared_attention, hf_shared_prefix  # noqa: E402
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


@pytest.fixture
def cascade_calls(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Counts of the cascade's calls (and of those with a masked prefix: sliding windows)."""
    calls = {"cascade": 0, "masked_prefix": 0}
    real = hf_cascade.cascade_attention

    def counted(query: Any, keys: Any, values: Any, prefix_mask: Any, *rest: Any) -> Any:
        calls["cascade"] += 1
        calls["masked_prefix"] += prefix_mask is not None
        return real(query, keys, values, prefix_mask, *rest)

    monkeypatch.setattr(hf_shared_attention, "cascade_attention", counted)
    return calls


@pytest.mark.parametrize("arch", list(ARCHS))
def test_shared_prefix_gives_the_answers_of_the_copied_prefix_and_the_per_prompt_loop(
    arch: str, context: StudyContext, cascade_calls: dict[str, int]
) -> None:
    loaded = build_tiny(arch, seed=1)
    batch = prompt_batch(context, [1, 2, 3])
    copied = _backend(context, loaded, **HOT, batch_size=5, shared_prefix_attention=False).judge(batch)
    assert cascade_calls["cascade"] == 0
    shared = _backend(context, loaded, **HOT, batch_size=5).judge(batch)
    assert cascade_calls["cascade"] > 0, f"{arch}: the shared-prefix attention did not run"
    assert shared.response_text == copied.response_text, arch
    assert len(set(shared.response_text)) > 1, f"{arch}: hot sampling should vary between seeds"
    assert all(ms > 0 for ms in shared.latency_ms)
    # another batch size and row order (other paddings and groups): same answers
    again = _backend(context, loaded, **HOT, batch_size=16).judge(batch.reverse())
    assert again.response_text[::-1] == shared.response_text, arch
    single = _backend(context, loaded, **HOT, batch_size=1).judge(batch.head(12))
    assert single.response_text == shared.response_text[:12], arch
    if arch == "gemma3":  # its tiny window (64) is shorter than the prefix: the window masks it
        assert cascade_calls["masked_prefix"] > 0


@pytest.mark.parametrize("arch", ["llava_next", "qwen2_vl", "gemma3"])
def test_score_mode_scores_on_one_copy_of_the_prefix(
    arch: str, context: StudyContext, cascade_calls: dict[str, int]
) -> None:
    """Score mode's batched suffixes attend to one copy too: the probabilities of the per-row copies."""
    loaded = build_tiny(arch, seed=1)
    batch = prompt_batch(context, [0])
    copied = _backend(context, loaded, mode="score", batch_size=5, shared_prefix_attention=False).judge(batch)
    assert cascade_calls["cascade"] == 0
    shared = _backend(context, loaded, mode="score", batch_size=5).judge(batch)
    assert cascade_calls["cascade"] > 0, f"{arch}: score mode did not use the shared prefix"
    assert shared.p_favorable == pytest.approx(copied.p_favorable, abs=1e-5)
    assert shared.p_neither == pytest.approx(copied.p_neither, abs=1e-5)


@pytest.mark.parametrize("arch", ["llava_next", "qwen2_vl", "gemma3"])
def test_protocol_temperature_answers_equal(arch: str, context: StudyContext) -> None:
    """T = 0.2 (the paper's protocol), 8 new tokens, the same seeds: the same answers."""
    loaded = build_tiny(arch, seed=2)
    batch = prompt_batch(context, [4, 5])
    cool = {**HOT, "temperature": 0.2, "max_new_tokens": 8}
    shared = _backend(context, loaded, **cool, batch_size=32).judge(batch)
    copied = _backend(context, loaded, **cool, batch_size=32, shared_prefix_attention=False).judge(batch)
    assert shared.response_text == copied.response_text, arch


def test_a_wrong_merge_would_show(context: StudyContext, monkeypatch: pytest.MonkeyPatch) -> None:
    """Attention that forgets the prefix's part changes answers: the tests above can fail."""
    loaded = build_tiny("llava_next", seed=1)
    batch = prompt_batch(context, [1, 2])
    copied = _backend(context, loaded, **HOT, shared_prefix_attention=False).judge(batch)

    def suffix_only(out_a: Any, lse_a: Any, out_b: Any, lse_b: Any) -> Any:
        return out_b

    monkeypatch.setattr(hf_cascade, "merge_partials", suffix_only)
    wrong = _backend(context, loaded, **HOT).judge(batch)
    assert wrong.response_text != copied.response_text


def test_architectures_outside_the_list_copy_the_prefix(
    context: StudyContext, cascade_calls: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hf_shared_prefix, "SHARED_PREFIX_TYPES", ())
    loaded = build_tiny("idefics3", seed=1)
    batch = prompt_batch(context, [1])
    fallback = _backend(context, loaded, **HOT).judge(batch)
    assert cascade_calls["cascade"] == 0
    single = _backend(context, loaded, **HOT, batch_size=1).judge(batch)
    assert fallback.response_text == single.response_text


@pytest.mark.parametrize("arch", ["llava_next", "qwen2_vl"])
def test_bfloat16_keeps_the_answer_distribution(arch: str, context: StudyContext) -> None:
    r"""bfloat16 shared-prefix decoding against float32 with per-row copies, the first new token of
    240 rows with the same seeds: the counts stay close, total variation
    :math:`\tfrac12 \sum_t |\hat p_t - \hat q_t| < 0.15`."""
    batch = prompt_batch(context, list(range(1, 11)))
    one = {**HOT, "temperature": 1.0, "max_new_tokens": 1, "batch_size": 64}
    exact = _backend(context, build_tiny(arch, seed=1), **one, shared_prefix_attention=False).judge(batch)
    low = _backend(context, build_tiny(arch, seed=1), **one, dtype="bfloat16").judge(batch)
    counts = pl.Series("answer", exact.response_text).value_counts()
    counts_low = pl.Series("answer", low.response_text).value_counts()
    joined = counts.join(counts_low, on="answer", how="full", coalesce=True, suffix="_low").fill_null(0)
    gaps = joined["count"].cast(pl.Int64) - joined["count_low"].cast(pl.Int64)
    tv = 0.5 * float(gaps.abs().sum()) / len(exact.response_text)
    assert len(counts) > 5, f"{arch}: the first tokens should vary"
    assert tv < 0.15, (arch, tv)


def test_the_prefix_is_held_once_and_left_unchanged() -> None:
    from cueshift.inference.backends.hf_shared_attention import SharedPrefixCache

    model, _ = build_tiny("llava_next", seed=1)
    ids = torch.randint(5, 50, (1, 9))
    prefix = model(input_ids=ids, use_cache=True).cache
    shared = SharedPrefixCache(prefix)
    suffix = torch.randint(5, 50, (4, 3))
    with torch.inference_mode(), hf_shared_attention.shared_prefix_attention_on(model):
        out = model(input_ids=suffix, cache=shared, use_cache=True).logits
    assert prefix.get_seq_length() == 9 and shared.get_seq_length() == 12
    for source, layer in zip(prefix.layers, shared.layers, strict=True):
        source, layer = cast(Any, source), cast(Any, layer)
        assert layer.prefix_keys.data_ptr() == source.keys.data_ptr() and layer.prefix_keys.shape[0] == 1
        assert layer.keys.shape[:3] == (4, source.keys.shape[1], 3)  # each row's suffix only
    # the full sequences in one plain pass (no cache): the same last logits
    full = torch.cat([ids.expand(4, -1), suffix], dim=1)
    torch.testing.assert_close(out, model(input_ids=full).logits[:, 9:], atol=1e-5, rtol=0)
    assert model.config.get_text_config(decoder=True)._attn_implementation == "sdpa"  # restored


def test_groups_and_settings() -> None:
    groups = hf_shared_prefix.shared_groups
    assert groups([5, 9, 5, 7, 6], 2, pad=True) == [(5, [0, 2]), (7, [3, 4]), (9, [1])]
    assert groups([5, 9, 5, 7], 8, pad=True) == [(9, [0, 1, 2, 3])]
    assert groups([5, 9, 5, 7], 8, pad=False) == [(5, [0, 2]), (9, [1]), (7, [3])]
    model, _ = build_tiny("llava_next", seed=1)
    assert hf_shared_prefix.shared_batch_size(model, 1 << 20) == 32  # no CUDA: the CPU's rows per call

    def settings(**values: Any) -> Any:
        return parse_settings(
            ModelConfig(model_id="m", backend="transformers", checkpoint="c", settings=values)
        )

    assert settings().shared_prefix_attention is True
    assert settings(shared_prefix_attention=False).shared_prefix_attention is False
