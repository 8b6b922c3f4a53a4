"""The transformers backend's ``batch_size = "auto"`` (:mod:`cueshift.inference.backends.hf_batch_size`).

There is no GPU here: the CUDA queries are replaced (``torch.cuda.get_device_properties``,
``torch.cuda.mem_get_info``) and the model is a stand-in whose ``device`` is ``cuda`` and whose
config is a tiny model's. Before D56 the rows per call followed the free memory, so
:func:`test_auto_rows_do_not_follow_free_memory` failed; the calls of an image were
``cap, cap, ..., rest``, so :func:`test_an_image_is_cut_into_equal_calls` failed.
"""

from __future__ import annotations

import math
import pickle
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.usefixtures("quiet_torch")  # torch on one thread (tests/inference/conftest.py)

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25  # noqa: E402
from cueshift.errors import CueshiftError  # noqa: E402
from cueshift.inference.backends import hf_batch_size, hf_shared_prefix, hf_static  # noqa: E402
from cueshift.inference.backends.base import StudyContext  # noqa: E402
from cueshift.inference.stand_ins.tiny import build_tiny, build_tiny_model  # noqa: E402
from tests.inference.random_faces import HOT, prompt_batch, random_faces, tiny_backend  # noqa: E402

GIB = 1 << 30
SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25 if s.scenario_id in {"competent", "honest"}}


@pytest.fixture(scope="module")
def tiny() -> Any:
    return build_tiny("llava_next", seed=1)


