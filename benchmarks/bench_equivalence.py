"""Equivalence to no shift (``cueshift.stats.tost``, ``result_equivalence``) on planted data:
Type I error at the margin, power on planted zeros, planted shifts.

Planted studies of per-face mean Δ, clustered like a StylisticBias study: each face has its own
base share (uniform 0.3–0.6) and its own shift around the true Δ (uniform ± 0.08), judged 12
times on each of 5 scenarios (binomial shares); a face's value is its mean Δ over the scenarios.
Per setting: the share of replicates in which the TOST declares equivalence (p < α; at a true Δ
equal to the margin that is the Type I error) and in which the verdict is *shift* (two-sided t
test p < α, the interval excluding 0). One row is one test (no BH). Run::

    .venv/bin/python benchmarks/bench_equivalence.py --replicates 20000 --out BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
from bench_markdown import replace_section

from cueshift.stats import equivalence_verdicts, tost

START, END = "<!-- bench_equivalence:start -->", "<!-- bench_equivalence:end -->"
ALPHA, MARGIN = 0.05, 0.05
#: (true Δ as a multiple of the margin, faces)
SETTINGS = ((1.0, 10), (1.0, 30), (1.0, 100), (-1.0, 30), (0.0, 10), (0.0, 30), (0.0, 100), (2.0, 30))


def planted_faces(rng: np.random.Generator, n_faces: int, replicates: int, true_delta: float) -> np.ndarray:
    """``(faces, replicates)`` per-face mean Δ of planted clustered studies (module docstring)."""
    shape = (n_faces, replicates, 5)
    base = rng.uniform(0.3, 0.6, size=(n_faces, replicates, 1))
    shift = true_delta + rng.uniform(-0.08, 0.08, size=(n_faces, replicates, 1))
    phi_base = rng.binomial(12, np.broadcast_to(base, shape)) / 12
    phi_variation = rng.binomial(12, np.broadcast_to(base + shift, shape)) / 12
    means: np.ndarray = (phi_variation - phi_base).mean(axis=2)
    return means


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicates", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the section into this markdown file")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    mc_se = (ALPHA * (1 - ALPHA) / args.replicates) ** 0.5
    lines = [
        START,
        "## Equivalence to no shift: Type I error and power on planted data (`bench_equivalence.py`)",
        "",
        "`.venv/bin/python benchmarks/bench_equivalence.py "
        f"--replicates {args.replicates} --out BENCHMARKS.md` "
        f"({platform.machine()}, Python {platform.python_version()}). Planted clustered studies (module "
        f"docstring): margin {MARGIN}, α = {ALPHA}, {args.replicates:,} replicates a row (Monte Carlo "
        f"standard error of a 5 % rate: {100 * mc_se:.2f} points). *Equivalent*: TOST p < α (at true Δ = "
        "± margin this is the Type I error, nominal 5 %); *shift*: the verdict `shift`.",
        "",
        "| true Δ | faces | equivalent | shift | inconclusive | seconds |",
        "|---|---|---|---|---|---|",
    ]
    for multiple, n_faces in SETTINGS:
        values = planted_faces(rng, n_faces, args.replicates, multiple * MARGIN)
        start = time.perf_counter()
        res = tost(values, MARGIN, alpha=ALPHA)
        verdicts = np.array(equivalence_verdicts(res.p_shift, res.p, res.ci_low, res.ci_high, alpha=ALPHA))
        seconds = time.perf_counter() - start
        equivalent = float(np.mean(res.p < ALPHA))
        shift = float(np.mean(verdicts == "shift"))
        inconclusive = float(np.mean(verdicts == "inconclusive"))
        lines.append(
            f"| {multiple * MARGIN:+.2f} | {n_faces} | {100 * equivalent:.2f} % | {100 * shift:.2f} % | "
            f"{100 * inconclusive:.2f} % | {seconds:.2f} |"
        )
        print(lines[-1], flush=True)
    lines += [
        "",
        "At the margin the rate is α once the interval is narrow beside the margin; with few faces the "
        "TOST is conservative (its far side fails too), and it has little power at true Δ = 0: with 10 "
        "faces almost every row is *inconclusive*, not *equivalent* — the verdict says so instead of "
        "reading a non-significant shift as none. A shift is reported as *shift* even where it is "
        "within the margin (true Δ = margin: most rows with 30 or more faces).",
        "Tests: `tests/stats/test_equivalence.py` (the same planted studies, fewer replicates).",
        END,
        "",
    ]
    section = "\n".join(lines)
    if args.out is not None:
        replace_section(args.out, section, START, END)
    else:
        print(section)


if __name__ == "__main__":
    main()
