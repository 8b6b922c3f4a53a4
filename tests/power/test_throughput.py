"""The measured cost model (:mod:`cueshift.power.throughput`): which measured rate a model gets, and the
plan's cost table naming it; the packaged table holds the rates of BENCHMARKS.md (the 7 B rates
before the static cache, and those `bench_backend_hf.py --scale 7b` measured on an H200)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from cueshift.designs import parse_study
from cueshift.plan import PlanRequest, Targets, plan_study
from cueshift.power.throughput import COLUMNS, measured_rate, model_size, read_throughput, seconds_per_prompt
from cueshift.study.config import ModelConfig
from tests.scalars import real

STUDIES = Path(__file__).resolve().parents[2] / "studies"
LLAVA_7B = "llava-hf/llava-v1.6-mistral-7b-hf"


def _model(checkpoint: str = LLAVA_7B, backend: str = "transformers", **settings: Any) -> ModelConfig:
    return ModelConfig(model_id="judge", backend=backend, checkpoint=checkpoint, settings=settings)


def _rate(table: pl.DataFrame, model: ModelConfig) -> float:
    """The sampling rate :func:`measured_rate` finds (failing the test where it finds none)."""
    found = measured_rate(table, model, "sampling")
    assert found is not None, model
    return found[0]


@pytest.mark.parametrize(
    ("checkpoint", "size"),
    [
        (LLAVA_7B, "7b"),
        ("Qwen/Qwen2-VL-2B-Instruct", "2b"),
        ("Qwen/Qwen2.5-VL-72B-Instruct", "72b"),
        ("OpenGVLab/InternVL2_5-8B", "8b"),
        ("HuggingFaceTB/SmolVLM-256M-Instruct", "256m"),
        ("google/gemma-3-27b-it", "27b"),
        ("microsoft/Phi-3.5-vision-instruct", None),
        ("./checkpoints/tiny", None),
    ],
)
def test_model_size_from_the_checkpoint(checkpoint: str, size: str | None) -> None:
    assert model_size(_model(checkpoint)) == size


def test_the_packaged_table_holds_the_measured_rates() -> None:
    table = read_throughput()
    assert table.columns == COLUMNS
    assert (table["rows_per_s"] > 0).all() and real(table["source"].str.len_chars().min()) > 10
    h200 = table.filter((pl.col("gpu") == "NVIDIA H200") & (pl.col("model_size") == "7b"))
    before = h200.filter(pl.col("date").is_null())
    rates = {(m, b): r for m, b, r in before.select("mode", "batch", "rows_per_s").iter_rows()}
    # before the static cache: 1,214 judgments-equivalent/s (3 seeds per scored prompt), 44/s, 51/s, 9.0/s
    assert rates == {("score", 32): pytest.approx(1214 / 3, abs=0.1), ("generate", 32): 44.0,
                     ("generate", 100): 51.0, ("release", 1): 9.0}  # fmt: skip
    measured = h200.filter(pl.col("date") == "2026-11-26")
    columns = measured.select("mode", "batch", "cache", "rows_per_s")
    cached_rates = {(m, b, c): r for m, b, c, r in columns.iter_rows()}
    # BENCHMARKS.md, "transformers backend at 7 B" (NVIDIA H200, bfloat16, CLIP-L/336 tower)
    assert (
        cached_rates[("generate", 32, "dynamic")] == 41.6
        and cached_rates[("generate", 128, "static")] == 93.9
    )


@pytest.mark.parametrize(
    ("mode", "settings", "rate"),
    [
        ("sampling", {}, 51.0),  # default batch_size "auto": the largest measured
        ("sampling", {"batch_size": 100}, 51.0),
        ("sampling", {"batch_size": 128}, 51.0),  # the nearest measured batch
        ("sampling", {"batch_size": "auto"}, 51.0),  # the largest measured
        ("sampling", {"batch_size": 48, "static_cache": True}, 44.0),  # no static rows: any cache
        ("score", {}, 404.7),
    ],
)
def test_the_row_of_the_models_size_mode_and_batching(
    mode: str, settings: dict[str, Any], rate: float
) -> None:
    before = read_throughput().filter(pl.col("date").is_null())  # the four rows before the static cache
    found = measured_rate(before, _model(**settings), mode)
    assert found is not None
    assert found[0] == rate
    assert found[1].startswith("measured: NVIDIA H200, 7b") and "before the static cache" in found[1]


def test_no_row_no_rate() -> None:
    table = read_throughput()
    assert measured_rate(table, _model("Qwen/Qwen2-VL-2B-Instruct"), "score") is None  # no 2b row
    assert measured_rate(table, _model(backend="openai"), "sampling") is None  # a server's rate is its own
    assert measured_rate(table, _model("some/judge"), "score") is None  # no size in the name


def test_the_same_cache_then_the_nearest_batch_then_the_latest() -> None:
    rows = [
        ("A100", "7b", "generate", "bfloat16", 32, "dynamic", 40.0, "old", "2026-01-01"),
        ("H200", "7b", "generate", "bfloat16", 32, "dynamic", 45.0, "new", "2026-06-01"),
        ("H200", "7b", "generate", "bfloat16", 64, "static+compile", 160.0, "compiled", "2026-06-01"),
        ("H200", "7b", "generate", "bfloat16", 128, "static", 150.0, "static", "2026-06-01"),
    ]
    table = pl.DataFrame(rows, schema=COLUMNS, orient="row")
    assert measured_rate(table, _model(batch_size=32), "sampling") == (
        45.0, "measured: H200, 7b generate bfloat16, batch 32, dynamic cache (new)"
    )  # fmt: skip
    assert _rate(table, _model(static_cache=True, compile=True)) == 160.0
    assert _rate(table, _model(static_cache=True, batch_size=32)) == 150.0
    # the CUDA-graph step: its own rows once measured; until then the shared-prefix rows, not another cache's
    shared = ["H200", "7b", "generate", "bfloat16", 32, "shared", 90.0, "ungraphed", "2026-11-27"]
    with_shared = pl.concat([table, pl.DataFrame([shared], schema=COLUMNS, orient="row")])
    graph = _model(cuda_graph=True, batch_size=32)
    assert _rate(with_shared, graph) == 90.0
    graphed = ["H200", "7b", "generate", "bfloat16", 32, "shared+graph", 250.0, "graph", "2026-11-28"]
    with_graph = pl.concat([with_shared, pl.DataFrame([graphed], schema=COLUMNS, orient="row")])
    assert _rate(with_graph, graph) == 250.0
    assert _rate(with_graph, _model(batch_size=32)) == 90.0


def test_the_order_of_sources() -> None:
    model = _model()
    assert seconds_per_prompt(20.0, model, "sampling", {"judge": 0.5}) == (0.05, "--throughput")
    assert seconds_per_prompt(None, model, "sampling", {"judge": 0.5}) == (0.5, "pilot latencies")
    seconds, source = seconds_per_prompt(None, model, "sampling", {})
    # the default generate path is shared-prefix decoding at batch_size "auto": the largest measured
    # batch, 300 (the 2026-11-27 H200 run with batched sampling: 192.2/s)
    assert seconds == pytest.approx(1 / 192.2) and "batch 300, shared cache" in source
    copied = _model(shared_prefix_attention=False, batch_size=32)
    seconds, source = seconds_per_prompt(None, copied, "sampling", {})
    # batch 32, dynamic cache: the newest of the two such rows (the 7 B benchmark's 41.6/s)
    assert seconds == pytest.approx(1 / 41.6) and source.startswith("measured: NVIDIA H200")
    simulated = _model("", backend="simulated")
    assert seconds_per_prompt(None, simulated, "score", {}) == (None, "none (give --throughput or a pilot)")
    assert seconds_per_prompt(None, simulated, "score", None) == (None, "none (give --throughput)")


def test_plan_names_the_measured_rate(tmp_path: Path) -> None:
    """A paired study judged by a 7 B LLaVA-NeXT in generate mode, no pilot, no --throughput:
    its cost row takes 41.6 prompts/s (batch 32, dynamic cache, newest) from the table and says so."""
    data = tomllib.loads((STUDIES / "paired-001.toml").read_text())
    data["database"] = str(tmp_path / "paired-001.duckdb")
    data["models"] = [
        {
            "model_id": "llava7b",
            "backend": "transformers",
            "checkpoint": LLAVA_7B,
            "settings": {"mode": "generate", "shared_prefix_attention": False, "batch_size": 32},
        }
    ]
    study = parse_study(data, "paired-001")
    cost = plan_study(PlanRequest(study, targets=Targets(effect=0.08), faces=20, simulations=20)).cost
    row = cost.row(0, named=True)
    assert row["seconds_per_prompt"] == pytest.approx(1 / 41.6)
    assert row["gpu_hours"] == pytest.approx(row["prompts"] / 41.6 / 3600)
    assert row["throughput_source"].startswith("measured: NVIDIA H200, 7b generate bfloat16, batch 32")
