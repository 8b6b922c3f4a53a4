r"""The StylisticBias tests a plan covers, with normal-theory power read off the study model.

Each test works on one value per face (seed 000 §4.4: faces are the unit). Its mean
:math:`\mu` and variance :math:`\sigma^2` across faces follow from
:class:`~cueshift.power.model.StudyModel`; power is :func:`~cueshift.power.analytic.wsrt_power`
(Kruskal–Wallis / Mann–Whitney: :func:`~cueshift.power.analytic.kruskal_power`) at the level BH
reaches in the test's family (:func:`~cueshift.power.analytic.bh_threshold`). The one-sample
families and their moments are :mod:`cueshift.power.one_sample_sets`'.

=================  ==========================================  ===============================
test               per-face value (face-level, seed 000)        BH family
=================  ==========================================  ===============================
``sbs_attribute``  mean Δ of one value over the scenarios        the values of one model
``table11_cell``   mean Δ over scenarios and models, faces of    all cells (437 at paper scale)
                   one demographic group
``vs_scenario``    base φ in one scenario, by group (KW/MWU)    the scenarios of model × dim.
``model_pair``     difference of two models' mean Δ              the values of one pair
=================  ==========================================  ===============================
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.power.analytic import (
    RANK_ARE,
    bh_level_for_target,
    bh_threshold,
    kruskal_power,
    normal_half_width,
    solve_increasing,
    wsrt_power,
)
from cueshift.power.model import StudyModel, group_levels, spaced_effects
from cueshift.power.one_sample_sets import TestSet, attribute_sets, cell_set, pair_sets


@dataclass(frozen=True)
class Targets:
    """What a plan aims at: FDR level, power, the effect to detect, the interval level."""

    q: float = 0.05
    power: float = 0.8
    effect: float = 0.05
    level: float = 0.95


def _family_rows(ts: TestSet, targets: Targets) -> dict[str, object]:
    m = len(ts.labels)

    def family_power(t: float) -> F64:
        return wsrt_power(ts.mean, ts.sd, ts.n, t)

    level = bh_threshold(family_power, m, targets.q)
    power = family_power(level)
    m_true = max(int((np.abs(ts.mean) >= targets.effect).sum()), 1)
    level_mde = bh_level_for_target(m, m_true, targets.power, targets.q)
    mde = solve_increasing(lambda x: wsrt_power(x, ts.sd, ts.n, level_mde), targets.power, 0.0, 1.0)
    share = ts.n / ts.faces
    faces_plan = float(ts.faces)
    needed = solve_increasing(
        lambda f: wsrt_power(targets.effect, ts.sd, np.maximum(share * f, 2.0), level_mde),
        targets.power,
        2.0,
        1e6,
    )
    return {
        "test": ts.test,
        "family": ts.family,
        "model_id": ts.model_id,
        "target": ts.labels,
        "n_units": ts.n.astype(np.int64),
        "n_tests": np.full(m, m, dtype=np.int64),
        "n_true": np.full(m, m_true, dtype=np.int64),
        "effect": ts.mean,
        "sd_unit": ts.sd,
        "alpha_level": np.full(m, level),
        "power": power,
        "alpha_mde": np.full(m, level_mde),
        "mde": mde,
        "ci_half_width": normal_half_width(ts.sd, ts.n, targets.level),
        "units_for_target": np.where(np.isfinite(needed), np.ceil(needed), np.nan),
        "units_planned": np.full(m, faces_plan),
    }


def _vs_row(
    model_id: str, dim: str, vs: float, spread: float, sigma2: float, counts: F64, s: int, targets: Targets
) -> dict[str, object]:
    k, total = counts.size, float(counts.sum())

    def lam(effect: F64 | float, faces: F64 | float = total) -> F64:
        # noncentrality (3/pi) sum_g n_g (a_g - a_bar)^2 / sigma^2, with n_g = share_g * faces
        return np.asarray(RANK_ARE * np.asarray(faces) / total * spread * np.asarray(effect) ** 2 / sigma2)

    level = bh_threshold(lambda t: np.full(s, kruskal_power(lam(vs), k, t)), s, targets.q)
    level_mde = bh_level_for_target(s, s, targets.power, targets.q)
    mde = solve_increasing(lambda x: kruskal_power(lam(x), k, level_mde), targets.power, 0.0, 0.5)
    needed = solve_increasing(
        lambda f: kruskal_power(lam(targets.effect, f), k, level_mde), targets.power, 2.0, 1e6
    )
    return {
        "test": "vs_scenario",
        "family": f"{model_id} | {dim}",
        "model_id": model_id,
        "target": [dim],
        "n_units": np.array([int(total)]),
        "n_tests": np.array([s]),
        "n_true": np.array([s]),
        "effect": np.array([vs]),
        "sd_unit": np.array([np.sqrt(sigma2)]),
        "alpha_level": np.array([level]),
        "power": np.atleast_1d(kruskal_power(lam(vs), k, level)),
        "alpha_mde": np.array([level_mde]),
        "mde": np.atleast_1d(mde),
        "ci_half_width": np.array([np.nan]),
        "units_for_target": np.atleast_1d(np.where(np.isfinite(needed), np.ceil(needed), np.nan)),
        "units_planned": np.array([total]),
    }


def vs_rows(sm: StudyModel, targets: Targets) -> list[dict[str, object]]:
    r"""Demographic tests of base φ (Table 9): per model × dimension, one test per scenario,
    BH over the scenarios; the effect is VS (all scenarios alike). Noncentrality
    :math:`\lambda = \frac{3}{\pi}\sum_g n_g (a_g - \bar a)^2/\sigma_W^2`
    (:func:`~cueshift.power.analytic.kruskal_power`)."""
    rows = []
    for dim, shifts in sm.group_shift.items():
        groups, codes = group_levels(sm.protocol, dim)
        k = len(groups)
        if k < 2:
            continue
        counts = np.bincount(codes[codes >= 0], minlength=k).astype(np.float64)
        for j, model_id in enumerate(sm.models):
            sigma2 = float(sm.base_within[dim][j])
            if not np.isfinite(sigma2) or np.all(np.isnan(shifts[j])):
                continue
            per_group = np.array([shifts[j][codes == g][0] if counts[g] else 0.0 for g in range(k)])
            vs = float(per_group.std())
            unit = per_group / vs if vs > 0 else spaced_effects(k, 1.0)
            spread = float((counts * (unit - np.average(unit, weights=counts)) ** 2).sum())
            rows.append(_vs_row(model_id, dim, vs, spread, sigma2, counts, sm.scenarios, targets))
    return rows


def analytic_frame(sm: StudyModel, targets: Targets, *, tests: tuple[str, ...] = ("all",)) -> pl.DataFrame:
    """Every test's analytic power, MDE, half-width and faces needed, one row per test."""
    want: Callable[[str], bool] = lambda name: "all" in tests or name in tests  # noqa: E731
    sets: list[TestSet] = []
    if want("sbs_attribute"):
        sets += attribute_sets(sm)
    if want("table11_cell"):
        sets.append(cell_set(sm))
    if want("model_pair"):
        sets += pair_sets(sm)
    parts = [_family_rows(ts, targets) for ts in sets]
    if want("vs_scenario"):
        parts += vs_rows(sm, targets)
    if not parts:
        return pl.DataFrame()
    return pl.concat([pl.DataFrame(p) for p in parts], how="vertical_relaxed")


__all__ = ["Targets", "analytic_frame", "vs_rows"]
