"""Planted effects are recovered: CI coverage and BH false discoveries over repeated simulations.

The simulated judge (``tests.simulate.study``) is additive on the probability scale, so the
planted Δ of a model × variation × scenario cell is an exact population quantity
(``truth.delta_true``). Acceptance regions are binomial at a 0.1 % two-sided level: a badly
calibrated interval (true coverage ≤ 90 % or ≥ 99 %) fails them with near certainty.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from cueshift.designs.stylisticbias.stats import sbs_levels
from cueshift.stats import Resampling
from tests.simulate.outputs import delta_frame
from tests.simulate.study import SimulationSpec, simulate_study

#: Face-only values that every face has (no gender restriction).
VALUES = ("Acne", "Freckles", "Moles", "Black", "Blonde", "Brown", "Gray", "Bald", "Long", "Short")
SCENARIOS = (
    "competent",
    "likeable",
    "intelligent",
    "responsible",
    "open_minded",
    "conscientious",
    "extraverted",
    "emotionally_stable",
    "confident",
    "curious",
)


def _cells(spec: SimulationSpec, n_resamples: int) -> pl.DataFrame:
    study = simulate_study(spec)
    out = sbs_levels(
        delta_frame(study),
        levels=("cell",),
        dimensions=(),
        resampling=Resampling(resamples=n_resamples, seed=spec.seed),
    )
    cells = out.filter((pl.col("level") == "cell") & (pl.col("model_id") != "(pooled)"))
    return cells.join(study.truth, on=["model_id", "variation_value", "scenario_id"])


def test_bootstrap_ci_covers_planted_delta_95_percent():
    n_sims, per_sim = 100, 10
    covered = 0
    for r in range(n_sims):
        spec = SimulationSpec(
            n_faces=50,
            models=("m",),
            variation_values=VALUES[:per_sim],
            scenario_ids=SCENARIOS[:per_sim],
            interactions=False,
            seed=1000 + r,
        )
        cells = _cells(spec, n_resamples=2000)
        # diagonal cells (value i, scenario i) share no face noise: independent trials
        values = sorted(VALUES[:per_sim])
        scen = [s for s in SCENARIOS[:per_sim]]
        diagonal = pl.DataFrame({"variation_value": values, "scenario_id": scen})
        picked = cells.join(diagonal, on=["variation_value", "scenario_id"])
        assert picked.height == per_sim
        covered += int(
            ((picked["ci_low"] <= picked["delta_true"]) & (picked["delta_true"] <= picked["ci_high"])).sum()
        )
    trials = n_sims * per_sim
    lower = stats.binom.ppf(0.0005, trials, 0.95)
    upper = stats.binom.isf(0.0005, trials, 0.95)
    assert lower <= covered <= upper, f"coverage {covered}/{trials} outside [{lower:.0f}, {upper:.0f}]"
    # the region excludes badly calibrated intervals: 90 % or 99 % coverage would land outside it
    assert stats.binom.cdf(lower - 1, trials, 0.90) > 0.99 and stats.binom.sf(upper, trials, 0.99) > 0.99


@pytest.mark.parametrize("test", ["rank", "permutation"])
def test_bh_controls_false_discoveries_with_mixed_nulls(test):
    fdp: list[float] = []
    fdp_raw: list[float] = []
    power: list[float] = []
    for r in range(12):
        spec = SimulationSpec(
            n_faces=80,
            models=("m",),
            variation_values=VALUES,
            scenario_ids=SCENARIOS,
            interactions=False,
            null_fraction=0.5,
            effect_scale=0.1,
            seed=2000 + r,
        )
        study = simulate_study(spec)
        out = sbs_levels(
            delta_frame(study),
            levels=("cell",),
            dimensions=(),
            resampling=Resampling(resamples=999, seed=r, test=test),
        )
        cells = out.filter((pl.col("level") == "cell") & (pl.col("model_id") == "m")).join(
            study.truth, on=["model_id", "variation_value", "scenario_id"]
        )
        null = (cells["delta_true"] == 0).to_numpy()
        assert 0 < null.sum() < cells.height
        for p_col, sink in (("p_adj", fdp), ("p", fdp_raw)):
            reject = (cells[p_col] < 0.05).to_numpy()
            sink.append((reject & null).sum() / max(reject.sum(), 1))
        power.append(((cells["p_adj"] < 0.05).to_numpy() & ~null).sum() / (~null).sum())
    assert np.mean(fdp) <= 0.05, f"BH false-discovery proportion {np.mean(fdp):.3f} > 0.05"
    assert np.mean(fdp_raw) > np.mean(fdp)  # without BH the proportion is visibly larger
    assert np.mean(power) > 0.3  # and BH still finds planted effects


def test_no_planted_effects_few_false_discoveries():
    n_sims, any_false = 40, 0
    for r in range(n_sims):
        spec = SimulationSpec(
            n_faces=40,
            models=("m",),
            variation_values=VALUES[:5],
            scenario_ids=SCENARIOS[:5],
            planted=False,
            seed=3000 + r,
        )
        cells = _cells(spec, n_resamples=200)
        any_false += int((cells["p_adj"] < 0.05).any())
    # every discovery is false here, so FDP = 1{any rejection}; its mean must stay ≲ 5 %
    assert any_false <= stats.binom.isf(0.001, n_sims, 0.05), (
        f"{any_false}/{n_sims} simulations with discoveries"
    )
