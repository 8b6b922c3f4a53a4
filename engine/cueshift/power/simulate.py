"""Simulated power: draw whole studies at the φ level from the study model and run the study's tests.

Each replicate draws every φ of every model × face × (base or value) × scenario
(:mod:`cueshift.power.model`), averages each face's shifts over the scenarios, and runs the
statistics kernels the analyses run on exactly those per-face values: the signed-rank test of
:func:`cueshift.stats.one_sample_test` (``sbs_levels``, ``demographic_variation_table``),
Kruskal–Wallis / Mann–Whitney (:func:`cueshift.stats.kruskal_columns`,
:func:`cueshift.stats.mann_whitney_columns`; ``demographic_tests``) and BH
(:func:`cueshift.stats.bh_adjust`, which ``bh_by_family`` applies per family). Power is the share
of replicates in which a test's BH-adjusted p-value is at most :math:`q`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.power.draws import GRID, MAX_DENOMINATOR, binomial_counts, binomial_phi, shift_face_means
from cueshift.power.model import StudyModel, group_levels, table11_cells
from cueshift.stats import bh_adjust, kruskal_columns, mann_whitney_columns, one_sample_test


@dataclass(frozen=True)
class Simulations:
    """How a power simulation draws: how many whole studies, from which seed (``cueshift plan
    --simulations``, ``--curve-simulations``, ``--seed``; built by
    :meth:`cueshift.power.request.PlanRequest.simulated`).

    Examples
    --------
    >>> Simulations(n=50, seed=3)
    Simulations(n=50, seed=3)
    """

    #: simulated studies (0: none)
    n: int = 200
    #: seed of the draws (each simulation starts from it afresh)
    seed: int = 0


@dataclass(frozen=True)
class Cells:
    """One model's drawn φ: base ``(F, S)``, variations ``(V, F, S)`` and their valid answers."""

    phi_base: F64
    phi_var: F64
    n_base: NDArray[np.int64] | None
    n_var: NDArray[np.int64] | None


def draw_phi(
    sm: StudyModel, j: int, p: F64, rng: np.random.Generator, *, counts: bool = False
) -> tuple[F64, NDArray[np.int64] | None]:
    """φ of model ``j`` at probabilities ``p``: binomial share of the valid answers (NaN when none
    is valid) or, scored, ``p`` itself; plus serving noise."""
    p = np.clip(p, 0.0, 1.0)
    n_valid: NDArray[np.int64] | None = None
    if sm.score[j]:
        phi = p.copy()
    elif counts:
        valid, k = binomial_counts(p, int(sm.prompts[j]), float(sm.invalid[j]), rng)
        n_valid = valid.astype(np.int64)
        with np.errstate(invalid="ignore", divide="ignore"):
            phi = np.where(valid > 0, k / np.maximum(valid, 1.0), np.nan)
    else:
        phi = binomial_phi(p, int(sm.prompts[j]), float(sm.invalid[j]), rng)
    if sm.serving_sd[j] > 0:
        phi = phi + rng.normal(0.0, sm.serving_sd[j], size=p.shape)
    return phi, n_valid


def correlated_slopes(sm: StudyModel, rng: np.random.Generator) -> F64:
    """Face slopes ``b`` of every model (M × V × F), correlated across models by ``slope_corr``."""
    n_m, n_v, n_f = sm.beta.shape[0], len(sm.values), sm.n_faces
    chol = np.linalg.cholesky(sm.slope_corr)
    z = rng.standard_normal((n_v, n_f, n_m)) @ chol.T
    return np.asarray(np.moveaxis(z, 2, 0) * sm.slope_sd[:, :, None], dtype=np.float64)


