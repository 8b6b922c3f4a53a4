"""The negativity asymmetry (seed 000 §5.2) ranks exact per-face differences: planted exact zeros
and ties stay zeros and ties (plain float means turn them into 1e-17 noise), and its p equals
scipy's on the exact rationals. The face ANOVA and the asymmetry do not depend on the row order."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
import scipy.stats as st

from cueshift.designs.stylisticbias.stats import face_anova, negativity_asymmetry
from cueshift.stats import Resampling
from tests.stats.frames import delta_rows

PAIR = ("Worn/Distressed", "Formal/Business")


def _planted(seed: int = 17, n_faces: int = 24) -> tuple[pl.DataFrame, np.ndarray]:
    """Δ rows in sixths (2-6 rows per face and value) and the exact a⁻ − a⁺ of every face."""
    rng = np.random.default_rng(seed)
    rows, exact = [], []
    for i in range(n_faces):
        shift = {}
        for value in PAIR:
            ks = rng.integers(-6, 7, size=int(rng.integers(2, 7))) * 2
            rows += [{"face_id": f"f{i:02d}", "variation_value": value, "scenario_id": f"s{j}",
                      "delta": float(k) / 12} for j, k in enumerate(ks)]  # fmt: skip
            shift[value] = abs(Fraction(int(ks.sum()), 12 * ks.size))
        exact.append(float(shift[PAIR[0]] - shift[PAIR[1]]))
    return delta_rows(rows), np.array(exact)


def _scipy_p(x: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(st.wilcoxon(x, alternative="greater").pvalue)


def test_planted_ties_and_zeros_survive_and_p_equals_scipy_on_exact_values():
    delta, exact = _planted()
    assert (exact == 0).sum() == 3 and exact.size - np.unique(np.abs(exact)).size == 8
    plain = (
        delta.group_by("face_id", "variation_value").agg(pl.col("delta").mean().abs())
        .pivot(on="variation_value", index="face_id", values="delta").sort("face_id")
    )  # fmt: skip
    float_diff = (plain[PAIR[0]] - plain[PAIR[1]]).to_numpy()
    assert (float_diff == 0).sum() < 3  # plain float means lose the planted zeros: this test can fail
    out = negativity_asymmetry(delta, pairs=[PAIR]).row(0, named=True)
    assert out["p"] == pytest.approx(_scipy_p(exact), rel=1e-12)
    assert out["p"] != pytest.approx(_scipy_p(float_diff), rel=1e-6)
    assert out["statistic"] == st.wilcoxon(exact, alternative="greater").statistic
    assert out["n"] == exact.size


@pytest.mark.parametrize("test", ["rank", "permutation"])
def test_asymmetry_and_face_anova_are_identical_in_every_row_order(test):
    delta, _ = _planted()
    even = pl.col("face_id").str.slice(1).cast(pl.Int64) % 2 == 0
    delta = delta.with_columns(gender=pl.when(even).then(pl.lit("male")).otherwise(pl.lit("female")))
    results = []
    for order in range(4):
        shuffled = delta.sample(fraction=1.0, shuffle=True, seed=order)
        results.append(
            (
                negativity_asymmetry(shuffled, pairs=[PAIR], resampling=Resampling(test=test, resamples=999)),
                face_anova(shuffled, dimensions=["gender"], resampling=Resampling(resamples=200)),
            )
        )
    for asymmetry, anova in results[1:]:
        assert asymmetry.equals(results[0][0]) and anova.equals(results[0][1])
