"""Each probe model against its random twin (``result_probe_baselines``' ``twin_*`` columns and
``verdict``): runtime at OMI scale, the rate at which a model equal in distribution to its twin is
flagged, and power on a planted trait.

Planted studies: ``faces`` faces with 15 image statistics (independent normals); per attribute
the human means are 0.5·s₁ + 0.3·s₂ + a trait + noise. The model and its twin both see
0.4·s₁ + 0.3·s₃ + 0.5·(human mean) + 1.5·noise (equal in distribution: every null true); with
``--planted w`` the model also sees w·trait. Per setting: the share of attribute tests with
bootstrap p < α (ρ − twin and partial ρ − twin, unadjusted), and the share of models (34
attributes, BH) with any attribute whose verdict is *captured*. Run::

    .venv/bin/python benchmarks/bench_probe_twin.py --studies 30 --out BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import numpy as np
import polars as pl
from bench_markdown import replace_section

from cueshift.designs.probe.twin_difference import twin_table, with_verdicts
from cueshift.stats import bh_by_family

START, END = "<!-- bench_probe_twin:start -->", "<!-- bench_probe_twin:end -->"
ALPHA, ATTRIBUTES, STATISTICS = 0.05, 34, 15
#: (faces, weight of the planted trait in the model's scores)
SETTINGS = ((300, 0.0), (1004, 0.0), (1004, 0.15), (1004, 0.3))


def planted(rng: np.random.Generator, faces: int, weight: float) -> tuple[pl.DataFrame, ...]:
    """Scores of ``m`` and ``m.random``, human means and statistics of one planted study."""
    ids = [f"f{i:04d}" for i in range(faces)]
    s = rng.normal(size=(faces, STATISTICS))
    trait = rng.normal(size=(faces, ATTRIBUTES))
    human = (0.5 * s[:, :1] + 0.3 * s[:, 1:2]) + trait + rng.normal(size=(faces, ATTRIBUTES))
    seen = 0.4 * s[:, :1] + 0.3 * s[:, 2:3] + 0.5 * human
    model = seen + weight * trait + 1.5 * rng.normal(size=(faces, ATTRIBUTES))
    twin = seen + 1.5 * rng.normal(size=(faces, ATTRIBUTES))

    def long(values: np.ndarray, column: str, **extra: str) -> pl.DataFrame:
        frame = pl.DataFrame(values, schema=[f"a{j:02d}" for j in range(ATTRIBUTES)]).with_columns(
            pl.Series("image_id", ids)
        )
        tall = frame.unpivot(index="image_id", variable_name="attribute", value_name=column)
        return tall.with_columns(pl.lit(v).alias(k) for k, v in extra.items())

    scores = pl.concat([long(model, "score", model_id="m"), long(twin, "score", model_id="m.random")])
    statistics = pl.DataFrame(s, schema=[f"s{j:02d}" for j in range(STATISTICS)]).with_columns(
        pl.Series("image_id", ids)
    )
    return scores, long(human, "mean"), statistics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=int, default=30)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="write the section into this markdown file")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    twin_table(*planted(rng, 50, 0.0)[:2], {"m": "m.random"}, None, resamples=10, seed=0, confidence=0.95)
    rows = []
    for faces, weight in SETTINGS:
        tests, captured, seconds = np.zeros(2), 0, []
        for study in range(args.studies):
            scores, means, statistics = planted(rng, faces, weight)
            start = time.perf_counter()
            table = twin_table(
                scores,
                means,
                {"m": "m.random"},
                statistics,
                resamples=args.resamples,
                seed=study,
                confidence=0.95,
            )
            seconds.append(time.perf_counter() - start)
            tests += [(table["twin_p"] < ALPHA).sum(), (table["twin_partial_p"] < ALPHA).sum()]
            for p_col in ("twin_p", "twin_partial_p"):
                table = bh_by_family(table, ["model_id"], p_col=p_col).rename({"p_adj": f"{p_col}_adj"})
            captured += int((with_verdicts(table, ALPHA)["verdict"] == "captured").any())
        share = tests / (args.studies * ATTRIBUTES)
        rows.append(
            f"| {faces:,} | {weight:g} | {100 * share[0]:.1f} % | {100 * share[1]:.1f} % | "
            f"{100 * captured / args.studies:.0f} % | {np.median(seconds):.1f} |"
        )
        print(rows[-1], flush=True)
    n_tests = args.studies * ATTRIBUTES
    lines = [
        START,
        "## Probe models against their random twins: null rate, power, runtime (`bench_probe_twin.py`)",
        "",
        f"`.venv/bin/python benchmarks/bench_probe_twin.py --studies {args.studies} --out BENCHMARKS.md` "
        f"({platform.machine()}, Python {platform.python_version()}, 2 shared cores). Planted studies "
        f"(module docstring): {ATTRIBUTES} attributes, {STATISTICS} image statistics, "
        f"{args.resamples:,} bootstrap replicates, α = {ALPHA}; {args.studies} studies a row "
        f"({n_tests:,} attribute tests; Monte Carlo SE of a 5 % rate ≈ "
        f"{100 * (ALPHA * (1 - ALPHA) / n_tests) ** 0.5:.1f} points, more: attributes share faces). "
        "Weight 0: model and twin equal in distribution (every rejection is a false one); "
        "*any captured*: the share of models with at least one *captured* attribute after BH "
        "(nominal at most 5 %). Seconds: one model–twin pair, all attributes (median).",
        "",
        "| faces | planted weight | p < α: ρ − twin | p < α: partial ρ − twin | any captured | seconds |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "Tests: `tests/designs/test_probe_twin.py` (the same null on fewer, smaller studies; Steiger's "
        "test; planted verdicts).",
        END,
    ]
    if args.out:
        replace_section(args.out, "\n".join(lines) + "\n", START, END)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
