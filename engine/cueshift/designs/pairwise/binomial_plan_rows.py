r"""The power rows of a pairwise plan's exact binomial tests (seed 002): one row per test, in
the ``cueshift plan`` power table's columns.

Per BH family the level BH reaches (:func:`~cueshift.power.analytic.bh_threshold`) and the exact
power there (:func:`~cueshift.power.analytic.binomial_power`), the minimum detectable effect,
the trials needed for the target effect by the normal approximation of
:mod:`cueshift.designs.pairwise.planner`, the Wilson half-width, and the simulated power: draws
:math:`k \sim \operatorname{Bin}(n, p)` run through the analysis's
:func:`cueshift.stats.binomial_test` and BH.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import polars as pl
from scipy import special

from cueshift.power.analytic import (
    bh_level_for_target,
    bh_threshold,
    binomial_power,
    solve_increasing,
    wilson_half_width,
)
from cueshift.power.request import PlanRequest
from cueshift.stats import bh_adjust, binomial_test


def binomial_rows(
    test: str,
    families: list[str],
    models: list[str],
    labels: list[str],
    p: np.ndarray,
    n: np.ndarray,
    request: PlanRequest,
    rng: np.random.Generator,
) -> pl.DataFrame:
    """Power rows of the exact binomial tests of win share ``p`` in ``n`` valid trials, BH per
    entry of ``families`` (the module docstring); ``rng`` draws the simulated studies."""
    t = request.targets
    level = np.zeros(p.size)
    level_mde = np.zeros(p.size)
    power = np.zeros(p.size)
    for fam in sorted(set(families)):
        idx = np.array([f == fam for f in families])
        m = int(idx.sum())
        lvl = bh_threshold(partial(binomial_power, p[idx], n[idx]), m, t.q)
        level[idx] = lvl
        power[idx] = binomial_power(p[idx], n[idx], lvl)
        m_true = max(int((np.abs(p[idx] - 0.5) >= t.effect).sum()), 1)
        level_mde[idx] = bh_level_for_target(m, m_true, t.power, t.q)
    mde = solve_increasing(lambda d: binomial_power(0.5 + d, n, level_mde), t.power, 0.0, 0.4999)
    z_a, z_b = special.ndtri(1 - level_mde / 2), special.ndtri(t.power)
    p_t = 0.5 + t.effect
    needed = np.ceil((z_a * 0.5 + z_b * np.sqrt(p_t * (1 - p_t))) ** 2 / t.effect**2)
    hits = np.zeros(p.size)
    for _ in range(request.simulations):
        k = rng.binomial(n.astype(np.int64), p)
        pv = np.array([binomial_test(int(ki), int(ni)) for ki, ni in zip(k, n, strict=True)])
        for fam in sorted(set(families)):
            idx = np.array([f == fam for f in families])
            hits[idx] += np.nan_to_num(bh_adjust(pv[idx]), nan=1.0) <= t.q
    sims = max(request.simulations, 1)
    power_sim = hits / sims if request.simulations else np.full(p.size, np.nan)
    return pl.DataFrame(
        {
            "protocol": "planned",
            "test": test,
            "family": families,
            "model_id": models,
            "target": labels,
            "n_units": n.astype(np.int64),
            "n_tests": [families.count(f) for f in families],
            "n_true": [
                max(int(sum(abs(p[i] - 0.5) >= t.effect for i, g in enumerate(families) if g == f)), 1)
                for f in families
            ],
            "effect": p - 0.5,
            "sd_unit": np.sqrt(p * (1 - p)),
            "alpha_level": level,
            "power": power,
            "power_sim": power_sim,
            "power_sim_se": np.sqrt(power_sim * (1 - power_sim) / sims),
            "n_sims": request.simulations,
            "alpha_mde": level_mde,
            "mde": mde,
            "ci_half_width": wilson_half_width(p, n, t.level),
            "units_for_target": needed,
            "units_planned": n.astype(np.int64),
        }
    )


__all__ = ["binomial_rows"]
