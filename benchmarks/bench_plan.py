"""Benchmark of `cueshift plan`: a 10-point power curve at 200 simulated studies per point at the
paper's scale (500 faces, 31.45 evaluated variations each, 25 scenarios, 4 orderings x 3 seeds),
against the straightforward loop, side by side; and the whole plan of the default study at 500 faces.

* **power curve** (:func:`cueshift.power.curve.power_curve`): per point, 200 simulated studies
  drawn at the φ level (every face x value x scenario φ from binomial draws by inversion in a numba
  kernel) and the numba signed-rank test of :func:`cueshift.stats.one_sample_test` on the per-face
  means of 24 columns (3 effect sizes x 8 repeats);
* **straightforward loop**: the same studies with ``numpy.random.Generator.binomial`` for the
  draws, ``numpy.nanmean`` for the per-face means and ``scipy.stats.wilcoxon`` column by column.
  It runs ``--baseline-sims`` studies per point; its total is that per-study cost times 200;
* **whole plan**: :func:`cueshift.plan.plan_study` on the default study at 500 faces with 200
  simulated studies at the planned size and the 200-per-point curve (the simulated judge's exact
  defaults, every test family, the trade-offs, the cost).

* **cold and warm** (``--part cli``): the whole ``cueshift plan`` command on the default study
  (its defaults: 90 faces, 200 simulated studies, 200 per curve point), first with a fresh
  ``NUMBA_CACHE_DIR`` (a first run after install: every kernel compiles), then again with that
  cache (every later run), side by side: wall seconds, CPU seconds of the process and the load
  average of the machine before each run.

Usage::

    .venv/bin/python benchmarks/bench_plan.py [--part all|curve|cli] [--sims 200] \\
        [--baseline-sims 5] [--out BENCHMARKS.md] [--figure docs/plan-power-curve.png]

With ``--out`` the sections between the ``bench_plan`` (curve) and ``bench_plan_cli`` (cold and
warm) markers of that file are replaced; with ``--figure`` the power curve is written there (the
figure of the BENCHMARKS section).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl
from bench_markdown import replace_section
from scipy import stats

from cueshift.designs import load_study
from cueshift.designs.registry import study_scenarios
from cueshift.plan import PlanRequest, Targets, plan_study
from cueshift.power.curve import REPEATS, curve_effects, curve_figure, curve_model, faces_grid, power_curve
from cueshift.power.judge import judge_inputs
from cueshift.power.model import StudyModel, study_model
from cueshift.power.protocol import protocol_of, study_images
from cueshift.power.simulate import Simulations

START, END = "<!-- bench_plan:start -->", "<!-- bench_plan:end -->"
CLI_START, CLI_END = "<!-- bench_plan_cli:start -->", "<!-- bench_plan_cli:end -->"
FACES = 500
TARGET = 0.01


def baseline_study(sm: StudyModel, level: float, rng: np.random.Generator) -> np.ndarray:
    """One simulated curve study the straightforward way; which columns reject at ``level``."""
    n_v, n_f, n_s = len(sm.values), sm.n_faces, sm.scenarios
    n, q = int(sm.prompts[0]), float(sm.invalid[0])
    p_base = np.clip(sm.p0[0] + rng.normal(0, sm.base_sd[0], (n_f, n_s)), 0, 1)
    slopes = rng.normal(0, 1, (n_v, n_f)) * sm.slope_sd[0][:, None]
    shift = (
        sm.beta[0][:, None, None] + slopes[:, :, None] + sm.fs_sd[0] * rng.standard_normal((n_v, n_f, n_s))
    )
    p_var = np.clip(p_base[None] + shift, 0, 1)

    def phi(p: np.ndarray) -> np.ndarray:
        valid = rng.binomial(n, 1 - q, size=p.shape)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(valid > 0, rng.binomial(valid, p) / np.maximum(valid, 1), np.nan)

    means = np.nanmean(phi(p_var) - phi(p_base)[None], axis=2)
    p_values = [stats.wilcoxon(col[np.isfinite(col)]).pvalue for col in means]
    return np.asarray(p_values) <= level


@dataclass(frozen=True)
class Measured:
    """Seconds of the curve, of the straightforward loop (per study per point) and of the whole plan."""

    curve: pl.DataFrame
    curve_s: float
    baseline_per_study: list[float]
    plan_s: float
    plan_rows: int
    sims: int
    baseline_sims: int

    @property
    def baseline_s(self) -> float:
        return sum(self.baseline_per_study) * self.sims


def run(sims: int, baseline_sims: int) -> Measured:
    study = load_study("default")
    face, image = study_images(study)
    scenarios = study_scenarios(study)
    protocol = protocol_of(study, scenarios=len(scenarios), faces=FACES)
    inputs, _ = judge_inputs(study, face, image, scenarios=scenarios)
    targets = Targets(effect=TARGET)
    power_curve(protocol, inputs, targets, Simulations(2), faces=[20])  # numba compiles (cached after)
    start = time.perf_counter()
    curve = power_curve(protocol, inputs, targets, Simulations(sims))
    curve_s = time.perf_counter() - start
    rng = np.random.default_rng(0)
    baseline_per_study = []
    for faces in faces_grid(FACES):
        model = curve_model(study_model(protocol.with_faces(faces), inputs), 0, curve_effects(TARGET))
        level = float(curve.filter(pl.col("units") == faces)["alpha_level"][0])
        t0 = time.perf_counter()
        for _ in range(baseline_sims):
            baseline_study(model, level, rng)
        baseline_per_study.append((time.perf_counter() - t0) / baseline_sims)
    start = time.perf_counter()
    plan = plan_study(
        PlanRequest(study, targets=targets, faces=FACES, simulations=sims, curve_simulations=sims)
    )
    return Measured(
        curve,
        curve_s,
        baseline_per_study,
        time.perf_counter() - start,
        plan.power.height,
        sims,
        baseline_sims,
    )


def section(m: Measured, command: str) -> str:
    points = m.curve.group_by("units", maintain_order=True).agg(pl.col("seconds").first())
    rows = "\n".join(
        f"| {units} | {seconds:.2f} | {per_study * m.sims:.1f} |"
        for (units, seconds), per_study in zip(points.iter_rows(), m.baseline_per_study, strict=True)
    )
    gap = float((m.curve["power"] - m.curve["power_sim"]).abs().max())  # type: ignore[arg-type]
    largest_se = float(m.curve["power_sim_se"].max())  # type: ignore[arg-type]
    loop = (
        f"straightforward loop (numpy binomial, nanmean, `scipy.stats.wilcoxon` per column; "
        f"{m.baseline_sims} studies per point, times {m.sims})"
    )
    whole = f"whole `plan_study` of the default study at 500 faces ({m.plan_rows} test rows)"
    table = "\n".join(
        [
            f"| 10-point power curve, {m.sims} studies per point | {m.curve_s:.1f} | "
            f"{m.baseline_s / m.curve_s:.1f}x |",
            f"| the same, {loop} | {m.baseline_s:.1f} | 1.0x |",
            f"| {whole}: {m.sims} studies at the planned size and the curve | {m.plan_s:.1f} | |",
        ]
    )
    return f"""{START}
