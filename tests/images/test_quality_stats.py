"""Counterfactual quality statistics: cosines, robust z, outliers per attribute, threshold drops.

References: scipy's cosine distance and median absolute deviation, hand-worked cases, and
simulated cosines with planted off-identity variations.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.spatial.distance import cosine as cosine_distance
from scipy.stats import median_abs_deviation

from cueshift.stats import identity_drops, identity_outliers, robust_z, row_cosines


def test_row_cosines_match_scipy() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(20, 7)), rng.normal(size=(20, 7))
    expected = [1.0 - cosine_distance(x, y) for x, y in zip(a, b, strict=True)]
    np.testing.assert_allclose(row_cosines(a, b), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(row_cosines(a, 3.0 * a), 1.0)  # scale does not matter
    assert np.isnan(row_cosines(np.zeros((1, 3)), np.ones((1, 3)))[0])


def test_robust_z_by_hand_and_against_scipy_mad() -> None:
    # median 2.5, absolute deviations 1.5, 0.5, 0.5, 7.5: MAD 1.0
    np.testing.assert_allclose(robust_z([1.0, 2.0, 3.0, 10.0]), 0.6745 * np.array([-1.5, -0.5, 0.5, 7.5]))
    x = np.random.default_rng(1).normal(size=51)
    expected = 0.6745 * (x - np.median(x)) / median_abs_deviation(x)
    np.testing.assert_allclose(robust_z(x), expected, rtol=1e-12)
    flat = robust_z([0.9, 0.9, 0.9, 0.5])  # MAD 0: the median is 0, others infinite
    assert flat[0] == 0.0 and flat[3] == -np.inf


def test_planted_off_identity_variations_are_the_outliers_of_their_attribute() -> None:
    rng = np.random.default_rng(2)
    rows = []
    for key, centre in (("eyewear", 0.93), ("hair_style", 0.85)):  # attributes differ in level
        for i in range(40):
            rows.append((f"{key}-{i}", key, float(np.clip(rng.normal(centre, 0.01), -1, 1))))
    rows += [("eyewear-swap", "eyewear", 0.70), ("hair-swap", "hair_style", 0.62)]  # another person
    frame = pl.DataFrame(rows, schema=["image_id", "feature_key", "cosine"], orient="row")
    flagged = identity_outliers(frame)
    assert set(flagged.filter("outlier")["image_id"]) == {"eyewear-swap", "hair-swap"}
    # pooled over attributes, the eyewear swap sits at the hair-style level and is missed
    pooled = robust_z(frame["cosine"].to_numpy())
    assert pooled[frame["image_id"].to_list().index("eyewear-swap")] > -3.5


def test_identity_drops_counts_each_threshold() -> None:
    frame = identity_outliers(
        pl.DataFrame(
            {
                "image_id": ["a", "b", "c", "d", "e"],
                "feature_key": ["x", "x", "x", "y", "y"],
                "cosine": [0.95, 0.75, 0.55, 0.85, 0.65],
            }
        )
    )
    drops = identity_drops(frame, [0.6, 0.8], applied=0.7)
    assert drops["threshold"].unique().sort().to_list() == [0.6, 0.7, 0.8]
    counted = {
        (t, k): (n, d)
        for t, k, n, d in drops.select("threshold", "feature_key", "n_variations", "n_dropped").rows()
    }
    assert counted[(0.6, "x")] == (3, 1) and counted[(0.7, "all")] == (5, 2) and counted[(0.8, "y")] == (2, 1)
    assert drops.filter("applied")["threshold"].unique().to_list() == [0.7]
    assert drops.filter(pl.col("feature_key") == "x")["min_cosine"].unique().to_list() == [
        pytest.approx(0.55)
    ]


def test_identity_drops_tells_whether_the_attribute_sbs_survives() -> None:
    # attribute x: faces f1 (cosine .95, mean Delta .3), f2 (.75, -.1), f3 (.55, -.5); y unmeasured
    identity = identity_outliers(
        pl.DataFrame(
            {
                "image_id": ["a", "b", "c"],
                "face_id": ["f1", "f2", "f3"],
                "feature_key": ["x", "x", "x"],
                "variation_value": ["v", "v", "v"],
                "cosine": [0.95, 0.75, 0.55],
            }
        )
    )
    delta = pl.DataFrame(
        {
            "face_id": ["f1", "f1", "f2", "f3", "f1"],
            "feature_key": ["x", "x", "x", "x", "y"],
            "variation_value": ["v", "v", "v", "v", "w"],
            "delta": [0.2, 0.4, -0.1, -0.5, 0.9],
        }
    )
    drops = identity_drops(identity, [0.6, 0.8], applied=None, delta=delta)
    x = {t: (a, k, s) for t, a, k, s in drops.filter(pl.col("feature_key") == "x").select(
        "threshold", "sbs_all", "sbs_kept", "sign_kept").rows()}  # fmt: skip
    assert x[0.6] == (pytest.approx(-0.1), pytest.approx(0.1), False)  # (.3 - .1 - .5) / 3 vs (.3 - .1) / 2
    assert x[0.8] == (pytest.approx(-0.1), pytest.approx(0.3), False)
    pooled = drops.filter((pl.col("feature_key") == "all") & (pl.col("threshold") == 0.8))
    # pooled: f1 (.2, .4, .9) mean .5 stays, f2 and f3 dropped; y has no cosine and is kept
    assert pooled["sbs_kept"].to_list() == [pytest.approx(0.5)]
    assert identity_drops(identity, [0.6], applied=None)["sbs_all"].null_count() == 2
