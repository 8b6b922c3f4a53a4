"""Benchmark: coverage of the faces-only and faces+scenarios intervals on planted crossed data.

``y[f, s] = mu + a_f + b_s + e_fs`` (faces × scenarios, every face in every scenario),
``a_f ~ N(0, sd_face)``, per-scenario effects ``b_s ~ N(0, tau)``, noise ``e ~ N(0, sd_noise)``;
the population effect is ``mu`` (the mean over the scenario *population*). For each tau, each
simulated study gets the face-level bootstrap interval of the mean (``--generalise faces``:
scenarios fixed) and the crossed (product) bootstrap (``--generalise faces+scenarios``), both
from the engine's kernels with the same face draws; printed: the share covering ``mu`` (with its
binomial standard error), the mean widths and their ratio, and the width the crossed design's
variance calls for, ``2 z sqrt(sd_face²/F + tau²/S + sd_noise²/(FS))``. BENCHMARKS.md's figures
come from the defaults.

Usage::

    .venv/bin/python benchmarks/bench_generalise.py [--sims 1000] [--faces 100] [--scenarios 25]
        [--resamples 2000] [--ci bca|percentile] [--taus 0,0.05,0.1,0.2] [--time-sbs FACES]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy import stats as sps

from cueshift.stats import Resampling, crossed_bootstrap, face_multiplicities, scenario_multiplicities

MU = 0.05


def coverage(args: argparse.Namespace, tau: float) -> dict[str, float]:
    """Coverage of ``MU`` and mean width of both intervals over ``args.sims`` planted studies."""
    rng = np.random.default_rng(int(tau * 1e6) + 1)
    n_f, n_s, n_rep = args.faces, args.scenarios, args.resamples
    fixed = np.ones((n_rep, n_s))
    hits, widths = np.zeros(2), np.zeros(2)
    for i in range(args.sims):
        y = (
            MU
            + rng.normal(0, args.sd_face, (n_f, 1))
            + rng.normal(0, tau, (1, n_s))
            + rng.normal(0, args.sd_noise, (n_f, n_s))
        )
        sums, counts = y[:, None, :].copy(), np.ones((n_f, 1, n_s))
        w = face_multiplicities(n_f, n_rep, i)
        for k, v in enumerate((fixed, scenario_multiplicities(n_s, n_rep, i))):
            boot = crossed_bootstrap(sums, counts, 1.0, w, v, method=args.ci)
            hits[k] += boot.ci_low[0] <= MU <= boot.ci_high[0]
            widths[k] += boot.ci_high[0] - boot.ci_low[0]
    share, width = hits / args.sims, widths / args.sims
    var = args.sd_face**2 / n_f + tau**2 / n_s + args.sd_noise**2 / (n_f * n_s)
    return {
        "faces": share[0],
        "crossed": share[1],
        "se": float(np.sqrt(0.95 * 0.05 / args.sims)),
        "w_faces": width[0],
        "w_crossed": width[1],
        "w_design": 2 * float(sps.norm.ppf(0.975)) * float(np.sqrt(var)),
    }


def time_sbs(n_faces: int, n_resamples: int) -> None:
    """Wall seconds of ``sbs_levels`` (every level) with each ``generalise``, on a planted Δ frame
    of 6 models × 31 variations (4 categories) × 25 scenarios (5 categories) × ``n_faces`` faces."""
    import polars as pl

    from cueshift.designs.stylisticbias.stats import sbs_levels

    rng = np.random.default_rng(0)
    grid = np.stack(np.meshgrid(np.arange(6), np.arange(n_faces), np.arange(31), np.arange(25)), -1).reshape(
        -1, 4
    )
    m, f, v, sc = grid.T
    delta = pl.DataFrame(
        {
            "model_id": np.char.add("m", m.astype(str)),
            "face_id": np.char.add("f", f.astype(str)),
            "variation_category": np.char.add("vc", (v % 4).astype(str)),
            "variation_value": np.char.add("v", v.astype(str)),
            "scenario_category": np.char.add("sc", (sc % 5).astype(str)),
            "scenario_id": np.char.add("s", sc.astype(str)),
            "delta": rng.normal(0.05, 0.3, grid.shape[0]) + rng.normal(0, 0.05, 25)[sc],
            "phi_variation": 0.5,
            "phi_base": 0.5,
            "gender": np.where(f % 2, "Male", "Female"),
        }
    )
    for mode in ("faces", "faces+scenarios"):
        started = time.perf_counter()
        sbs_levels(
            delta, resampling=Resampling(resamples=n_resamples), dimensions=("gender",), generalise=mode
        )
        print(
            f"sbs_levels, {delta.height:,} rows, {n_resamples} resamples, {mode}: "
            f"{time.perf_counter() - started:.1f} s"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sims", type=int, default=1000)
    ap.add_argument("--faces", type=int, default=100)
    ap.add_argument("--scenarios", type=int, default=25)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--sd-face", type=float, default=0.15)
    ap.add_argument("--sd-noise", type=float, default=0.3)
    ap.add_argument("--ci", default="bca", choices=["bca", "percentile"])
    ap.add_argument("--taus", default="0,0.05,0.1,0.2")
    ap.add_argument("--time-sbs", type=int, default=0, help="also time sbs_levels with this many faces")
    args = ap.parse_args(argv)
    if args.time_sbs:
        time_sbs(args.time_sbs, args.resamples)
    if args.sims <= 0:
        return 0
    print(
        f"{args.faces} faces x {args.scenarios} scenarios, sd_face {args.sd_face}, sd_noise {args.sd_noise}, "
        f"{args.sims} studies, {args.resamples} resamples, {args.ci}"
    )
    print(
        "| tau | faces-only coverage | faces+scenarios coverage | width faces-only | width crossed "
        "| ratio | design width |"
    )
    print("|---|---|---|---|---|---|---|")
    started = time.perf_counter()
    for tau in (float(t) for t in args.taus.split(",")):
        r = coverage(args, tau)
        print(
            f"| {tau:g} | {r['faces']:.3f} ± {r['se']:.3f} | {r['crossed']:.3f} ± {r['se']:.3f} | "
            f"{r['w_faces']:.4f} | {r['w_crossed']:.4f} | {r['w_crossed'] / r['w_faces']:.3f} | "
            f"{r['w_design']:.4f} |"
        )
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
