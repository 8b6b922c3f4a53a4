r"""The StylisticBias tests a plan covers, with normal-theory power read off the study model.

Each test works on one value per face (seed 000 §4.4: faces are the unit). Its mean
:math:`\mu` and variance :math:`\sigma^2` across faces follow from
:class:`~cueshift.power.model.StudyModel`; power is :func:`~cueshift.power.analytic.wsrt_power`
(Kruskal–Wallis / Mann–Whitney: :func:`~cueshift.power.analytic.kruskal_power`) at the level BH
reaches in the test's family (:func:`~cueshift.power.analytic.bh_threshold`).

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
from itertools import combinations

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
from cueshift.power.model import StudyModel, group_levels, spaced_effects, table11_cells


@dataclass(frozen=True)
class Targets:
    """What a plan aims at: FDR level, power, the effect to detect, the interval level."""

    q: float = 0.05
    power: float = 0.8
    effect: float = 0.05
    level: float = 0.95


@dataclass(frozen=True)
class TestSet:
    """One family of one-sample face-level tests: per test its label, mean and sd of the per-face
    value and number of faces, and the planned faces of the study."""

    test: str
    family: str
    model_id: str
    labels: list[str]
    mean: F64
    sd: F64
    n: F64
    faces: int


def _error_per_model(sm: StudyModel) -> F64:
    return np.asarray((sm.fs_sd**2 + 2.0 * sm.phi_error) / sm.scenarios, dtype=np.float64)


def attribute_sets(sm: StudyModel) -> list[TestSet]:
    """SBS per value, one family per model."""
    out = []
    err = _error_per_model(sm)
    n = sm.applies.sum(axis=0).astype(np.float64)
    for j, model_id in enumerate(sm.models):
        g = sm.gamma[j]
        with np.errstate(invalid="ignore"):
            mean = sm.beta[j] + np.nanmean(g, axis=1)
            var = np.nanvar(g, axis=1) + sm.slope_sd[j] ** 2 + err[j]
        out.append(TestSet("sbs_attribute", model_id, model_id, sm.values, mean, np.sqrt(var), n, sm.n_faces))
    return out


def pair_sets(sm: StudyModel) -> list[TestSet]:
    """Differences between two models' SBS per value, one family per pair."""
    out = []
    err = _error_per_model(sm)
    n = sm.applies.sum(axis=0).astype(np.float64)
    for a, b in combinations(range(len(sm.models)), 2):
        diff = sm.gamma[a] - sm.gamma[b]
        cov = sm.slope_corr[a, b] * sm.slope_sd[a] * sm.slope_sd[b]
        with np.errstate(invalid="ignore"):
            mean = sm.beta[a] - sm.beta[b] + np.nanmean(diff, axis=1)
            var = (
                np.nanvar(diff, axis=1)
                + sm.slope_sd[a] ** 2
                + sm.slope_sd[b] ** 2
                - 2 * cov
                + err[a]
                + err[b]
            )
        label = f"{sm.models[a]} - {sm.models[b]}"
        out.append(TestSet("model_pair", label, label, sm.values, mean, np.sqrt(var), n, sm.n_faces))
    return out


def cell_set(sm: StudyModel) -> TestSet:
    """Table 11: per value × demographic group, the faces' mean Δ over scenarios and models."""
    cells = table11_cells(sm.protocol)
    n_m = len(sm.models)
    gbar = sm.gamma.mean(axis=0)  # V × F
    beta = sm.beta.mean(axis=0)
    slope = sm.slope_sd[:, None, :] * sm.slope_sd[None, :, :]  # M × M × V
    slope_var = (sm.slope_corr[:, :, None] * slope).sum(axis=(0, 1)) / n_m**2
    err = _error_per_model(sm).sum() / n_m**2
    mean, var, labels = [], [], []
    for v, vi, dim, g, gi, _ in cells.iter_rows():
        _, codes = group_levels(sm.protocol, dim)
        member = sm.applies[:, vi] & (codes == gi)
        vals = gbar[vi, member]
        mean.append(beta[vi] + vals.mean())
        var.append(vals.var() + slope_var[vi] + err)
        labels.append(f"{v} | {dim}={g}")
    return TestSet(
        "table11_cell",
        "all cells",
        "(pooled)",
        labels,
        np.array(mean),
        np.sqrt(np.array(var)),
        cells["n"].cast(pl.Float64).to_numpy(),
        sm.n_faces,
    )


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


__all__ = ["Targets", "TestSet", "analytic_frame", "attribute_sets", "cell_set", "pair_sets", "vs_rows"]
