"""The transformers and CLIP backends on a CUDA device (skipped where torch sees none).

The CPU tests prove every code path; these run the same tiny random models of the real
architecture classes on the GPU and hold them to the CPU: in float32, score mode gives the
CPU's probabilities (cuDNN's TF32 convolutions switched off, so both sides compute in
float32); batched generate mode equals the per-prompt loop row for row (each row's generator
lives on the GPU); ``device = "auto"`` picks the GPU and ``dtype = "auto"`` bfloat16, whose
probabilities stay near float32's. CI has no GPU: these run on a lent GPU machine (see
BENCHMARKS.md, GPU figures).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import polars as pl
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = [
    pytest.mark.skipif(not torch.cuda.is_available(), reason="torch sees no CUDA device"),
    pytest.mark.usefixtures("quiet_torch"),
]


from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.inference.backends.base import StudyContext  # noqa: E402
from cueshift.inference.backends.clip import ClipBackend  # noqa: E402
from cueshift.inference.backends.hf import TransformersBackend  # noqa: E402
from cueshift.inference.stand_ins.tiny import ARCHS, build_tiny  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import TINY_CLIP_CHECKPOINT  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from tests.inference.random_faces import prompt_batch, random_faces  # noqa: E402

KEEP = {"competent", "emotionally_stable", "trustworthy"}
SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25 if s.scenario_id in KEEP}
HOT = {"mode": "generate", "temperature": 1.5, "max_new_tokens": 5}


@pytest.fixture(scope="module", autouse=True)
def exact_float32() -> Iterator[None]:
    """No TF32 in convolutions or matmuls while these tests run."""
    conv, matmul = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    yield
    torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = conv, matmul


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> StudyContext:
    return random_faces(tmp_path_factory.mktemp("images"), 5, SCENARIOS)


def _batch(context: StudyContext, seeds: list[int]) -> pl.DataFrame:
    return prompt_batch(context, seeds)


def _backend(context: StudyContext, arch: str, **settings: Any) -> TransformersBackend:
    """A backend on a fresh copy of the tiny model (the backend moves the model it is given)."""
    cfg = ModelConfig(model_id="tiny", backend="transformers", checkpoint="in-memory", settings=settings)
    return TransformersBackend(cfg, context, loaded=build_tiny(arch, seed=1))


@pytest.mark.parametrize("arch", list(ARCHS))
def test_score_mode_on_the_gpu_gives_the_cpu_probabilities(arch: str, context: StudyContext) -> None:
    batch = _batch(context, [0])
    cpu = _backend(context, arch, mode="score", device="cpu", dtype="float32").judge(batch)
    gpu_backend = _backend(context, arch, mode="score", device="cuda", dtype="float32")
    assert gpu_backend.hf_model.device.type == "cuda"
    gpu = gpu_backend.judge(batch)
    assert cpu.p_favorable is not None and gpu.p_favorable is not None
    assert cpu.p_neither is not None and gpu.p_neither is not None
    np.testing.assert_allclose(_floats(gpu.p_favorable), _floats(cpu.p_favorable), atol=1e-4, err_msg=arch)
    np.testing.assert_allclose(_floats(gpu.p_neither), _floats(cpu.p_neither), atol=1e-4, err_msg=arch)
    assert gpu.response_text == cpu.response_text or _near_half(cpu.p_favorable), arch


def _floats(values: list[float | None]) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def _near_half(p_favorable: list[float | None]) -> bool:
    """Greedy letters may differ only where P(favorable) is within float noise of 1/2."""
    return any(p is not None and abs(p - 0.5) < 1e-4 for p in p_favorable)


@pytest.mark.parametrize("arch", list(ARCHS))
def test_auto_settings_pick_the_gpu_in_bfloat16(arch: str, context: StudyContext) -> None:
    batch = _batch(context, [0])
    auto = _backend(context, arch, mode="score")
    assert auto.device == "cuda" and auto.dtype == torch.bfloat16
    low = auto.judge(batch)
    exact = _backend(context, arch, mode="score", device="cpu", dtype="float32").judge(batch)
    assert low.p_favorable is not None and exact.p_favorable is not None
    p_low, p_exact = _floats(low.p_favorable), _floats(exact.p_favorable)
    assert np.isfinite(p_low).all() and ((p_low >= 0) & (p_low <= 1)).all()
    # bfloat16 keeps 8 bits of mantissa: probabilities move, but not far
    assert np.max(np.abs(p_low - p_exact)) < 0.1, arch


@pytest.mark.parametrize("arch", list(ARCHS))
def test_batched_generate_on_the_gpu_equals_the_per_prompt_loop(arch: str, context: StudyContext) -> None:
    batch = _batch(context, [1, 2, 3])
    batched = _backend(context, arch, **HOT, batch_size=5, device="cuda", dtype="float32").judge(batch)
    single = _backend(context, arch, **HOT, batch_size=1, device="cuda", dtype="float32").judge(batch)
    assert batched.response_text == single.response_text, arch
    assert len(set(batched.response_text)) > 1, f"{arch}: hot sampling should vary between seeds"


def test_clip_on_the_gpu_gives_the_cpu_scores(context: StudyContext) -> None:
    batch = _batch(context, [0])

    def judged(**settings: Any) -> Any:
        cfg = ModelConfig(
            model_id="tiny-clip", backend="clip", checkpoint=TINY_CLIP_CHECKPOINT, settings=settings
        )
        return ClipBackend(cfg, context).judge(batch)

    cpu, gpu = judged(device="cpu"), judged(device="cuda", dtype="float32")
    assert cpu.p_favorable is not None and gpu.p_favorable is not None
    np.testing.assert_allclose(_floats(gpu.p_favorable), _floats(cpu.p_favorable), atol=1e-4)
    half = judged(device="cuda")  # auto: float16 on cuda
    assert half.p_favorable is not None
    np.testing.assert_allclose(_floats(half.p_favorable), _floats(cpu.p_favorable), atol=0.05)


@pytest.mark.parametrize("arch", list(ARCHS))
def test_static_cache_on_the_gpu_equals_the_batched_path(arch: str, context: StudyContext) -> None:
    """float32: the static cache (rows padded to buckets) gives the batched path's answers row for row."""
    batch = _batch(context, [1, 2, 3])
    gpu = {"device": "cuda", "dtype": "float32", "batch_size": 5}
    dynamic = _backend(context, arch, **HOT, **gpu).judge(batch)
    static = _backend(context, arch, **HOT, **gpu, static_cache=True).judge(batch)
    assert static.response_text == dynamic.response_text, arch