@pytest.fixture
def on_cuda(tiny: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A stand-in of the tiny model on a CUDA card whose total and free memory the test sets
    (``card.total``, ``card.free``); weights of exactly 3 GiB."""
    model, _ = tiny
    card = SimpleNamespace(total=80 * GIB, free=80 * GIB)
    weights = [SimpleNamespace(numel=lambda: 3 * GIB // 2, element_size=lambda: 2)]  # 3 GiB of bfloat16
    monkeypatch.setattr(
        torch.cuda, "get_device_properties", lambda device=None: SimpleNamespace(total_memory=card.total)
    )
    monkeypatch.setattr(torch.cuda, "mem_get_info", lambda device=None: (card.free, card.total))
    stand_in = SimpleNamespace(
        device=torch.device("cuda"),
        config=model.config,
        dtype=torch.bfloat16,
        parameters=lambda: iter(weights),
        buffers=lambda: iter([]),
    )
    return stand_in, card


def _total_for(rows: float, per_row: int) -> int:
    """A card's total memory on which ``rows`` rows of ``per_row`` bytes fill 60 % of what the 3 GiB of
    weights leave (the rule of D56, spelled out independently of the code)."""
    return 3 * GIB + math.ceil(rows * per_row / 0.6)


def test_auto_rows_do_not_follow_free_memory(on_cuda: Any) -> None:
    model, card = on_cuda
    per_row = hf_static.row_bytes(model, 512)
    card.total = _total_for(100.5, per_row)
    seen = set()
    for free in (card.total - 3 * GIB, card.total // 2, card.total // 10):  # other processes come and go
        card.free = free
        seen.add(
            (
                hf_static.auto_batch_size(model, 512),
                hf_static.rows_per_call("auto", model, 512, 1001),
                hf_shared_prefix.shared_batch_size(model, per_row),
            )
        )
    assert seen == {(100, 91, 100)}  # 1001 rows: 11 calls of 91


def test_auto_rows_follow_total_memory_weights_and_share(on_cuda: Any) -> None:
    model, card = on_cuda
    per_row = hf_static.row_bytes(model, 512)
    card.total = _total_for(40.5, per_row)
    assert hf_static.auto_batch_size(model, 512) == 40
    card.total = _total_for(80.5, per_row)
    assert hf_static.auto_batch_size(model, 512) == 80
    # two replicas per card: each gets half of it, less its own weights
    card.total = 2 * _total_for(30.5, per_row)
    assert hf_static.auto_batch_size(model, 512, share=0.5) == 30
    assert hf_static.auto_batch_size(model, 512, share=2.0) == hf_static.auto_batch_size(model, 512)
    # the caps: at least one row, at most MAX_AUTO_BATCH (generate) / MAX_SHARED_BATCH (shared prefix)
    card.total = 3 * GIB + per_row // 2
    assert hf_static.auto_batch_size(model, 512) == 1
    card.total = 1 << 50
    assert hf_static.auto_batch_size(model, 512) == hf_static.MAX_AUTO_BATCH == 256
    assert hf_shared_prefix.shared_batch_size(model, per_row) == hf_shared_prefix.MAX_SHARED_BATCH == 512


def test_explicit_sizes_and_the_cpu_are_unchanged(tiny: Any, on_cuda: Any) -> None:
    model, card = on_cuda
    assert hf_static.rows_per_call(7, model, 512, 1000) == 7
    cpu_model, _ = tiny  # a real model on the CPU: 32 rows per call, not cut into equal calls
    assert hf_static.rows_per_call("auto", cpu_model, 512, 300) == hf_static.CPU_BATCH == 32
    assert hf_shared_prefix.shared_batch_size(cpu_model, 1 << 20) == 32


@pytest.mark.parametrize("cap", [1, 2, 7, 100, 128, 256, 512])
def test_even_rows(cap: int) -> None:
    for n in range(1, 700):
        size = hf_batch_size.even_rows(n, cap)
        chunks = [len(range(n)[lo : lo + size]) for lo in range(0, n, size)]
        assert len(chunks) == -(-n // cap), (n, cap)  # as few calls as the cap allows
        assert max(chunks) <= cap and max(chunks) - min(chunks) < len(chunks), (n, cap, chunks)
        if n <= cap:
            assert chunks == [n]  # an image's rows that fit: one call


def test_an_image_is_cut_into_equal_calls(on_cuda: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The generate paths cut one image's 300 rows by the cap: one call when they fit, else calls of
    equal size (128 a call: 100, 100, 100; before, 128, 128, 44)."""
    model, card = on_cuda
    calls: list[int] = []

    def recorded(*args: Any, **kwargs: Any) -> list[list[int]]:
        prompts = args[2]
        calls.append(len(prompts))
        return [[] for _ in prompts]

    monkeypatch.setattr(hf_shared_prefix, "generate_shared_group", recorded)
    monkeypatch.setattr(hf_static, "generate_static_group", recorded)
    prompts = [[1] * 40 + [2] * 8 for _ in range(300)]  # one suffix width: one group
    sampling, warpers = {"max_new_tokens": 16}, transformers.LogitsProcessorList()
    per_row = hf_shared_prefix.shared_row_bytes(model, 8 + 16, 40)
    for rows, expected in ((400.5, [300]), (128.5, [100, 100, 100]), (299.5, [150, 150])):
        card.total = _total_for(rows, per_row)
        calls.clear()
        list(hf_shared_prefix.shared_prefix_batches(
            model, None, prompts, [0] * 300, sampling, warpers, prefix_len=40, batch_size="auto"
        ))  # fmt: skip
        assert calls == expected, rows
    static_row = hf_static.row_bytes(model, 128)  # 40 + 8 + 16 positions, rounded up to 128
    card.total = _total_for(128.5, static_row)
    calls.clear()
    pool = hf_static.StaticPrefix(model)
    list(hf_static.static_batches(
        pool, None, prompts, [0] * 300, sampling, warpers, prefix_len=40, batch_size="auto", compile=False
    ))  # fmt: skip
    assert calls == [100, 100, 100]


# --- running out of memory: one line, no retry, nothing returned ------------------------------------------


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> StudyContext:
    return random_faces(tmp_path_factory.mktemp("images"), 5, SCENARIOS)


def _out_of_memory_beyond_one_row(model: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Make ``model``'s forward pass run out of CUDA memory on more than one row; the sizes tried."""
    tried: list[int] = []
    forward = model.forward

    def limited(*args: Any, **kwargs: Any) -> Any:
        ids = kwargs.get("input_ids")
        if ids is not None and ids.shape[0] > 1:
            tried.append(int(ids.shape[0]))
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 2.00 GiB")
        return forward(*args, **kwargs)

    monkeypatch.setattr(model, "forward", limited)
    return tried


@pytest.mark.parametrize(
    "settings",
    [
        pytest.param({"mode": "score", "batch_size": 3}, id="score"),
        pytest.param({**HOT, "batch_size": 3}, id="generate-shared"),
        pytest.param({**HOT, "batch_size": 3, "static_cache": True}, id="generate-static"),
        pytest.param({**HOT, "batch_size": 3, "shared_prefix_attention": False}, id="generate-copies"),
    ],
)
def test_out_of_memory_is_one_line_naming_the_model(
    settings: dict[str, Any], context: StudyContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = build_tiny("llava_next", seed=1)
    tried = _out_of_memory_beyond_one_row(loaded[0], monkeypatch)
    backend = tiny_backend(context, loaded, **settings)
    expected = (
        r"^model 'tiny': ran out of CUDA memory in calls of 3 rows \(batch_size = 3\): set a smaller "
        r"batch_size \(e\.g\. 1\) in the study's \[models\.settings\] of this model$"
    )
    with pytest.raises(CueshiftError, match=expected) as caught:
        backend.judge(prompt_batch(context, [1]))
    assert tried == [3]  # never tried again with fewer rows
    assert caught.value.__cause__ is None and caught.value.__suppress_context__


def test_out_of_memory_with_auto_advises_a_number(
    context: StudyContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded = build_tiny("llava_next", seed=1)
    tried = _out_of_memory_beyond_one_row(loaded[0], monkeypatch)
    monkeypatch.setattr(hf_batch_size, "CPU_BATCH", 6)  # "auto" on the CPU: CPU_BATCH rows
    backend = tiny_backend(context, loaded, mode="score")
    expected = (
        r"^model 'tiny': ran out of CUDA memory in calls of 6 rows \(batch_size = \"auto\" sized them from "
        r"the GPU's total memory, part of which other processes hold\): set batch_size = 3 \(or lower\) in "
        r"the study's \[models\.settings\] of this model$"
    )
    with pytest.raises(CueshiftError, match=expected):
        backend.judge(prompt_batch(context, [0]))
    assert tried == [6]
    named = hf_batch_size.CallOutOfMemory(6, "auto").named("m")
    assert str(pickle.loads(pickle.dumps(named))) == str(named)  # a Ray worker's error arrives whole
    assert str(named).startswith("model 'm': ran out of CUDA memory in calls of 6 rows")
    assert str(hf_batch_size.CallOutOfMemory(1, 1)).endswith(
        "the model does not fit the GPU memory left free"
    )


def test_a_run_that_runs_out_of_memory_stores_whole_images_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the runner: the image whose call ran out of memory has no row stored; the run fails
    with the backend's line."""
    import duckdb

    from cueshift.designs.registry import load_study
    from cueshift.execution.run_options import RunOptions
    from cueshift.execution.runner import run_study
    from cueshift.inference.backends import hf_score

    score = hf_score.score_shared_prefix
    called: list[int] = []

    def second_image_runs_out(model: Any, enc: Any, **kwargs: Any) -> Any:
        called.append(kwargs["batch_size"])
        if len(called) == 2:
            raise torch.OutOfMemoryError("CUDA out of memory")
        return score(model, enc, **kwargs)

    monkeypatch.setattr(hf_score, "score_shared_prefix", second_image_runs_out)
    study = load_study(Path(__file__).parents[2] / "studies" / "tiny-transformers.toml")
    (model,) = study.models
    checkpoint = build_tiny_model("llava_next", tmp_path / "ckpt")
    settings = {**model.settings, "batch_size": 4}
    study = study.model_copy(
        update={
            "batch_size": 8,  # one image (2 scenarios x 4 orderings) per backend call
            "models": [model.model_copy(update={"checkpoint": str(checkpoint), "settings": settings})],
            "image_set": study.image_set.model_copy(update={"cache_dir": tmp_path / "demo"}),
        }
    )
    database = tmp_path / "tiny.duckdb"
    with pytest.raises(
        CueshiftError, match=r"^model 'tiny-llava-next': ran out of CUDA memory in calls of 4 rows"
    ):
        run_study(study, RunOptions(database=database, progress=False))
    with duckdb.connect(str(database), read_only=True) as con:
        per_image = con.execute("SELECT image_id, count(*) FROM judgment GROUP BY image_id").fetchall()
    assert len(called) == 2 and [n for _, n in per_image] == [8]  # the image before, whole; none of this one