## `cueshift plan`: power curve at paper scale (`benchmarks/bench_plan.py`)

Command (from the repository root, {dt.date.today().isoformat()}):

```bash
{command}
```

The default study's simulated judge (exact defaults, docs/plan.md) planned at 500 faces (31.45
evaluated variations each, 25 scenarios, 4 orderings x 3 seeds) on {platform.machine()} with
{os.cpu_count()} CPUs visible. A curve point draws {m.sims} studies of every φ (base and 24 value
columns: 3 effect sizes x {REPEATS} repeats) and runs the signed-rank test on the per-face means
at the level BH reaches among the study's 34 values.

| step | s | vs loop |
|---|---:|---:|
{table}

| faces | curve point (s) | straightforward loop (s, estimated) |
|---:|---:|---:|
{rows}

Analytic and simulated power agree within {gap:.3f} over the curve's 30 points (largest Monte
Carlo standard error {largest_se:.3f}).

![Power against faces: analytic lines, simulated points ±2 SE](docs/plan-power-curve.png)

Where the time goes: a curve study at 500 faces is 0.3 M φ cells (24 columns x 500 faces x 25
scenarios) and 12,500 base φ. The planner draws each value's φ and averages each face's shifts in one
parallel numba pass (binomial inversion from one uniform per draw; no values x faces x scenarios array
is kept), then runs the 24 columns' signed-rank tests in one numba call; the loop pays numpy's general
binomial sampler twice per cell, the temporaries of `nanmean` and a scipy call per column. The
machine is shared: an earlier run under a load average of 2.4 took 56 s for the curve (1.2x); the
target (< 120 s) held in both.

{END}"""


@dataclass(frozen=True)
class CommandRun:
    """One ``cueshift plan`` run: wall and CPU seconds, the load average before, the compile note."""

    label: str
    wall_s: float
    cpu_s: float
    load: float
    noted: bool


def run_command(label: str, cache: Path, out: Path, engine: Path | None = None) -> CommandRun:
    """``cueshift plan --out out`` with ``NUMBA_CACHE_DIR=cache`` (the package of ``engine``, a
    folder holding ``cueshift/``, where given), timed (stdout and stderr kept)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    if engine is not None:
        env["PYTHONPATH"] = str(engine)
    load = os.getloadavg()[0]
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "plan", "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return CommandRun(label, wall, cpu, load, "compiling statistics kernels" in done.stderr)


def launch_cost(calls: int = 300) -> tuple[float, float]:
    """Wall and CPU milliseconds of one launch of a parallel kernel on 10 elements (the pool's cost)."""
    from cueshift.power.draws import binomial_phi

    rng = np.random.default_rng(0)
    p = np.full(10, 0.5)
    binomial_phi(p, 12, 0.01, rng)
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        binomial_phi(p, 12, 0.01, rng)
    return (time.perf_counter() - wall) / calls * 1e3, (time.process_time() - cpu) / calls * 1e3


