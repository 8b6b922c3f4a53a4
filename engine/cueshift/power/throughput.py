"""Measured throughput for the cost table: which rate ``cueshift plan`` uses for a model, and why.

In order: ``--throughput`` (the user's number); the pilot's own latencies (its stored
``latency_ms``); the measured table :data:`THROUGHPUT_CSV` (``throughput.csv``, shipped with the
package, appended to by ``benchmarks/bench_backend_hf.py --scale 7b --csv``) for a transformers
model whose size the checkpoint or model id names (``...-7b-...``: ``7b``); else none.

From the table, the row of the same size and mode (score mode: ``score``; sampled: ``generate``)
measured with the model's own batching: its ``static_cache`` / ``compile`` / ``shared_prefix_attention``
/ ``cuda_graph`` settings decide the ``cache`` column and its ``batch_size`` the nearest measured batch
(``"auto"``, the default: the largest measured). Rates are prompts per second per model (a
score-mode prompt answers every seed).
The source names the row (GPU, size, mode, dtype, batch, cache and where it was measured).
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import polars as pl

from cueshift.study.config import ModelConfig

#: the measured rates shipped with the package
THROUGHPUT_CSV = "throughput.csv"
COLUMNS = ["gpu", "model_size", "mode", "dtype", "batch", "cache", "rows_per_s", "source", "date"]
_SIZE = re.compile(r"(?<![0-9a-z.])(\d+(?:\.\d+)?)([bm])(?![a-z])", re.IGNORECASE)


def read_throughput(path: Path | None = None) -> pl.DataFrame:
    """The measured table (``path``, else the packaged :data:`THROUGHPUT_CSV`)."""
    source = path if path is not None else resources.files("cueshift.power") / THROUGHPUT_CSV
    with source.open("rb") as handle:
        table = pl.read_csv(handle, schema_overrides={"cache": pl.String, "date": pl.String})
    return table.select(COLUMNS)


def model_size(model: ModelConfig) -> str | None:
    """The size a model's checkpoint (else its id) names: ``llava-v1.6-mistral-7b-hf`` -> ``7b``."""
    for text in (model.checkpoint, model.model_id):
        found = _SIZE.search(text.rsplit("/", 1)[-1])
        if found:
            return f"{found.group(1)}{found.group(2).lower()}"
    return None


def measured_rate(table: pl.DataFrame, model: ModelConfig, mode: str) -> tuple[float, str] | None:
    """Prompts/s of ``model`` in plan ``mode`` (``score`` / ``sampling``) from ``table``, and the
    row it came from; None when the table has no row of the model's size and mode."""
    size = model_size(model)
    if model.backend != "transformers" or size is None:
        return None
    rows = table.filter(
        (pl.col("model_size") == size) & (pl.col("mode") == ("score" if mode == "score" else "generate"))
    )
    if rows.is_empty():
        return None
    settings = model.settings
    cache = (
        "static+compile"
        if settings.get("compile")
        else "static"
        if settings.get("static_cache")
        else "shared+graph"
        if settings.get("cuda_graph")
        else "shared"
        if settings.get("shared_prefix_attention", True)
        else "dynamic"
    )
    batch = settings.get("batch_size", "auto")
    target = rows["batch"].max() if batch == "auto" else int(batch)
    same_cache = rows.filter(pl.col("cache") == cache)
    if same_cache.is_empty() and cache == "shared+graph":  # not measured: the same decoding, ungraphed
        same_cache = rows.filter(pl.col("cache") == "shared")
    ranked = (same_cache if not same_cache.is_empty() else rows).sort(
        (pl.col("batch") - target).abs(), pl.col("date"), pl.col("rows_per_s"),
        descending=[False, True, True], nulls_last=True,
    )  # fmt: skip
    row = ranked.row(0, named=True)
    where = (
        f"measured: {row['gpu']}, {row['model_size']} {row['mode']} {row['dtype']}, batch {row['batch']}"
        f"{', ' + row['cache'] + ' cache' if row['cache'] else ''} ({row['source']})"
    )
    return float(row["rows_per_s"]), where


def seconds_per_prompt(
    throughput: float | None, model: ModelConfig, mode: str, pilot: dict[str, float] | None
) -> tuple[float | None, str]:
    """Seconds per prompt of ``model`` for the cost table and where they come from (the order of the
    module docstring); ``pilot`` maps model ids to a pilot's seconds per prompt (None: the design's
    planner reads no pilot latencies)."""
    if throughput is not None:
        return 1.0 / throughput, "--throughput"
    if pilot is not None and model.model_id in pilot:
        return pilot[model.model_id], "pilot latencies"
    measured = measured_rate(read_throughput(), model, mode)
    if measured is not None:
        return 1.0 / measured[0], measured[1]
    return None, "none (give --throughput)" if pilot is None else "none (give --throughput or a pilot)"


__all__ = [
    "COLUMNS",
    "THROUGHPUT_CSV",
    "measured_rate",
    "model_size",
    "read_throughput",
    "seconds_per_prompt",
]
