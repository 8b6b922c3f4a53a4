"""Sign reversals between models with evidence (an intersection–union test, docs/decisions.md#d51):
judges with identical planted effects show point reversals but no reversal with evidence; planted
opposite effects are found; a significant difference against a true zero is not a reversal, and
over simulated datasets such a zero is counted as reversed at most at rate alpha; the per-model
tests are the ``result_sbs`` scenario tests."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cueshift.designs.stylisticbias.stats import cross_model, sbs_levels, scenario_reversals
from cueshift.stats import Resampling
from tests.stats.frames import DELTA_DEFAULTS, delta_rows

SCENARIOS = [f"s{j:02d}" for j in range(25)]
FAST = Resampling(resamples=100)  # rank tests (WSRT): the resamples are not used


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
    # ±0.12: each side's SBS significant on 60 faces (at ±0.08 only 3 of the 5 are, p_adj_b up to
    # 0.36: the intersection–union test asks both signs of the data, not their difference)
    beta[strong], flipped[strong] = 0.12, -0.12
    data = binomial_judges({"judge-a": beta, "judge-b": flipped}, seed=4)
    table = scenario_reversals(data)
    found = set(table.filter(pl.col("reversed_significant"))["scenario_id"].to_list())
    planted = {SCENARIOS[i] for i in strong}
    assert planted <= found and len(found - planted) <= 1  # the others: true SBS ~ N(0, 0.01)
    row = cross_model(data).row(0, named=True)
    assert row["n_reversed_significant"] == len(found)
    difference_only = table.filter(
        pl.col("reversed") & ~pl.col("reversed_significant") & (pl.col("p_adj_difference") < 0.05)
    ).height
    counted = row["n_reversed_significant"] + difference_only + row["n_reversed_not_distinguishable"]
    assert counted == row["n_sign_reversed"]


def test_a_significant_difference_against_a_true_zero_is_not_a_reversal() -> None:
    # judge a +0.12 everywhere, judge b planted 0 (its estimates negative here and there by noise):
    # the difference is significant, b's SBS is not; the former rule counted these as reversals
    beta = np.full(len(SCENARIOS), 0.12)
    data = binomial_judges({"judge-a": beta, "judge-b": np.zeros(len(SCENARIOS))}, seed=5)
    reversed_rows = scenario_reversals(data).filter(pl.col("reversed"))
    assert reversed_rows.height >= 5  # the premise: point estimates of b below 0
    assert (reversed_rows["p_adj_b"] >= 0.05).all() and (reversed_rows["p_adj_difference"] < 0.05).all()
    assert not reversed_rows["reversed_significant"].any()
    row = cross_model(data).row(0, named=True)
    assert row["n_reversed_significant"] == 0 and row["n_reversed_not_distinguishable"] == 0


def normal_judges(
    effect_a: np.ndarray, effect_b: np.ndarray, *, n_faces: int, rng: np.random.Generator
) -> pl.DataFrame:
    """Two judges, one variation: Δ of face f in scenario s = planted SBS + face intercept +
    N(0, 0.1) noise (a Δ frame built column-wise: fast enough for many datasets)."""
    frames = []
    for model, effect in (("judge-a", effect_a), ("judge-b", effect_b)):
        face = rng.normal(0.0, 0.05, size=(n_faces, 1))
        delta = effect[None, :] + face + rng.normal(0.0, 0.1, size=(n_faces, len(SCENARIOS)))
        frames.append(
            pl.DataFrame(
                {
                    "model_id": model,
                    "face_id": np.repeat([f"f{f:03d}" for f in range(n_faces)], len(SCENARIOS)),
                    "scenario_id": np.tile(SCENARIOS, n_faces),
                    "variation_value": "v0",
                    "delta": delta.ravel(),
                }
            )
        )
    data = pl.concat(frames)
    defaults = {k: v for k, v in DELTA_DEFAULTS.items() if k not in data.columns}
    return delta_rows([]).vstack(
        data.with_columns(**{k: pl.lit(v) for k, v in defaults.items()}).select(delta_rows([]).columns)
    )


def test_a_true_zero_is_counted_as_reversed_at_most_at_rate_alpha() -> None:
    # type I of the counted reversal: judge a +0.1 in every scenario; judge b -0.1 in the first 12
    # (true reversals) and exactly 0 in the other 13. Over 30 datasets (390 zero scenarios) a zero
    # scenario of b may count only when b's SBS is significantly below 0: rate <= alpha / 2 per
    # test before BH. The former rule (or the paired difference) counted about half of them.
    rng = np.random.default_rng(20)
    effect_a = np.full(len(SCENARIOS), 0.1)
    effect_b = np.where(np.arange(len(SCENARIOS)) < 12, -0.1, 0.0)
    nulls = set(SCENARIOS[12:])
    counted = former = true_found = 0
    for _ in range(30):
        table = scenario_reversals(normal_judges(effect_a, effect_b, n_faces=30, rng=rng), resampling=FAST)
        zero = table.filter(pl.col("scenario_id").is_in(nulls) & pl.col("reversed"))
        counted += int(zero["reversed_significant"].sum())
        former += zero.filter((pl.col("p_adj_b") < 0.05) | (pl.col("p_adj_difference") < 0.05)).height
        true_found += int(table.filter(~pl.col("scenario_id").is_in(nulls))["reversed_significant"].sum())
    assert counted / (30 * len(nulls)) <= 0.05
    assert former / (30 * len(nulls)) > 0.3  # the former rule's rate on the same data
    assert true_found / (30 * 12) > 0.9  # the planted reversals: power of the test on 30 faces


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
