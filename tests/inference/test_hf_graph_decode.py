"""Fixed-shape shared-prefix decoding (:mod:`cueshift.inference.backends.hf_graph_decode`) on the CPU.

On the CPU the step runs eagerly: the same buffers and arithmetic the CUDA graph replays
(tests/inference/test_hf_cuda.py checks the replay). Float32, tiny models of each class in
:data:`GRAPH_TYPES`: every row's answer equals the shared-prefix ``generate`` path and the
per-prompt loop, hot (T = 1.5) and at the protocol's T = 0.2. The step dispatches no operation
that reads a tensor back to the host (what a CUDA graph cannot capture), and a step that forgets
its mask column changes answers, so these tests can fail.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.usefixtures("quiet_torch")  # torch on one thread (tests/inference/conftest.py)

from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.errors import ConfigError, CueshiftError  # noqa: E402
from cueshift.inference.backends import hf_graph_decode, hf_graph_state, hf_shared_attention  # noqa: E402
from cueshift.inference.backends.base import StudyContext  # noqa: E402
from cueshift.inference.backends.hf_settings import parse_settings  # noqa: E402
from cueshift.inference.stand_ins.tiny import ARCHS, build_tiny  # noqa: E402
from cueshift.study.config import ModelConfig  # noqa: E402
from tests.inference.random_faces import HOT, VARIED_LENGTHS, prompt_batch, random_faces, tiny_backend  # noqa: E402

SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25 if s.scenario_id in VARIED_LENGTHS}
#: the tiny classes of GRAPH_TYPES ("pixtral" is model type "llava"): all of them
GRAPH_ARCHS = list(ARCHS)
#: rows per image of prompt_batch(context, [1, 2, 3])
ROWS_PER_IMAGE = len(SCENARIOS) * 4 * 3
#: operations that copy a tensor's value to the host, or a tensor made from Python data to the
#: device (``torch.tensor``: a pageable copy): a CUDA graph cannot capture them
HOST_READS = {
    "aten._local_scalar_dense",
    "aten.nonzero",
    "aten.is_nonzero",
    "aten.masked_select",
    "aten.item",
    "aten.lift_fresh",
}


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> StudyContext:
    return random_faces(tmp_path_factory.mktemp("images"), 3, SCENARIOS)


@pytest.fixture
def graph_calls(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts of the fixed-shape calls and of the buffers (states) they allocated."""
    calls: Counter[str] = Counter()
    real_group, real_state = hf_graph_decode.GraphDecoder.generate_group, hf_graph_state.GraphState.__init__

    def group(*args: Any, **kwargs: Any) -> Any:
        calls["group"] += 1
        return real_group(*args, **kwargs)

    def state(self: Any, *args: Any) -> None:
        calls["state"] += 1
        real_state(self, *args)

    monkeypatch.setattr(hf_graph_decode.GraphDecoder, "generate_group", group)
    monkeypatch.setattr(hf_graph_state.GraphState, "__init__", state)
    return calls


