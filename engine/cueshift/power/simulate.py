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

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.power.model import StudyModel, group_levels, table11_cells
from cueshift.power.progress import SILENT, Progress
from cueshift.power.replicates import ScenarioDraws, batch_size, draw_batch
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


def _scenario_tests(sm: StudyModel, drawn: list[ScenarioDraws], q: float, tally: _Tally) -> None:
    """Each replicate's Kruskal–Wallis (Mann–Whitney for two groups) tests of the scenarios' φ
    across a grouping's groups: one kernel call per family over the batch's columns."""
    for family in drawn:
        n_r, n_kept, n_s = family.phi.shape
        columns = family.phi.transpose(1, 0, 2).reshape(n_kept, n_r * n_s)
        if len(family.groups) == 2:
            p_values = mann_whitney_columns(columns, family.codes).p_value
        else:
            p_values = kruskal_columns(columns, family.codes, len(family.groups)).p_value
        model_id = sm.models[family.j]
        for p in p_values.reshape(n_r, n_s):
            share = np.array([_reject(p, q).mean()])
            tally.add("vs_scenario", f"{model_id} | {family.dim}", model_id, [family.dim], share)


def _one_sample_rows(values: F64) -> F64:
    """Signed-rank p of every row of ``values`` (``R × tests × faces``) in one call: ``R × tests``."""
    n_r, n_t, n_f = values.shape
    return one_sample_test(values.reshape(n_r * n_t, n_f).T)[1].reshape(n_r, n_t)


def simulated_power(
    sm: StudyModel,
    simulations: Simulations = Simulations(),
    *,
    q: float = 0.05,
    tests: tuple[str, ...] = ("all",),
    progress: Progress = SILENT,
    task: str = "simulated studies",
) -> pl.DataFrame:
    """Share of ``simulations.n`` simulated studies in which each test rejects after BH in its family
    (drawn in batches, :mod:`cueshift.power.replicates`; ``progress`` gets ``task``'s studies done).

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
    done = 0
    progress.step(task, done, n_sims)
    while done < n_sims:
        reps = min(batch_size(sm, n_sims), n_sims - done)
        batch = draw_batch(sm, rng, reps, scenario=want("vs_scenario"))
        means = batch.means  # R × M × V × F
        if want("sbs_attribute"):
            for j, model_id in enumerate(sm.models):
                for p in _one_sample_rows(means[:, j]):
                    tally.add("sbs_attribute", model_id, model_id, sm.values, _reject(p, q))
        if want("model_pair"):
            for a, b in combinations(range(len(sm.models)), 2):
                label = f"{sm.models[a]} - {sm.models[b]}"
                for p in _one_sample_rows(means[:, a] - means[:, b]):
                    tally.add("model_pair", label, label, sm.values, _reject(p, q))
        if want("table11_cell") and cells.height:
            pooled = means.mean(axis=1)
            values = np.where(member[None], pooled[:, cell_cols], np.nan)
            for p in _one_sample_rows(values):
                tally.add("table11_cell", "all cells", "(pooled)", cell_labels, _reject(p, q))
        _scenario_tests(sm, batch.scenario, q, tally)
        done += reps
        progress.step(task, done, n_sims)
    return tally.frame(n_sims)


__all__ = ["Simulations", "simulated_power"]
