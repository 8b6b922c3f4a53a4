"""Paper-scale benchmark of the statistics engine (seed 000 scale).

Stages, each timed in wall seconds and in CPU seconds of the process (``time.process_time``, all
threads: the machines are shared, so CPU is the steadier figure):

1. generate — a simulated study of 6 models × 500 faces × (~31.5 evaluated variations + the 2
   noise-floor placebos) × 25 scenarios × 4 orderings × 3 seeds (≈ 31 M judgments), drawn
   vectorised at the φ level (binomial counts per model × image × scenario,
   :mod:`tests.simulate.study`; invalid answers with the parser's reasons);
2. store — dimension tables through ``store.write_tables`` and the judgments expanded from the
   counts inside DuckDB (one row per prompt);
3. load — the ``delta`` / ``base_phi`` views (φ from the judgments, then Δ);
4. analyse — ``run_analyses`` as ``cueshift analyze`` runs it (analyses two at a time on two
   cores): every analysis of the suite (10,000-resample face-level BCa bootstraps for every
   model × variation × scenario cell and every other level, the noise floor, missing answers,
   model differences, crossed models, subgroups), written back as tables; then once more one
   analysis at a time (``workers=1``) for the wall and CPU of each, every table checked equal to
   the first run's;
5. side by side — our bootstrap vs ``scipy.stats.bootstrap`` on the same cells (scipy timed on
   a subset and extrapolated per cell), and our analysis vs a straightforward pandas/scipy loop
   over cells (groupby per cell → per-face means → ``scipy.stats.wilcoxon`` →
   ``scipy.stats.bootstrap``; the bootstrap part timed on a subset and extrapolated per cell).

Usage::

    .venv/bin/python benchmarks/bench_analysis.py [--faces 500] [--db PATH [--reuse]]
        [--json REPORT.json] [--before EARLIER.json] [--out BENCHMARKS.md]

``--reuse`` analyses the study already stored in ``--db`` (skips stages 1-2); ``--before`` puts
an earlier run's per-analysis times (its ``--json`` report) beside this run's. With ``--out`` the
section between the ``bench_analysis`` markers of that file is replaced (created if absent);
other sections are kept.
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
import repo_root  # noqa: F401  (the repository root on sys.path: tests.simulate)
import scipy.stats as st
from bench_markdown import replace_section
from rich.console import Console

from cueshift import store
from cueshift.designs.stylisticbias import analyses as suite_module
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.console import print_headlines
from cueshift.stats import (
    Declarations,
    Resampling,
    cluster_bootstrap,
    face_matrix,
    signed_rank_columns,
)
from cueshift.views import read_base_phi, read_delta
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

MODELS = ("gemma-3", "gemma-4", "internvl3", "llava-v1.6", "pixtral", "qwen3")
START, END = "<!-- bench_analysis:start -->", "<!-- bench_analysis:end -->"


class _Clock:
    """Times a stage: wall (``time.perf_counter``) into ``wall`` and CPU of the whole process, all
    threads (``time.process_time``) into ``cpu``, both under ``label``."""

    def __init__(self, label: str, wall: dict[str, float], cpu: dict[str, float]) -> None:
        self.label, self.wall, self.cpu = label, wall, cpu

    def __enter__(self) -> None:
        self.w, self.c = time.perf_counter(), time.process_time()
        print(f"[bench] {self.label} …", flush=True)

    def __exit__(self, *exc: object) -> None:
        self.wall[self.label] = time.perf_counter() - self.w
        self.cpu[self.label] = time.process_time() - self.c
        print(
            f"[bench] {self.label}: {self.wall[self.label]:.1f} s, CPU {self.cpu[self.label]:.1f} s",
            flush=True,
        )


def _generate_and_store(
    db_path: Path, faces: int, timings: dict[str, float], cpu: dict[str, float]
) -> duckdb.DuckDBPyConnection:
    """Simulate the paper-scale study (placebos and mixed invalid reasons included) and store it."""
    with _Clock("generate", timings, cpu):
        spec = SimulationSpec(n_faces=faces, models=MODELS, seed=2026, placebos=True)
        study = simulate_study(spec)
    con = store.open_study(db_path)
    con.execute("SET enable_progress_bar = false")
    with _Clock("store", timings, cpu):
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
    """Wrap every analysis of the suite so that its CPU seconds (``time.process_time``) are recorded
    in the returned dict (``result_manifest.seconds`` holds the wall seconds): ``run_analyses``
    runs the wrapped declarations."""
    cpu: dict[str, float] = {}
    timed_suite = Declarations(suite_module.DECLARED.suite)
    for item in suite_module.DECLARED:
        name = item.name

        def timed(ctx: Any, _compute: Any = item.compute, _name: str = name) -> Any:
            started = time.process_time()
            try:
                return _compute(ctx)
            finally:
                cpu[_name] = time.process_time() - started

        timed_suite.add(dataclasses.replace(item, compute=timed))
    suite_module.DECLARED = timed_suite
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
    parser.add_argument("--json", type=Path, default=None, help="also write the report as JSON here")
    parser.add_argument(
        "--before", type=Path, default=None, help="JSON report of an earlier run to show beside"
    )
    args = parser.parse_args()
    wall: dict[str, float] = {}
    cpu: dict[str, float] = {}
    facts: dict[str, object] = {"faces": args.faces, "models": len(MODELS), "resamples": args.resamples}
    tmp = tempfile.TemporaryDirectory()
    db_path = args.db or Path(tmp.name) / "bench.duckdb"
    if args.reuse and db_path.exists():
        con = store.open_study(db_path)
        con.execute("SET enable_progress_bar = false")
    else:
        if db_path.exists():
            db_path.unlink()
        con = _generate_and_store(db_path, args.faces, wall, cpu)
    facts.update(_study_facts(con, args.faces))
    with _Clock("load views (delta, base_phi)", wall, cpu):
        delta, _base = read_delta(con), read_base_phi(con)
    facts["delta_rows"] = delta.height

    # ---- the full analysis as `cueshift analyze` runs it (loads the views again, writes every
    # result table; analyses two at a time where there are two cores)
    with _Clock(ANALYSE, wall, cpu):
        results = run_analyses(con, Resampling(resamples=args.resamples, seed=0), progress=False)
    facts["workers"] = min(2, os.cpu_count() or 1)
    # ---- the same, one analysis at a time: the per-analysis breakdown (wall and CPU of each)
    cpu_per_analysis = _cpu_timed_analyses()
    with _Clock(SEQUENTIAL, wall, cpu):
        one_at_a_time = run_analyses(
            con,
            Resampling(resamples=args.resamples, seed=0),
            progress=False,
            workers=1,
        )
    differ = [n for n, frame in results.items() if not frame.equals(one_at_a_time[n], null_equal=True)]
    if differ or list(results) != list(one_at_a_time):
        raise SystemExit(f"the concurrent run's tables differ from the sequential run's: {differ}")
    per_analysis = dict(con.sql("SELECT name, seconds FROM result_manifest").fetchall())
    facts["result_rows"] = {k: v.height for k, v in results.items()}
    sbs = results["sbs"]
    facts["bootstrapped_rows"] = int(sbs.filter(pl.col("ci_low").is_not_null()).height)
    facts["cells_model_variation_scenario"] = int(
        sbs.filter((pl.col("level") == "cell") & (pl.col("model_id") != "(pooled)")).height
    )
    facts.update(_side_by_side(delta, args.resamples, args.scipy_cells, wall, cpu))
    facts["per_analysis_seconds"] = {k: round(v, 2) for k, v in per_analysis.items()}
    facts["per_analysis_cpu_seconds"] = {k: round(v, 2) for k, v in cpu_per_analysis.items()}
    facts["machine"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPU cores (shared)"
    facts["load_average_1min"] = round(os.getloadavg()[0], 1)
    report = {
        "timings_s": {k: round(v, 3) for k, v in wall.items()},
        "cpu_s": {k: round(v, 3) for k, v in cpu.items()},
        "facts": facts,
    }
    print(json.dumps(report, indent=2), flush=True)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    if args.out:
        before = json.loads(args.before.read_text()) if args.before else None
        _write_section(args.out, report, before)
    print_headlines(con, Console(width=120))
    con.close()
    return report


ANALYSE = "analyse (run_analyses)"
SEQUENTIAL = "analyse, one analysis at a time (workers=1)"
LOOP = "pandas/scipy loop: per-face means + wilcoxon, all cells"
OURS_TESTS = "ours: per-face means + wilcoxon, all cells"


def _side_by_side(
    delta: pl.DataFrame, resamples: int, scipy_cells: int, wall: dict[str, float], cpu: dict[str, float]
) -> dict[str, object]:
    """Our bootstrap vs ``scipy.stats.bootstrap`` on the model × variation × scenario cells, and our
    analysis vs a straightforward pandas/scipy loop over the same cells (release-script style)."""
    facts: dict[str, object] = {}
    faces = sorted(delta["face_id"].unique())
    fm = face_matrix(delta, ["model_id", "variation_value", "scenario_id"], faces=faces)
    with _Clock("our bootstrap, all cells", wall, cpu):
        ours, _ = cluster_bootstrap(fm.values, n_resamples=resamples, seed=1, method="bca")
    picked = np.random.default_rng(0).choice(
        np.flatnonzero((~np.isnan(fm.values)).all(axis=0)), size=scipy_cells, replace=False
    )
    gaps = []
    with _Clock("scipy.stats.bootstrap, sampled cells", wall, cpu):
        for c in picked:
            ref = st.bootstrap((fm.values[:, c],), np.mean, n_resamples=resamples, method="BCa", rng=int(c))
            ci = ref.confidence_interval
            gaps.append(
                max(abs(ours.ci_low[c] - ci.low), abs(ours.ci_high[c] - ci.high)) / (ci.high - ci.low)
            )
    per_cell = {
        k: d.pop("scipy.stats.bootstrap, sampled cells") / len(picked) for k, d in (("w", wall), ("c", cpu))
    }
    facts["scipy_vs_ours_max_gap_over_width"] = float(max(gaps))
    facts["bootstrap_cells"] = fm.n_cells
    facts["scipy_cells"] = len(picked)
    wall["scipy.stats.bootstrap per cell"], cpu["scipy.stats.bootstrap per cell"] = (
        per_cell["w"],
        per_cell["c"],
    )
    for d, key in ((wall, "w"), (cpu, "c")):
        d["scipy.stats.bootstrap, all cells (extrapolated)"] = per_cell[key] * fm.n_cells
    facts["bootstrap_speedup"] = (
        cpu["scipy.stats.bootstrap, all cells (extrapolated)"] / cpu["our bootstrap, all cells"]
    )
    frame = delta.select("model_id", "variation_value", "scenario_id", "face_id", "delta").to_pandas()
    n_loop = 0
    with _Clock(LOOP, wall, cpu):
        for _, cell in frame.groupby(["model_id", "variation_value", "scenario_id"], sort=False):
            per_face = cell.groupby("face_id")["delta"].mean()
            st.wilcoxon(per_face.to_numpy())
            per_face.mean()
            n_loop += 1
    with _Clock(OURS_TESTS, wall, cpu):
        fm2 = face_matrix(delta, ["model_id", "variation_value", "scenario_id"], faces=faces)
        signed_rank_columns(fm2.values)
    for d, key in ((wall, "w"), (cpu, "c")):
        d["pandas/scipy loop incl. bootstrap, all cells (extrapolated)"] = d[LOOP] + per_cell[key] * n_loop
    facts["analysis_speedup_vs_loop"] = (
        cpu["pandas/scipy loop incl. bootstrap, all cells (extrapolated)"] / cpu[ANALYSE]
    )
    facts["loop_cells"] = n_loop
    return facts


def _write_section(path: Path, report: dict[str, Any], before: dict[str, Any] | None) -> None:
    t, c, f = report["timings_s"], report["cpu_s"], report["facts"]
    lines = [
        START,
        "## Statistics engine (`benchmarks/bench_analysis.py`)",
        "",
        "Command (repo root): `.venv/bin/python benchmarks/bench_analysis.py --db /tmp/paper.duckdb "
        "--json /tmp/after.json --out BENCHMARKS.md` (add `--reuse` to analyse a study already stored "
        "there, `--before <json>` to show an earlier run's times beside)",
        "",
        f"Simulated study: {f['models']} models × {f['faces']} faces × "
        f"({f['evaluated_variations_per_face']} evaluated variations + {f['placebos_per_face']} "
        "noise-floor placebos) per face × 25 scenarios × 4 orderings × 3 seeds = "
        f"{f['judgments']:,} judgments ({f['images']:,} images), drawn at the φ level (binomial counts "
        "per model × image × scenario, expanded to one judgment row per prompt inside DuckDB; invalid "
        "answers rotate over five texts with the parser's reasons: refusal, hedge, neither, both, no "
        f"answer). Machine: {f['machine']}, 1-minute load average {f['load_average_1min']} at the end "
        "(other engineers' jobs ran at the same time): wall times are upper bounds; CPU is "
        "`time.process_time()` of the process, all threads (DuckDB, numba, BLAS).",
        "",
        "| stage | wall | CPU |",
        "| --- | ---: | ---: |",
    ]
    lines += [f"| {label} | {_s(seconds)} | {_s(c[label])} |" for label, seconds in t.items()]
    lines += ["", _analysis_table_header(before)]
    lines += ["| --- | ---: | ---: | ---: |" + (" ---: | ---: |" if before else "")]
    wall_a, cpu_a = f["per_analysis_seconds"], f["per_analysis_cpu_seconds"]
    for name in sorted(wall_a, key=lambda k: -cpu_a.get(k, 0.0)):
        rows = f["result_rows"].get(name, 0)
        row = f"| {name} | {rows:,} | {wall_a[name]:.2f} | {cpu_a.get(name, 0.0):.2f} |"
        if before:
            bw, bc = before["facts"]["per_analysis_seconds"], before["facts"]["per_analysis_cpu_seconds"]
            row += f" {bw.get(name, float('nan')):.2f} | {bc.get(name, float('nan')):.2f} |"
        lines.append(row)
    rest_w, rest_c = t[SEQUENTIAL] - sum(wall_a.values()), c[SEQUENTIAL] - sum(cpu_a.values())
    lines.append(
        f"| (views read, tables written) | | {rest_w:.2f} | {rest_c:.2f} |" + (" | |" if before else "")
    )
    lines += [
        "",
        f"- `run_analyses`: every registered analysis, {f.get('workers', 1)} at a time (the default "
        "here; the per-analysis rows are from the run one at a time, `workers=1`, whose every table "
        "the benchmark checks equal to the concurrent run's), "
        f"{f['resamples']:,}-resample face-level BCa "
        f"bootstraps (SBS alone: {f['bootstrapped_rows']:,} rows, among them all "
        f"{f['cells_model_variation_scenario']:,} model × variation × scenario cells).",
        f"- Bootstrap alone: ours on {f['bootstrap_cells']:,} cells vs `scipy.stats.bootstrap` (BCa, "
        f"same resamples) timed on {f['scipy_cells']} random complete cells and extrapolated per cell: "
        f"**{f['bootstrap_speedup']:,.0f}×** less CPU; largest CI-endpoint gap on the subset "
        f"{f['scipy_vs_ours_max_gap_over_width']:.3f} × CI width (Monte Carlo error).",
        f"- Whole analysis vs a straightforward pandas/scipy loop over the {f['loop_cells']:,} cells "
        "(groupby → per-face means → `scipy.stats.wilcoxon` → `scipy.stats.bootstrap`, bootstrap "
        f"extrapolated per cell): **{f['analysis_speedup_vs_loop']:,.1f}×** less CPU — and the loop covers "
        "only the cell level of one table, not the other levels and tables.",
        END,
    ]
    replace_section(path, "\n".join(lines) + "\n", START, END)


def _analysis_table_header(before: dict[str, Any] | None) -> str:
    head = "| analysis (result table) | rows | wall s | CPU s |"
    if before:
        head += f" wall s, {before.get('label', 'before')} | CPU s, before |"
    return head


def _s(seconds: float) -> str:
    return f"{seconds:,.3f} s" if seconds < 1 else f"{seconds:,.1f} s"


if __name__ == "__main__":
    main()