@pytest.mark.parametrize("arch", GRAPH_ARCHS)
def test_fixed_shape_decoding_gives_the_shared_prefix_and_per_prompt_answers(
    arch: str, context: StudyContext, graph_calls: Counter[str]
) -> None:
    loaded = build_tiny(arch, seed=1)
    if arch == "gemma3":  # its tiny window (64) is shorter than the prefix: widen it past the call
        loaded[0].config.get_text_config(decoder=True).sliding_window = 4096
    batch = prompt_batch(context, [1, 2, 3])
    shared = tiny_backend(context, loaded, **HOT, batch_size=32).judge(batch)
    assert graph_calls["group"] == 0
    graphed = tiny_backend(context, loaded, **HOT, batch_size=32, cuda_graph=True).judge(batch)
    # rows of every suffix width padded into calls of 32 (Qwen-VL and Gemma 3 too)
    assert graph_calls["group"] == 2 * -(-ROWS_PER_IMAGE // 32), (arch, graph_calls)
    assert graphed.response_text == shared.response_text, arch
    assert len(set(graphed.response_text)) > 1, f"{arch}: hot sampling should vary between seeds"
    single = tiny_backend(context, loaded, **HOT, batch_size=1).judge(batch.head(12))
    assert graphed.response_text[:12] == single.response_text, arch
    # other call shapes and row orders: same answers
    again = tiny_backend(context, loaded, **HOT, batch_size=7, cuda_graph=True).judge(batch.reverse())
    assert again.response_text[::-1] == shared.response_text, arch


@pytest.mark.parametrize("temperature", [0.2, 0.0])
def test_protocol_temperature_and_greedy_answers_equal(temperature: float, context: StudyContext) -> None:
    loaded = build_tiny("llava_next", seed=2)
    batch = prompt_batch(context, [4, 5])
    cool = {**HOT, "temperature": temperature, "max_new_tokens": 8, "batch_size": 32}
    graphed = tiny_backend(context, loaded, **cool, cuda_graph=True).judge(batch)
    assert graphed.response_text == tiny_backend(context, loaded, **cool).judge(batch).response_text


def test_the_buffers_are_kept_for_calls_of_one_shape(
    context: StudyContext, graph_calls: Counter[str]
) -> None:
    """A second call of the same shape (the same image's prompts again) reuses the buffers, with the
    new call's prefix copied in: the same answers, no new allocation."""
    import polars as pl

    loaded = build_tiny("llava_next", seed=1)
    backend = tiny_backend(context, loaded, **HOT, batch_size=32, cuda_graph=True)
    one_image = prompt_batch(context, [1, 2]).filter(pl.col("image_id") == "face1")
    first = backend.judge(one_image)
    backend.judge(prompt_batch(context, [3]).filter(pl.col("image_id") == "face0"))  # another shape between
    assert backend.judge(one_image).response_text == first.response_text
    assert graph_calls["group"] == 3 and graph_calls["state"] == 3
    again = backend.judge(one_image)
    assert again.response_text == first.response_text
    assert graph_calls["group"] == 4 and graph_calls["state"] == 3  # kept


def test_rows_that_differ_only_in_their_seed_share_one_prefill(
    context: StudyContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3 seeds of each prompt: the suffix prefill runs each distinct prompt once (a third of the rows),
    and every row still draws its own answer (tested equal to the per-prompt loop above)."""
    prefilled: list[int] = []
    real = hf_graph_state.GraphState.prefill

    def counted(self: Any, tokens: Any, *args: Any) -> Any:
        prefilled.append(tokens.shape[0])
        return real(self, tokens, *args)

    monkeypatch.setattr(hf_graph_state.GraphState, "prefill", counted)
    loaded = build_tiny("llava_next", seed=1)
    batch = prompt_batch(context, [1, 2, 3])
    graphed = tiny_backend(context, loaded, **HOT, batch_size=ROWS_PER_IMAGE, cuda_graph=True).judge(batch)
    assert prefilled == [ROWS_PER_IMAGE // 3] * 2  # one call per image, each prompt once
    assert len(set(graphed.response_text[:ROWS_PER_IMAGE])) > ROWS_PER_IMAGE // 3  # seeds still differ


class _HostReads(TorchDispatchMode):
    def __init__(self) -> None:
        super().__init__()
        self.ops: Counter[str] = Counter()

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.ops[str(func.overloadpacket)] += 1
        return func(*args, **(kwargs or {}))


def _one_step(arch: str, step: Any = None) -> Counter[str]:
    model, _ = build_tiny(arch, seed=1)
    with torch.inference_mode():
        prefix = model(input_ids=torch.randint(5, 50, (1, 12)), use_cache=True).cache
        state = hf_graph_decode.GraphDecoder(model).state_for(prefix, 3, 4, 5)
        mask, positions = hf_graph_decode._prefill_inputs(torch.ones(3, 16, dtype=torch.long), 12, 21)
        with hf_shared_attention.shared_prefix_attention_on(model):
            state.prefill(torch.randint(5, 50, (3, 4)), mask, positions, torch.arange(3))
            seen = _HostReads()
            with seen:
                (step or hf_graph_state.GraphState.step)(state)
    return seen.ops


@pytest.mark.parametrize("arch", GRAPH_ARCHS)
def test_the_step_never_reads_a_tensor_back_to_the_host(arch: str) -> None:
    ops = _one_step(arch)
    assert sum(ops.values()) > 50  # the model ran under the detector
    assert not HOST_READS & set(ops), (arch, HOST_READS & set(ops))
    # the detector sees a read-back, and a tensor made from Python data, when there is one
    leaky = _one_step(arch, lambda state: float(hf_graph_state.GraphState.step(state).sum()))
    assert HOST_READS & set(leaky)
    made = _one_step(arch, lambda state: hf_graph_state.GraphState.step(state) + torch.tensor([1.0]))
    assert "aten.lift_fresh" in made


def test_a_step_without_its_mask_column_would_show(
    context: StudyContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = build_tiny("llava_next", seed=1)
    batch = prompt_batch(context, [1, 2])
    right = tiny_backend(context, loaded, **HOT, batch_size=32).judge(batch)

    def blind(self: Any) -> Any:
        self.positions.add_(1)
        self.write_index.add_(1)
        return self.forward(self.tokens, self.mask, self.positions)

    monkeypatch.setattr(hf_graph_state.GraphState, "step", blind)
    wrong = tiny_backend(context, loaded, **HOT, batch_size=32, cuda_graph=True).judge(batch)
    assert wrong.response_text != right.response_text


def test_a_window_shorter_than_the_call_takes_the_generate_path(
    context: StudyContext, graph_calls: Counter[str]
) -> None:
    loaded = build_tiny("llava_next", seed=1)
    loaded[0].config.get_text_config(decoder=True).sliding_window = 8
    batch = prompt_batch(context, [1])
    windowed = tiny_backend(context, loaded, **HOT, cuda_graph=True).judge(batch)
    assert graph_calls["group"] == 0
    assert (
        windowed.response_text
        == tiny_backend(context, loaded, **HOT, batch_size=1).judge(batch).response_text
    )


def test_what_the_path_does_not_reproduce_is_refused_in_one_line(
    context: StudyContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patched:
        patched.setattr(hf_graph_decode, "GRAPH_TYPES", ("llava",))
        with pytest.raises(
            ConfigError, match=r"^model 'tiny': settings.cuda_graph: model type 'qwen2_vl'[^\n]*$"
        ):
            tiny_backend(context, build_tiny("qwen2_vl", seed=1), **HOT, cuda_graph=True)
    loaded = build_tiny("llava_next", seed=1)
    loaded[0].generation_config.repetition_penalty = 1.3
    with pytest.raises(
        ConfigError, match=r"settings.cuda_graph: the generation setting repetition_penalty = 1.3"
    ):
        tiny_backend(context, loaded, **HOT, cuda_graph=True)
    tiny_backend(context, loaded, mode="score", cuda_graph=True)  # score mode does not decode

    def settings(**values: Any) -> Any:
        return parse_settings(
            ModelConfig(model_id="m", backend="transformers", checkpoint="c", settings=values)
        )

    assert settings().cuda_graph is False
    for clash in ({"static_cache": True}, {"shared_prefix_attention": False}):
        with pytest.raises(ConfigError, match=r"^model 'm': settings.<settings>: .*cuda_graph = true needs"):
            settings(cuda_graph=True, **clash)


def test_a_study_judged_with_cuda_graph_stores_the_answers_of_the_generate_path(tmp_path: Any) -> None:
    """studies/tiny-transformers.toml in generate mode (3 seeds, hot) through the runner, once with
    ``cuda_graph = true`` and once without: the same stored answers for every judgment."""
    import duckdb

    from cueshift.designs.registry import load_study
    from cueshift.execution.run_options import RunOptions
    from cueshift.execution.runner import run_study
    from cueshift.inference.stand_ins.tiny import build_tiny_model
    from tests.inference.random_faces import HOT

    study = load_study(Path(__file__).parents[2] / "studies" / "tiny-transformers.toml")
    (model,) = study.models
    checkpoint = build_tiny_model("llava_next", tmp_path / "ckpt")
    stored = []
    for graph in (False, True):
        settings = {**model.settings, **HOT, "cuda_graph": graph}
        judge = model.model_copy(update={"checkpoint": str(checkpoint), "settings": settings})
        run = study.model_copy(
            update={
                "models": [judge],
                "seeds": [1, 2, 3],
                "image_set": study.image_set.model_copy(update={"cache_dir": tmp_path / "demo"}),
            }
        )
        database = tmp_path / f"graph-{graph}.duckdb"
        run_study(run, RunOptions(database=database, progress=False))
        with duckdb.connect(str(database), read_only=True) as con:
            stored.append(
                con.execute(
                    "SELECT image_id, scenario_id, ordering, seed, response_text, outcome FROM judgment "
                    "ORDER BY ALL"
                ).fetchall()
            )
    plain, graphed = stored
    assert len(plain) > 100 and graphed == plain
    assert len({row[4] for row in plain}) > 10  # hot answers vary: a wrong row would show


class _FakeCuda:
    """Stands in for torch.cuda's streams and graphs on the CPU: records what the state asks of them."""

    def __init__(self, fail_capture: bool) -> None:
        self.calls: list[str] = []
        self.fail_capture = fail_capture
        self.captured: Any = None
        self.capturing = False  # capture records the step's work; it runs nothing

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from contextlib import contextmanager

        fake = self

        class Stream:
            def wait_stream(self, other: Any) -> None:
                fake.calls.append("wait")

        class Graph:
            def replay(self) -> None:
                fake.calls.append("replay")
                fake.captured()  # a replay re-runs the captured work

        @contextmanager
        def stream(_: Any) -> Any:
            fake.calls.append("side stream")
            yield

        @contextmanager
        def graph(_: Any) -> Any:
            fake.calls.append("capture")
            if fake.fail_capture:
                raise RuntimeError("operation not permitted when stream is capturing\nmore detail")
            fake.capturing = True
            try:
                yield
            finally:
                fake.capturing = False

        monkeypatch.setattr(hf_graph_state, "captures", lambda tensor: True)
        monkeypatch.setattr(torch.cuda, "Stream", Stream)
        monkeypatch.setattr(torch.cuda, "current_stream", lambda: Stream())
        monkeypatch.setattr(torch.cuda, "stream", stream)
        monkeypatch.setattr(torch.cuda, "CUDAGraph", Graph)
        monkeypatch.setattr(torch.cuda, "graph", graph)


@pytest.mark.parametrize("fail_capture", [False, True])
def test_warm_up_then_capture_then_replay(
    fail_capture: bool, context: StudyContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first step runs on a side stream, the second is captured (and replayed: capture runs
    nothing), later ones replay; a capture that fails is one line naming the setting."""
    fake = _FakeCuda(fail_capture)
    real_step = hf_graph_state.GraphState.step

    def step(self: Any) -> Any:
        fake.calls.append("step")
        if not fake.capturing:
            return real_step(self)
        out = torch.empty(0)  # the graph's output: filled in place by each replay
        fake.captured = lambda: out.set_(real_step(self))
        return out

    monkeypatch.setattr(hf_graph_state.GraphState, "step", step)
    loaded = build_tiny("llava_next", seed=1)
    batch = prompt_batch(context, [1, 2]).head(8)
    reference = tiny_backend(context, loaded, **HOT).judge(batch)
    fake.install(monkeypatch)
    backend = tiny_backend(context, loaded, **HOT, cuda_graph=True)
    if fail_capture:
        one_line = (
            r"^cuda_graph: capturing the decoding step failed: operation not permitted when stream is "
            r"capturing; set cuda_graph = false$"
        )
        with pytest.raises(CueshiftError, match=one_line):
            backend.judge(batch)
        return
    answers = backend.judge(batch)
    # 4 decoding steps (5 new tokens): eager warm-up, capture (the step traced once), 3 replays
    warm_up, capture = ["wait", "side stream", "step", "wait"], ["capture", "step"]
    assert fake.calls == [*warm_up, *capture, "replay", "replay", "replay"]
    assert answers.response_text == reference.response_text  # the replays ran the real step