def draw_cells(sm: StudyModel, rng: np.random.Generator, *, counts: bool = False) -> Iterator[Cells]:
    """Every model's φ of one simulated study, model by model."""
    n_v, n_f, n_s = len(sm.values), sm.n_faces, sm.scenarios
    slopes = correlated_slopes(sm, rng)
    for j in range(len(sm.models)):
        p_base = sm.p0[j] + rng.normal(0.0, sm.base_sd[j], size=(n_f, n_s))
        phi_b, n_b = draw_phi(sm, j, p_base, rng, counts=counts)
        shift = (
            sm.beta[j][:, None, None]
            + np.nan_to_num(sm.gamma[j])[:, :, None]
            + sm.scenario_dev[j][:, None, :]
            + slopes[j][:, :, None]
            + sm.fs_sd[j] * rng.standard_normal((n_v, n_f, n_s))
        )
        phi_v, n_v_ = draw_phi(sm, j, p_base[None, :, :] + shift, rng, counts=counts)
        phi_v[~sm.applies.T] = np.nan
        yield Cells(phi_b, phi_v, n_b, n_v_)


def draw_face_means(sm: StudyModel, rng: np.random.Generator) -> F64:
    """Every model's per-face mean shifts of one simulated study (``M × V × F``): the same numbers
    as :func:`face_means` of :func:`draw_cells` from the same generator, drawn and averaged in one
    numba pass (:func:`cueshift.power.draws.shift_face_means`)."""
    n_f, n_s = sm.n_faces, sm.scenarios
    slopes = correlated_slopes(sm, rng)
    out = np.empty((len(sm.models), len(sm.values), n_f))
    for j in range(len(sm.models)):
        p_base = sm.p0[j] + rng.normal(0.0, sm.base_sd[j], size=(n_f, n_s))
        phi_b, _ = draw_phi(sm, j, p_base, rng)
        offset = sm.beta[j][:, None] + np.nan_to_num(sm.gamma[j])
        out[j] = shift_face_means(
            phi_b,
            p_base,
            offset + slopes[j],
            sm.scenario_dev[j],
            float(sm.fs_sd[j]),
            n=int(sm.prompts[j]),
            invalid_rate=float(sm.invalid[j]),
            scored=bool(sm.score[j]),
            serving_sd=float(sm.serving_sd[j]),
            applies=sm.applies,
            rng=rng,
        )
    return out


def face_means(cells: Cells) -> F64:
    """Per-face mean Δ over the scenarios with a Δ (``V × F``), as ``face_matrix`` averages rows:
    summed exactly over the common denominator of the drawn valid counts (when the cells carry
    them), else on :data:`~cueshift.power.draws.GRID` (:func:`~cueshift.power.draws.mean_scale`)."""
    delta = cells.phi_var - cells.phi_base[None, :, :]
    ok = np.isfinite(delta)
    scale = GRID
    if cells.n_var is not None and cells.n_base is not None:
        present = np.unique(np.concatenate([cells.n_var[ok], np.broadcast_to(cells.n_base, ok.shape)[ok]]))
        scale = _lcm_scale(present[present > 0])
    total = np.rint(np.where(ok, delta, 0.0) * scale).sum(axis=2)
    n = ok.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / (np.maximum(n, 1) * scale), np.nan)


def _lcm_scale(counts: NDArray[np.int64]) -> float:
    """Least common multiple of ``counts`` (1 when empty), or the grid beyond the largest denominator."""
    scale = int(np.lcm.reduce(counts.astype(np.int64))) if counts.size else 1
    return float(scale) if scale <= MAX_DENOMINATOR else GRID


def _reject(p: F64, q: float) -> NDArray[np.bool_]:
    adjusted = bh_adjust(p)
    return np.asarray(np.nan_to_num(adjusted, nan=1.0) <= q)


