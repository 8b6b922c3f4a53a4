"""Paper-scale benchmark of the statistics engine (seed 000 scale).

Stages, each timed:

1. generate — a simulated study of 6 models × 500 faces × ~31 evaluated variations × 25
   scenarios × 4 orderings × 3 seeds (≈ 29 M judgments), drawn vectorised at the φ level
   (binomial counts per model × image × scenario, :mod:`cueshift.stats.simulate`);
2. store — dimension tables through ``store.write_tables`` and the judgments expanded from the
   counts inside DuckDB (one row per prompt);
3. load — the ``delta`` / ``base_phi`` views (φ from 29 M judgments, then Δ);
4. analyse — ``run_analyses`` with 10,000-resample face-level BCa bootstraps for every
   model × variation × scenario cell (and every other level), written back as tables;
5. side by side — our bootstrap vs ``scipy.stats.bootstrap`` on the same cells (scipy timed on
   a subset and extrapolated per cell), and our analysis vs a straightforward pandas/scipy loop
   over cells (groupby per cell → per-face means → ``scipy.stats.wilcoxon`` →
   ``scipy.stats.bootstrap``; the bootstrap part timed on a subset and extrapolated per cell).

Usage::

    .venv/bin/python benchmarks/bench_analysis.py [--faces 500] [--out BENCHMARKS.md]

With ``--out`` the section between the ``bench_analysis`` markers of that file is replaced
(created if absent); other sections are kept.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import polars as pl
import scipy.stats as st
from bench_markdown import replace_section
from rich.console import Console

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.console import print_headlines
from cueshift.stats import (
    ANALYSES,
    cluster_bootstrap,
    face_matrix,
    signed_rank_columns,
)
from cueshift.stats.simulate import SimulationSpec, simulate_study, write_study
from cueshift.views import read_base_phi, read_delta

MODELS = ("gemma-3", "gemma-4", "internvl3", "llava-v1.6", "pixtral", "qwen3")
START, END = "<!-- bench_analysis:start -->", "<!-- bench_analysis:end -->"


def _timed(label: str, timings: dict[str, float]):  # type: ignore[no-untyped-def]
    class _T:
        def __enter__(self) -> None:
            self.t = time.perf_counter()
            print(f"[bench] {label} …", flush=True)

        def __exit__(self, *exc: object) -> None:
            timings[label] = time.perf_counter() - self.t
            print(f"[bench] {label}: {timings[label]:.1f} s", flush=True)

    return _T()


def _generate_and_store(db_path: Path, faces: int, timings: dict[str, float]) -> duckdb.DuckDBPyConnection:
    """Simulate the paper-scale study (placebos and mixed invalid reasons included) and store it."""
    with _timed("generate", timings):
        spec = SimulationSpec(n_faces=faces, models=MODELS, seed=2026, placebos=True)
        study = simulate_study(spec)
    con = store.open_study(db_path)
    con.execute("SET enable_progress_bar = false")
    with _timed("store", timings):
        write_study(con, study)
    del study
    con.execute("CHECKPOINT")
    return con


def _study_facts(con: duckdb.DuckDBPyConnection, faces: int) -> dict[str, object]:
    """Judgments, images and evaluated (non-placebo) variations per face of the stored study."""
    ((judgments,),) = con.execute("SELECT count(*) FROM judgment").fetchall()
    ((images, variations, placebos),) = con.execute(
        "SELECT count(*), count(*) FILTER (WHERE role = 'variation' AND feature_key <> 'placebo'), "
        "count(*) FILTER (WHERE feature_key = 'placebo') FROM image"
    ).fetchall()
    return {
        "judgments": int(judgments),
        "images": int(images),
        "evaluated_variations_per_face": round(variations / faces, 1),
        "placebos_per_face": round(placebos / faces, 1),
    }


def _cpu_timed_analyses() -> dict[str, float]:
    """Wrap every registered analysis so that its CPU seconds (``time.process_time``) are recorded
    in the returned dict (``result_manifest.seconds`` holds the wall seconds)."""
    cpu: dict[str, float] = {}
    for name, item in list(ANALYSES.items()):

        def timed(ctx: Any, _compute: Any = item.compute, _name: str = name) -> Any:
            started = time.process_time()
            try:
                return _compute(ctx)
            finally:
                cpu[_name] = time.process_time() - started

        ANALYSES[name] = dataclasses.replace(item, compute=timed)
    return cpu


def main() -> dict[str, object]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faces", type=int, default=500)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--scipy-cells", type=int, default=6, help="cells timed with scipy.stats.bootstrap")
    parser.add_argument("--db", type=Path, default=None, help="database path (default: a temporary file)")
    parser.add_argument("--out", type=Path, default=None, help="markdown file whose bench section to replace")
    parser.add_argument(
        "--reuse", action="store_true", help="analyse the study already in --db (skip generate and store)"
    )
    args = parser.parse_args()
    timings: dict[str, float] = {}
    facts: dict[str, object] = {"faces": args.faces, "models": len(MODELS), "resamples": args.resamples}
    tmp = tempfile.TemporaryDirectory()
    db_path = args.db or Path(tmp.name) / "bench.duckdb"
    if args.reuse and db_path.exists():
        con = store.open_study(db_path)
        con.execute("SET enable_progress_bar = false")
    else:
        if db_path.exists():
            db_path.unlink()
        con = _generate_and_store(db_path, args.faces, timings)
    facts.update(_study_facts(con, args.faces))
    with _timed("load views", timings):
        delta, _base = read_delta(con), read_base_phi(con)
    facts["delta_rows"] = delta.height

    # ---- the full analysis (loads the views again, writes every result table)
    cpu_per_analysis = _cpu_timed_analyses()
    cpu_started = time.process_time()
    with _timed("analyse (run_analyses)", timings):
        results = run_analyses(con, n_resamples=args.resamples, seed=0, progress=False)
    timings["analyse (run_analyses), CPU"] = time.process_time() - cpu_started
    per_analysis = dict(con.sql("SELECT name, seconds FROM result_manifest").fetchall())
    facts["result_rows"] = {k: v.height for k, v in results.items()}
    sbs = results["sbs"]
    facts["bootstrapped_rows"] = int(sbs.filter(pl.col("ci_low").is_not_null()).height)
    facts["cells_model_variation_scenario"] = int(
        sbs.filter((pl.col("level") == "cell") & (pl.col("model_id") != "(pooled)")).height
    )

    # ---- bootstrap alone on the model × variation × scenario cells vs scipy.stats.bootstrap
    fm = face_matrix(
        delta, ["model_id", "variation_value", "scenario_id"], faces=sorted(delta["face_id"].unique())
    )
    with _timed("our bootstrap, all cells", timings):
        ours, _ = cluster_bootstrap(fm.values, n_resamples=args.resamples, seed=1, method="bca")
    n_cells = fm.n_cells
    rng = np.random.default_rng(0)
    picked = rng.choice(
        np.flatnonzero((~np.isnan(fm.values)).all(axis=0)), size=args.scipy_cells, replace=False
    )
    gaps = []
    started = time.perf_counter()
    for c in picked:
        ref = st.bootstrap((fm.values[:, c],), np.mean, n_resamples=args.resamples, method="BCa", rng=int(c))
        width = ref.confidence_interval.high - ref.confidence_interval.low
        gaps.append(
            max(
                abs(ours.ci_low[c] - ref.confidence_interval.low),
                abs(ours.ci_high[c] - ref.confidence_interval.high),
            )
            / width
        )
    scipy_per_cell = (time.perf_counter() - started) / len(picked)
    timings["scipy.stats.bootstrap per cell"] = scipy_per_cell
    facts["scipy_vs_ours_max_gap_over_width"] = float(max(gaps))
    facts["bootstrap_cells"] = n_cells
    facts["scipy_cells"] = len(picked)
    scipy_all = scipy_per_cell * n_cells
    timings["scipy.stats.bootstrap, all cells (extrapolated)"] = scipy_all
    facts["bootstrap_speedup"] = scipy_all / timings["our bootstrap, all cells"]

    # ---- a straightforward pandas/scipy loop over the same cells (release-script style)
    frame = delta.select("model_id", "variation_value", "scenario_id", "face_id", "delta").to_pandas()
    started = time.perf_counter()
    n_loop = 0
    for _, cell in frame.groupby(["model_id", "variation_value", "scenario_id"], sort=False):
        per_face = cell.groupby("face_id")["delta"].mean()
        st.wilcoxon(per_face.to_numpy())
        per_face.mean()
        n_loop += 1
    loop_tests = time.perf_counter() - started
    timings["pandas/scipy loop: per-face means + wilcoxon, all cells"] = loop_tests
    with _timed("ours: per-face means + wilcoxon, all cells", timings):
        fm2 = face_matrix(
            delta, ["model_id", "variation_value", "scenario_id"], faces=sorted(delta["face_id"].unique())
        )
        signed_rank_columns(fm2.values)
    loop_total = loop_tests + scipy_per_cell * n_loop
    timings["pandas/scipy loop incl. bootstrap, all cells (extrapolated)"] = loop_total
    facts["analysis_speedup_vs_loop"] = loop_total / timings["analyse (run_analyses)"]
    facts["loop_cells"] = n_loop
    facts["per_analysis_seconds"] = {k: round(v, 2) for k, v in per_analysis.items()}
    facts["per_analysis_cpu_seconds"] = {k: round(v, 2) for k, v in cpu_per_analysis.items()}
    facts["machine"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPU cores (shared)"
    report = {"timings_s": {k: round(v, 3) for k, v in timings.items()}, "facts": facts}
    print(json.dumps(report, indent=2), flush=True)
    if args.out:
        _write_section(args.out, report)
    print_headlines(con, Console(width=120))
    con.close()
    return report


def _write_section(path: Path, report: dict[str, object]) -> None:
    t = report["timings_s"]  # type: ignore[index]
    f = report["facts"]  # type: ignore[index]
    lines = [
        START,
        "## Statistics engine (`benchmarks/bench_analysis.py`)",
        "",
        "Command (repo root): `.venv/bin/python benchmarks/bench_analysis.py --out BENCHMARKS.md`",
        "",
        f"Simulated study: {f['models']} models × {f['faces']} faces × "
        f"{f['evaluated_variations_per_face']} evaluated variations per face × 25 scenarios × "
        f"4 orderings × 3 seeds = {f['judgments']:,} judgments "
        f"({f['images']:,} images), drawn at the φ level (binomial counts per model × image × scenario, "
        "expanded to one judgment row per prompt inside DuckDB). Machine: "
        f"{f['machine']}; other jobs ran at the same time, so times are upper bounds.",
        "",
        "| stage | wall time |",
        "| --- | ---: |",
    ]
    for label, seconds in t.items():
        lines.append(f"| {label} | {seconds:,.3f} s |" if seconds < 1 else f"| {label} | {seconds:,.1f} s |")
    lines += [
        "",
        f"- `run_analyses`: every registered analysis, {f['resamples']:,}-resample face-level BCa "
        f"bootstraps for {f['bootstrapped_rows']:,} result rows, among them all "
        f"{f['cells_model_variation_scenario']:,} "
        "model × variation × scenario cells; includes loading the views and writing the result tables. "
        "Per analysis (s): " + ", ".join(f"{k} {v}" for k, v in f["per_analysis_seconds"].items()) + ".",
        f"- Bootstrap alone: ours on {f['bootstrap_cells']:,} cells vs `scipy.stats.bootstrap` (BCa, "
        f"same resamples) timed on {f['scipy_cells']} random complete cells and extrapolated per cell: "
        f"**{f['bootstrap_speedup']:,.0f}×** faster; largest CI-endpoint gap on the subset "
        f"{f['scipy_vs_ours_max_gap_over_width']:.3f} × CI width (Monte Carlo error).",
        f"- Whole analysis vs a straightforward pandas/scipy loop over the {f['loop_cells']:,} cells "
        "(groupby → per-face means → `scipy.stats.wilcoxon` → `scipy.stats.bootstrap`, bootstrap "
        "extrapolated per cell): "
        f"**{f['analysis_speedup_vs_loop']:,.0f}×** — and the loop covers only the cell level, not the other "
        "levels and tables.",
        END,
    ]
    section = "\n".join(lines) + "\n"
    replace_section(path, section, START, END)


if __name__ == "__main__":
    main()
