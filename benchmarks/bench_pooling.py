"""Coverage of the partially pooled Table 11 cells on planted data, in full.

Planted studies: ``parents`` variation values × ``groups`` demographic groups, each cell of n faces
(uniform in a range), face means N(θ_c, 0.1²), θ_c ~ N(μ_p, τ²), μ_p ~ N(0, 0.05²). Per cell: the
raw mean with its t interval (face variance pooled over the value's groups) and the empirical
Bayes estimate with Morris's interval (:func:`cueshift.stats.eb_shrink`, as Table 11 computes
them). Reported per setting, averaged over cells and studies: coverage of θ_c, mean width, and
the pooled estimate's mean squared error relative to the raw one's; then the time of a
paper-size pooling (437 cells). Run::

    .venv/bin/python benchmarks/bench_pooling.py --studies 400 --out BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import itertools
import platform
import time
from pathlib import Path

import numpy as np
from bench_markdown import replace_section
from scipy import stats

from cueshift.stats import eb_shrink, pooled_standard_errors

START, END = "<!-- bench_pooling:start -->", "<!-- bench_pooling:end -->"
TAUS = (0.0, 0.01, 0.03, 0.1)
GROUPS = (2, 4, 6)
FACES = ((2, 12), (5, 40))


def planted(
    rng: np.random.Generator, tau: float, groups: int, faces: tuple[int, int], parents: int = 40
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    parent = np.repeat(np.arange(parents), groups)
    theta = rng.normal(0.0, 0.05, parents)[parent] + rng.normal(0.0, tau, parent.size)
    n = rng.integers(faces[0], faces[1] + 1, parent.size)
    values = np.full((int(n.max()), parent.size), np.nan)
    for j in range(parent.size):
        values[: n[j], j] = rng.normal(theta[j], 0.1, n[j])
    return values, theta, parent


def setting(studies: int, tau: float, groups: int, faces: tuple[int, int]) -> dict[str, float]:
    rng = np.random.default_rng(2024)
    cover_raw, cover_eb, width_raw, width_eb, err_raw, err_eb = [], [], [], [], [], []
    for _ in range(studies):
        values, theta, parent = planted(rng, tau, groups, faces)
        raw = np.nanmean(values, axis=0)
        se, df = pooled_standard_errors(values, parent)
        fit = eb_shrink(raw, se, parent, se_df=df)
        half = stats.t.ppf(0.975, df) * se
        cover_raw.append(np.abs(raw - theta) <= half)
        cover_eb.append((fit.ci_low <= theta) & (theta <= fit.ci_high))
        width_raw.append(2 * half)
        width_eb.append(fit.ci_high - fit.ci_low)
        err_raw.append((raw - theta) ** 2)
        err_eb.append((fit.estimate - theta) ** 2)
    return {
        "raw": float(np.mean(cover_raw)),
        "eb": float(np.mean(cover_eb)),
        "width": float(np.mean(width_eb) / np.mean(width_raw)),
        "mse": float(np.mean(err_eb) / np.mean(err_raw)),
    }


def section(studies: int, command: str) -> str:
    rows, all_eb = [], []
    for tau, groups, faces in itertools.product(TAUS, GROUPS, FACES):
        r = setting(studies, tau, groups, faces)
        all_eb.append(r["eb"])
        rows.append(
            f"| {tau:g} | {groups} | {faces[0]}–{faces[1]} | {100 * r['raw']:.1f} % | {100 * r['eb']:.1f} % "
            f"| {r['width']:.2f} | {r['mse']:.2f} |"
        )
    rng = np.random.default_rng(1)
    values, _, parent = planted(rng, 0.03, 4, (2, 40), parents=110)  # 440 cells, Table 11's 437
    start = time.perf_counter()
    se, df = pooled_standard_errors(values, parent)
    eb_shrink(np.nanmean(values, axis=0), se, parent, se_df=df)
    ms = 1000 * (time.perf_counter() - start)
    cells = 40 * studies
    return f"""{START}
## Partial pooling of Table 11 cells: coverage on planted data (`bench_pooling.py`)

`{command}` ({platform.processor() or platform.machine()}, Python {platform.python_version()}).
{studies} planted studies per row, 40 variation values × *groups* cells each ({cells:,} × groups cells a
row); face sd 0.1, τ the between-group sd of a value's cells. Coverage of the true cell mean by the
raw t interval and by the empirical Bayes (Morris 1983) interval of `pooled_ci_low/high`; width and
mean squared error of the pooled cells relative to the raw ones.

| τ | groups | faces a cell | raw t coverage | pooled coverage | width pooled/raw | MSE pooled/raw |
|---|---|---|---|---|---|---|
{chr(10).join(rows)}

Pooled coverage over all {len(all_eb)} settings: {100 * min(all_eb):.1f}–{100 * max(all_eb):.1f} %
(mean {100 * float(np.mean(all_eb)):.1f} %). Pooling 440 cells (Table 11 at paper scale): {ms:.1f} ms.
Where τ = 0 the interval is conservative (τ̂² > 0 in about half the studies widens it); where τ is
large beside the cells' noise the pooled cells are nearly the raw ones.
{END}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--studies", type=int, default=400)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    command = f".venv/bin/python benchmarks/bench_pooling.py --studies {args.studies}" + (
        " --out BENCHMARKS.md" if args.out else ""
    )
    text = section(args.studies, command)
    print(text)
    if args.out:
        replace_section(args.out, text + "\n", START, END)


if __name__ == "__main__":
    main()