class _Tally:
    def __init__(self) -> None:
        self.hits: dict[tuple[str, str], F64] = {}
        self.labels: dict[tuple[str, str], tuple[str, list[str]]] = {}

    def add(
        self, test: str, family: str, model_id: str, labels: list[str], reject: NDArray[np.bool_]
    ) -> None:
        key = (test, family)
        self.labels.setdefault(key, (model_id, labels))
        self.hits[key] = self.hits.get(key, np.zeros(reject.shape)) + reject

    def frame(self, n_sims: int) -> pl.DataFrame:
        parts = []
        for (test, family), hits in self.hits.items():
            model_id, labels = self.labels[(test, family)]
            power = hits / n_sims
            parts.append(
                pl.DataFrame(
                    {
                        "test": test,
                        "family": family,
                        "target": labels,
                        "power_sim": power,
                        "power_sim_se": np.sqrt(power * (1 - power) / n_sims),
                        "n_sims": np.full(len(labels), n_sims, dtype=np.int64),
                    }
                )
            )
        return pl.concat(parts) if parts else pl.DataFrame()


def _vs_tests(sm: StudyModel, rng: np.random.Generator, q: float, tally: _Tally) -> None:
    for dim, shifts in sm.group_shift.items():
        groups, codes = group_levels(sm.protocol, dim)
        if len(groups) < 2:
            continue
        keep = codes >= 0
        for j, model_id in enumerate(sm.models):
            if np.all(np.isnan(shifts[j])):
                continue
            pure = max(float(sm.base_within[dim][j] - sm.phi_error[j]), 0.0)
            p = (
                sm.p0[j]
                + shifts[j][keep, None]
                + rng.normal(0.0, np.sqrt(pure), (int(keep.sum()), sm.scenarios))
            )
            phi, _ = draw_phi(sm, j, p, rng)
            if len(groups) == 2:
                p_values = mann_whitney_columns(phi, codes[keep]).p_value
            else:
                p_values = kruskal_columns(phi, codes[keep], len(groups)).p_value
            share = np.array([_reject(p_values, q).mean()])
            tally.add("vs_scenario", f"{model_id} | {dim}", model_id, [dim], share)


def simulated_power(
    sm: StudyModel,
    simulations: Simulations = Simulations(),
    *,
    q: float = 0.05,
    tests: tuple[str, ...] = ("all",),
) -> pl.DataFrame:
    """Share of ``simulations.n`` simulated studies in which each test rejects after BH in its family.

    Returns
    -------
    polars.DataFrame
        ``test, family, target, power_sim, power_sim_se, n_sims`` (the keys of the analytic rows).
    """

    def want(name: str) -> bool:
        return "all" in tests or name in tests

    n_sims = simulations.n
    rng = np.random.default_rng(simulations.seed)
    tally = _Tally()
    cells = table11_cells(sm.protocol)
    cell_cols = cells["value_index"].to_numpy()
    member = (
        np.stack(
            [
                group_levels(sm.protocol, d)[1] == g
                for d, g in zip(cells["dimension"], cells["group_index"], strict=True)
            ]
        )
        if cells.height
        else np.zeros((0, sm.n_faces), bool)
    )
    cell_labels = [
        f"{v} | {d}={g}" for v, d, g in cells.select("variation_value", "dimension", "group").iter_rows()
    ]
    for _ in range(n_sims):
        means = draw_face_means(sm, rng)  # M × V × F
        if want("sbs_attribute"):
            for j, model_id in enumerate(sm.models):
                p = one_sample_test(means[j].T)[1]
                tally.add("sbs_attribute", model_id, model_id, sm.values, _reject(p, q))
        if want("model_pair"):
            for a, b in combinations(range(len(sm.models)), 2):
                label = f"{sm.models[a]} - {sm.models[b]}"
                p = one_sample_test((means[a] - means[b]).T)[1]
                tally.add("model_pair", label, label, sm.values, _reject(p, q))
        if want("table11_cell") and cells.height:
            pooled = means.mean(axis=0)
            values = np.where(member, pooled[cell_cols], np.nan)
            p = one_sample_test(values.T)[1]
            tally.add("table11_cell", "all cells", "(pooled)", cell_labels, _reject(p, q))
        if want("vs_scenario"):
            _vs_tests(sm, rng, q, tally)
    return tally.frame(n_sims)


__all__ = [
    "Cells",
    "Simulations",
    "correlated_slopes",
    "draw_cells",
    "draw_face_means",
    "draw_phi",
    "face_means",
    "simulated_power",
]
