"""Sign reversals between models with evidence: judges with identical planted effects show point
reversals but no reversal with evidence; planted opposite effects are found; the per-model tests
are the ``result_sbs`` scenario tests."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cueshift.designs.stylisticbias.stats import cross_model, sbs_levels, scenario_reversals
from cueshift.stats import Resampling
from tests.stats.frames import delta_rows

SCENARIOS = [f"s{j:02d}" for j in range(25)]


def binomial_judges(
    effects: dict[str, np.ndarray], *, n_faces: int = 60, n_values: int = 4, seed: int = 0
) -> pl.DataFrame:
    """φ-level judges: per model, face, scenario a base probability 0.5 + face intercept; each of
    ``n_values`` variations adds ``effects[model][scenario]`` (the planted scenario SBS) plus a
    face × variation slope; φ = Binomial(12, p) / 12 and Δ = φ(variation) − φ(base)."""
    rng = np.random.default_rng(seed)
    rows = []
    for model, beta in effects.items():
        intercept = rng.normal(0.0, 0.05, size=n_faces)
        for f in range(n_faces):
            slopes = rng.normal(0.0, 0.03, size=n_values)
            for s, scenario in enumerate(SCENARIOS):
                p_base = 0.5 + intercept[f]
                phi_base = rng.binomial(12, p_base) / 12
                for v in range(n_values):
                    phi = rng.binomial(12, np.clip(p_base + beta[s] + slopes[v], 0, 1)) / 12
                    rows.append(
                        {
                            "model_id": model,
                            "face_id": f"f{f:03d}",
                            "variation_value": f"v{v}",
                            "scenario_id": scenario,
                            "phi_variation": phi,
                            "phi_base": phi_base,
                            "delta": phi - phi_base,
                        }
                    )
    return delta_rows(rows)


def small_effects(seed: int = 1) -> np.ndarray:
    """Scenario SBS of one judge: most near zero (where point estimates flip sign by chance)."""
    return np.random.default_rng(seed).normal(0.0, 0.01, size=len(SCENARIOS))


def test_identical_judges_have_point_reversals_but_none_with_evidence() -> None:
    beta = small_effects()
    data = binomial_judges({"judge-a": beta, "judge-b": beta}, seed=3)
    row = cross_model(data).row(0, named=True)
    assert row["n_sign_reversed"] >= 5  # what the point estimates alone would report
    assert row["n_reversed_significant"] == 0
    assert row["n_reversed_not_distinguishable"] == row["n_sign_reversed"]


def test_planted_opposite_effects_are_reversals_with_evidence() -> None:
    beta = small_effects()
    flipped = beta.copy()
    strong = [0, 5, 10, 15, 20]
    beta[strong], flipped[strong] = 0.08, -0.08
    data = binomial_judges({"judge-a": beta, "judge-b": flipped}, seed=4)
    table = scenario_reversals(data)
    found = set(table.filter(pl.col("reversed_significant"))["scenario_id"].to_list())
    planted = {SCENARIOS[i] for i in strong}
    # every planted reversal is found; the other 20 scenarios have no true difference, and their
    # differences are tested with BH at 0.05 among them (here 2 false discoveries at |z| ≈ 2.4)
    assert planted <= found and len(found - planted) <= 2
    row = cross_model(data).row(0, named=True)
    assert row["n_reversed_significant"] == len(found)
    assert row["n_reversed_significant"] + row["n_reversed_not_distinguishable"] == row["n_sign_reversed"]


def test_a_significant_difference_alone_counts_as_evidence() -> None:
    # judge a +0.12 everywhere, judge b -0.005: b's SBS is not significant, the difference is
    beta = np.full(len(SCENARIOS), 0.12)
    data = binomial_judges({"judge-a": beta, "judge-b": np.full(len(SCENARIOS), -0.005)}, seed=5)
    reversed_rows = scenario_reversals(data).filter(pl.col("reversed"))
    assert reversed_rows.height >= 5
    assert (reversed_rows["p_adj_b"] >= 0.05).all() and (reversed_rows["p_adj_difference"] < 0.05).all()
    assert reversed_rows["reversed_significant"].all()


def test_per_model_tests_are_the_sbs_scenario_tests() -> None:
    data = binomial_judges({"judge-a": small_effects(2), "judge-b": small_effects(3)}, n_faces=30, seed=6)
    table = scenario_reversals(data)
    sbs = sbs_levels(data, levels=("scenario",), dimensions=(), resampling=Resampling(resamples=100)).filter(
        pl.col("level") == "scenario"
    )
    for side in ("a", "b"):
        joined = table.join(
            sbs.select(pl.col("model_id").alias(f"model_{side}"), "scenario_id", "estimate", "p_adj"),
            on=[f"model_{side}", "scenario_id"],
        )
        assert joined.height == len(SCENARIOS)
        assert joined[f"sbs_{side}"].to_numpy() == pytest.approx(joined["estimate"].to_numpy(), abs=1e-12)
        assert joined[f"p_adj_{side}"].to_numpy() == pytest.approx(joined["p_adj"].to_numpy(), rel=1e-12)


def test_no_rows_or_one_model_give_empty_valid_tables() -> None:
    data = binomial_judges({"judge-a": small_effects()}, n_faces=5, n_values=1)
    assert cross_model(data).height == 0 and scenario_reversals(data).height == 0
    assert cross_model(data.head(0)).height == 0 and scenario_reversals(data.head(0)).height == 0
