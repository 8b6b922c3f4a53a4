"""Batched simulated studies are the replicates one at a time: the same random numbers in the same
order give the same per-face means and scenario φ (against the cell-by-cell draws of
``draw_cells`` and ``draw_phi``), and the batched scenario tests reject where scipy's tests on
those φ do."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from cueshift.power.components import Effects, ModelInputs, PlanInputs
from cueshift.power.model import StudyModel, group_levels, study_model
from cueshift.power.protocol import Mode
from cueshift.power.replicates import batch_size, draw_batch
from cueshift.power.simulate import Simulations, simulated_power
from cueshift.power.study_draws import draw_cells, draw_phi, face_means
from cueshift.stats import bh_adjust
from tests.power.conftest import PLANTED, planted_protocol

VS = {"gender": 0.03, "age": 0.02}


def _model(modes: dict[str, Mode], serving: float = 0.0) -> StudyModel:
    effects = Effects({f"v{k:02d}": e for k, e in enumerate([0.0, 0.01, 0.03])}, vs=VS)
    components = replace(PLANTED, serving=serving)
    inputs = PlanInputs({m: ModelInputs(m, components, effects, "planted") for m in modes}, {}, "planted")
    protocol = replace(planted_protocol(40, 3, 6, models=tuple(modes)), modes=modes)
    return study_model(protocol, inputs)


def _one_at_a_time(sm: StudyModel, rng: np.random.Generator) -> tuple[np.ndarray, list[np.ndarray]]:
    """One replicate the unbatched way: cell-by-cell φ, then each scenario family's draws."""
    means = np.stack([face_means(cells) for cells in draw_cells(sm, rng)])
    phis = []
    for dim, shifts in sm.group_shift.items():
        groups, codes = group_levels(sm.protocol, dim)
        for j in range(len(sm.models)):
            if len(groups) < 2 or np.all(np.isnan(shifts[j])):
                continue
            keep = codes >= 0
            pure = max(float(sm.base_within[dim][j] - sm.phi_error[j]), 0.0)
            p = (
                sm.p0[j]
                + shifts[j][keep, None]
                + rng.normal(0.0, np.sqrt(pure), (int(keep.sum()), sm.scenarios))
            )
            phis.append(draw_phi(sm, j, p, rng)[0])
    return means, phis


@pytest.mark.parametrize(
    ("modes", "serving"),
    [
        ({"a": "sampling", "b": "score"}, 0.0),
        ({"a": "score", "b": "sampling"}, 0.02**2),
        ({"a": "sampling"}, 0.02**2),
    ],
)
def test_a_batch_is_its_replicates_one_at_a_time(modes: dict[str, Mode], serving: float) -> None:
    sm = _model(modes, serving)
    batch = draw_batch(sm, np.random.default_rng(5), 3, scenario=True)
    rng = np.random.default_rng(5)
    for r in range(3):
        means, phis = _one_at_a_time(sm, rng)
        np.testing.assert_allclose(batch.means[r], means, rtol=0, atol=1e-12)
        assert len(batch.scenario) == len(phis) == 2 * len(modes)
        for family, phi in zip(batch.scenario, phis, strict=True):
            np.testing.assert_array_equal(family.phi[r], phi)


def test_batched_scenario_tests_reject_where_scipys_tests_do(monkeypatch: pytest.MonkeyPatch) -> None:
    sm = _model({"a": "sampling"})
    monkeypatch.setattr("cueshift.power.replicates.BATCH_BYTES", 1)  # one replicate per batch ...
    assert batch_size(sm, 30) == 1
    single = simulated_power(sm, Simulations(30, seed=4), tests=("vs_scenario",))
    monkeypatch.undo()  # ... against all 30 in one batch
    assert batch_size(sm, 30) == 30
    batched = simulated_power(sm, Simulations(30, seed=4), tests=("vs_scenario",))
    assert single.equals(batched)
    rng = np.random.default_rng(4)
    dims = [dim for dim in sm.group_shift if dim in VS]  # the families in draw order
    hits = {dim: 0.0 for dim in dims}
    for _ in range(30):
        _, phis = _one_at_a_time(sm, rng)
        for dim, phi in zip(dims, phis, strict=True):
            codes = group_levels(sm.protocol, dim)[1]
            kept = codes[codes >= 0]
            samples = [phi[kept == g] for g in np.unique(kept)]
            if len(samples) == 2:
                p = np.array(
                    [stats.mannwhitneyu(*(s[:, c] for s in samples)).pvalue for c in range(sm.scenarios)]
                )
            else:
                p = np.array([stats.kruskal(*(s[:, c] for s in samples)).pvalue for c in range(sm.scenarios)])
            hits[dim] += float((bh_adjust(p) <= 0.05).mean())
    got = {row["target"]: row["power_sim"] for row in batched.iter_rows(named=True)}
    assert got == pytest.approx({dim: h / 30 for dim, h in hits.items()}, abs=1e-12)