def test_compiled_static_decoding_on_the_gpu_equals_the_batched_path(context: StudyContext) -> None:
    """float32, LLaVA-NeXT (the 7b benchmark's class): torch.compile'd decoding, same answers."""
    batch = _batch(context, [1, 2, 3])
    gpu = {"device": "cuda", "dtype": "float32", "batch_size": 8}
    dynamic = _backend(context, "llava_next", **HOT, **gpu).judge(batch)
    compiled = _backend(context, "llava_next", **HOT, **gpu, static_cache=True, compile=True).judge(batch)
    assert compiled.response_text == dynamic.response_text


@pytest.mark.parametrize("arch", ["llava_next", "qwen2_vl"])
def test_bfloat16_static_cache_keeps_the_answer_distribution(arch: str, context: StudyContext) -> None:
    r"""bfloat16 on the static cache (compiled for LLaVA-NeXT) against float32's batched path, the
    first new token of 480 rows with the same seeds: bfloat16 moves a draw only where it falls near a
    cumulative-probability boundary, so the answer counts stay close, total variation
    :math:`\tfrac12 \sum_t |\hat p_t - \hat q_t| < 0.15`."""
    batch = _batch(context, list(range(1, 21)))
    one = {**HOT, "temperature": 1.0, "max_new_tokens": 1, "device": "cuda", "batch_size": 32}
    exact = _backend(context, arch, **one, dtype="float32").judge(batch).response_text
    low = _backend(
        context, arch, **one, dtype="bfloat16", static_cache=True, compile=arch == "llava_next"
    ).judge(batch)
    counts_exact = pl.Series("answer", exact).value_counts()
    counts_low = pl.Series("answer", low.response_text).value_counts()
    joined = counts_exact.join(counts_low, on="answer", how="full", coalesce=True, suffix="_low").fill_null(0)
    gaps = joined["count"].cast(pl.Int64) - joined["count_low"].cast(pl.Int64)  # counts are unsigned
    tv = 0.5 * float(gaps.abs().sum()) / len(exact)
    assert len(counts_exact) > 5, f"{arch}: the first tokens should vary"
    assert tv < 0.15, (arch, tv)


@pytest.mark.parametrize("arch", list(ARCHS))
def test_shared_prefix_on_the_gpu_equals_the_copied_prefix(arch: str, context: StudyContext) -> None:
    """float32: one copy of the image prefix for all rows (cascade attention, the default) gives the
    answers of the per-row copies and of the per-prompt loop, row for row."""
    batch = _batch(context, [1, 2, 3])
    gpu = {"device": "cuda", "dtype": "float32"}
    copied = _backend(context, arch, **HOT, **gpu, batch_size=5, shared_prefix_attention=False).judge(batch)
    shared = _backend(context, arch, **HOT, **gpu, batch_size=16).judge(batch)
    single = _backend(context, arch, **HOT, **gpu, batch_size=1).judge(batch)
    assert shared.response_text == copied.response_text == single.response_text, arch