def run_cli(before: Path | None) -> list[CommandRun]:
    """A cold run (fresh numba cache) and a warm run (the same cache again) of the default plan;
    with ``before`` (an exported earlier tree), its cold and warm runs interleaved with these."""
    with tempfile.TemporaryDirectory() as tmp:
        cache, out = Path(tmp) / "numba", Path(tmp) / "plan"
        old_cache, old = Path(tmp) / "numba-before", None if before is None else before / "engine"
        runs = [run_command("cold: fresh NUMBA_CACHE_DIR", cache, out)]
        if old is not None:
            runs.append(run_command("before, cold", old_cache, out, old))
        runs.append(run_command("warm", cache, out))
        if old is not None:
            runs.append(run_command("before, warm", old_cache, out, old))
        return runs


def cli_section(runs: list[CommandRun], launch: tuple[float, float], command: str) -> str:
    by_label = {r.label: r for r in runs}
    compile_cpu = by_label["cold: fresh NUMBA_CACHE_DIR"].cpu_s - by_label["warm"].cpu_s
    rows = "\n".join(
        f"| {r.label} | {r.wall_s:.1f} | {r.cpu_s:.1f} | {r.load:.1f} | {'yes' if r.noted else 'no'} |"
        for r in runs
    )
    return f"""{CLI_START}
## `cueshift plan` on the default study: cold and warm (`benchmarks/bench_plan.py --part cli`)

Command (from the repository root, {dt.date.today().isoformat()}, {os.cpu_count()} CPUs visible):

```bash
{command}
```

The whole command with its defaults (90 faces, 200 simulated studies at the planned size, 200 per
point of the 10-point curve, the figure); cold: a fresh `NUMBA_CACHE_DIR`, as on the first run of a
new install, every statistics kernel compiles (the command says so on one line first); warm: the
same cache again. CPU s: user + system seconds of the process (numba's 2 threads together).

| run | wall s | CPU s | load average before | compile note |
|---|---:|---:|---:|---|
{rows}

The cold run's extra CPU, the compilation: {compile_cpu:.1f} s. One launch of a parallel kernel
on 10 elements, measured after the runs: {launch[0]:.2f} ms wall, {launch[1]:.2f} ms CPU (load
average {os.getloadavg()[0]:.1f}).

{CLI_NOTES}
{CLI_END}"""


#: What the numbers mean and the earlier ones (kept by hand: the script fills the table above).
CLI_NOTES = """\
"before": commit 75b0bf5, the tree before issue 30's changes, run the same way, interleaved with
the runs of this tree (the machine is shared: compare rows of one table). Each replicate then
called the parallel kernels itself (about 13,000 launches in a plan, cProfile's count); a launch
of numba's OpenMP pool is cheap on a quiet machine (the line above) but costs milliseconds on a
loaded one (1.57 ms wall, 0.63 ms CPU at a load average of 8.6 in an earlier run of this script;
6.5 ms at about 7 with another load), which is where a loaded machine's minutes went. Now a batch
of replicates is one launch per kernel (about 500 in a plan) with the same random numbers, so the
same plan to the last digit (docs/decisions.md). The compilation comes once per install: numba
keeps the machine code in `__pycache__`, or in `~/.cache/numba` where the package folder is
read-only (checked: a copy of the package whose `__pycache__` cannot be created compiled into
`~/.cache/numba`, and the next run loaded it), or under `NUMBA_CACHE_DIR`."""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--part", choices=("all", "curve", "cli"), default="all")
    parser.add_argument("--before", type=Path, help="an exported earlier tree (git archive) to run beside")
    parser.add_argument("--sims", type=int, default=200)
    parser.add_argument("--baseline-sims", type=int, default=5)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--figure", type=Path)
    args = parser.parse_args()
    if args.part in ("all", "cli"):
        command = ".venv/bin/python benchmarks/bench_plan.py --part cli"
        if args.before:
            export = (
                f"mkdir -p {args.before} && git archive 75b0bf5 engine schemas sql studies reports"
                f" | tar -x -C {args.before}"
            )
            command = f"{export}\n{command} --before {args.before}"
        command += " --out BENCHMARKS.md" * bool(args.out)
        text = cli_section(run_cli(args.before), launch_cost(), command)
        print(text)
        if args.out:
            replace_section(args.out, text + "\n", CLI_START, CLI_END)
    if args.part == "cli":
        return
    result = run(args.sims, args.baseline_sims)
    command = ".venv/bin/python benchmarks/bench_plan.py" + (
        f" --part curve --sims {args.sims} --baseline-sims {args.baseline_sims} --out BENCHMARKS.md "
        "--figure docs/plan-power-curve.png"
    )
    text = section(result, command)
    print(text)
    if args.figure:
        args.figure.write_bytes(curve_figure(result.curve, FACES, 0.8))
    if args.out:
        replace_section(args.out, text + "\n", START, END)


if __name__ == "__main__":
    main()