@pytest.mark.parametrize("arch", ["llava_next", "qwen2_vl"])
def test_bfloat16_shared_prefix_keeps_the_answer_distribution(arch: str, context: StudyContext) -> None:
    """bfloat16 shared-prefix decoding (flash kernel for the prefix part) against float32 with per-row
    copies, the first new token of 480 rows with the same seeds: total variation < 0.15."""
    batch = _batch(context, list(range(1, 21)))
    one = {**HOT, "temperature": 1.0, "max_new_tokens": 1, "device": "cuda", "batch_size": 64}
    exact = _backend(context, arch, **one, dtype="float32", shared_prefix_attention=False).judge(batch)
    low = _backend(context, arch, **one, dtype="bfloat16").judge(batch)
    counts_exact = pl.Series("answer", exact.response_text).value_counts()
    counts_low = pl.Series("answer", low.response_text).value_counts()
    joined = counts_exact.join(counts_low, on="answer", how="full", coalesce=True, suffix="_low").fill_null(0)
    gaps = joined["count"].cast(pl.Int64) - joined["count_low"].cast(pl.Int64)
    tv = 0.5 * float(gaps.abs().sum()) / len(exact.response_text)
    assert len(counts_exact) > 5, f"{arch}: the first tokens should vary"
    assert tv < 0.15, (arch, tv)


@pytest.mark.parametrize("arch", [a for a in ARCHS if a != "gemma3"])  # gemma3's tiny window: generate path
def test_cuda_graph_decoding_equals_the_eager_shared_prefix(arch: str, context: StudyContext) -> None:
    """float32: the decoding step captured as a CUDA graph and replayed (``cuda_graph = true``) gives the
    eager shared-prefix answers and the per-prompt loop's, row for row, also when replayed again."""
    batch = _batch(context, [1, 2, 3])
    gpu = {"device": "cuda", "dtype": "float32"}
    eager = _backend(context, arch, **HOT, **gpu, batch_size=16).judge(batch)
    single = _backend(context, arch, **HOT, **gpu, batch_size=1).judge(batch)
    backend = _backend(context, arch, **HOT, **gpu, batch_size=16, cuda_graph=True)
    graphed = backend.judge(batch)
    assert backend._graph.state is not None and backend._graph.state.graph is not None, "no graph captured"
    assert graphed.response_text == eager.response_text == single.response_text, arch
    assert backend.judge(batch.tail(12)).response_text == graphed.response_text[-12:], arch


def test_bfloat16_cuda_graph_gives_the_eager_answers(context: StudyContext) -> None:
    """bfloat16, 480 rows, 4 new tokens: the replayed graph runs the eager step's kernels on the same
    inputs, so its answers are the eager shared-prefix answers (at least 95 % of rows: a kernel chosen
    differently under capture may round differently; the eager path's own distribution is tested above)."""
    batch = _batch(context, list(range(1, 21)))
    four = {**HOT, "temperature": 1.0, "max_new_tokens": 4, "device": "cuda", "dtype": "bfloat16"}
    eager = _backend(context, "llava_next", **four, batch_size=64).judge(batch).response_text
    backend = _backend(context, "llava_next", **four, batch_size=64, cuda_graph=True)
    graphed = backend.judge(batch).response_text
    assert backend._graph.state is not None and backend._graph.state.graph is not None
    same = sum(a == b for a, b in zip(eager, graphed, strict=True)) / len(eager)
    assert len(set(eager)) > 20 and same >= 0.95, same


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_fused_prefix_kernels_on_the_gpu_equal_the_matrix_products(dtype: str) -> None:
    """The CUDA kernels of the prefix part (memory-efficient in float32, flash in bfloat16, each with
    its log-sum-exp) against the plain matrix products, at the 7 B benchmark's head shape."""
    from cueshift.inference.backends import hf_cascade

    g = torch.Generator(device="cuda").manual_seed(0)
    kind = getattr(torch, dtype)
    query = torch.randn(6, 32, 3, 128, generator=g, device="cuda", dtype=kind)
    pk, pv = (torch.randn(1, 8, 700, 128, generator=g, device="cuda", dtype=kind) for _ in range(2))
    sk, sv = (torch.randn(6, 8, 5, 128, generator=g, device="cuda", dtype=kind) for _ in range(2))
    mask = torch.ones(6, 1, 3, 5, dtype=torch.bool, device="cuda").tril(diagonal=2)
    fused = hf_cascade.cascade_attention(query, pk, pv, None, sk, sv, mask, 128**-0.5)
    assert hf_cascade.FUSED_PREFIX
    stacked = query.view(6, 8, 4, 3, 128).permute(1, 0, 2, 3, 4).reshape(1, 8, 72, 128)
    hf_cascade._fused_partial(stacked, pk, pv, 128**-0.5)  # raises if the kernel is not there
    hf_cascade.FUSED_PREFIX = False
    try:
        plain = hf_cascade.cascade_attention(query, pk, pv, None, sk, sv, mask, 128**-0.5)
    finally:
        hf_cascade.FUSED_PREFIX = True
    tolerance = 1e-5 if dtype == "float32" else 2e-2
    torch.testing.assert_close(fused.float(), plain.float(), atol=tolerance, rtol=0)
