"""Reliability kernels: Krippendorff's alpha against the published worked example and by hand,
Spearman–Brown, split-half reliability, and the per-attribute alpha table."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

from cueshift.stats import (
    krippendorff_alpha,
    krippendorff_by_attribute,
    rating_matrix,
    spearman_brown,
    split_half,
    split_half_reliability,
)

NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", worked example C (4 coders x 12 units).
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def test_krippendorff_alpha_published_example_and_hand_worked() -> None:
    published = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
    for level, value in published.items():
        assert round(krippendorff_alpha(KRIPPENDORFF_EXAMPLE, level), 3) == value, level  # type: ignore[arg-type]
    # 2 raters x 3 units (1,1), (2,3), (3,3): o = [[2,0,0],[0,0,1],[0,1,2]], n_c = (2,1,3), n = 6.
    # interval: 1 - 5 * 2 / 58 = 24/29; nominal: 1 - 5 * 2 / 22 = 12/22.
    tiny = [[1, 2, 3], [1, 3, 3]]
    assert krippendorff_alpha(tiny, "interval") == pytest.approx(24 / 29)
    assert krippendorff_alpha(tiny, "nominal") == pytest.approx(12 / 22)
    assert math.isnan(krippendorff_alpha([[1, 1], [1, 1]], "interval"))  # one value: undefined
    assert math.isnan(krippendorff_alpha([[1, NAN], [NAN, 2]], "interval"))  # no pairable unit


def test_spearman_brown_by_hand() -> None:
    assert spearman_brown(0.6) == pytest.approx(0.75)  # 2r / (1 + r)
    assert spearman_brown(0.5, factor=3.0) == pytest.approx(0.75)  # 3r / (1 + 2r)
    # the pole 1 + (k - 1) r = 0: the limit from above, not a ZeroDivisionError
    assert spearman_brown(-1.0) == -math.inf
    assert spearman_brown(-0.5, factor=3.0) == -math.inf
    assert spearman_brown(-0.999) == pytest.approx(-1998.0)


def test_halves_correlating_at_minus_one_give_an_undefined_estimate() -> None:
    """Two raters in opposite order on three images: every split correlates at r = -1 exactly
    (found by hypothesis in tests/stats/test_properties.py: it raised ZeroDivisionError)."""
    ratings = pl.DataFrame(
        {"rater_id": ["a"] * 3 + ["b"] * 3, "image_id": ["x", "y", "z"] * 2, "rating": [1.0, 2, 3, 3, 2, 1]}
    )
    result = split_half_reliability(ratings, n_splits=5, seed=0)
    assert (
        math.isnan(result["estimate"])
        and math.isnan(result["split_low"])
        and math.isnan(result["split_high"])
    )
    assert result["raw_r"] == pytest.approx(-1.0) and result["n_splits"] == 5
    frame = ratings.rename({"rater_id": "judge", "image_id": "item"})
    assert split_half(frame, "rating", "item", "judge", n_splits=5)["estimate"].to_list() == [None]


def _ratings(n_raters: int, n_images: int, noise: float, seed: int) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.normal(size=n_images)
    values = truth[None, :] + rng.normal(scale=noise, size=(n_raters, n_images))
    return pl.DataFrame(
        {
            "rater_id": np.repeat([f"r{r:02d}" for r in range(n_raters)], n_images),
            "image_id": [f"i{j:03d}" for j in range(n_images)] * n_raters,
            "attribute": "trust",
            "rating": values.ravel(),
        }
    )


def test_split_half_reliability_matches_theory_and_is_seeded() -> None:
    # each rating = truth + noise: one rater's reliability r1 = 1 / (1 + noise^2); a mean of
    # m raters has m r1 / (1 + (m - 1) r1) (Spearman-Brown), here m = 20 after the correction
    ratings = _ratings(20, 400, 2.0, seed=3)
    result = split_half_reliability(ratings, n_splits=40, seed=1)
    r1 = 1 / (1 + 4.0)
    assert result["estimate"] == pytest.approx(20 * r1 / (1 + 19 * r1), abs=0.03)
    assert result["raw_r"] == pytest.approx(10 * r1 / (1 + 9 * r1), abs=0.03)
    assert result["split_low"] <= result["estimate"] <= result["split_high"]
    assert (result["n_raters"], result["n_splits"]) == (20, 40)
    assert split_half_reliability(ratings, n_splits=40, seed=1) == result
    single = split_half_reliability(ratings.filter(pl.col("rater_id") == "r00"))
    assert single["n_splits"] == 0 and math.isnan(single["estimate"])


def test_krippendorff_by_attribute_uses_the_rating_matrix() -> None:
    ratings = pl.concat(
        [_ratings(5, 30, 1.0, seed=5), _ratings(5, 30, 1.0, seed=6).with_columns(attribute=pl.lit("warm"))]
    )
    table = krippendorff_by_attribute(ratings)
    assert table.columns == ["attribute", "level", "estimate", "n_units", "n_raters", "n", "test"]
    assert table.height == 4 and set(table["test"]) == {"krippendorff-alpha"}
    trust = rating_matrix(ratings.filter(pl.col("attribute") == "trust"))
    assert trust.shape == (5, 30)
    row = table.filter((pl.col("attribute") == "trust") & (pl.col("level") == "ordinal")).row(0, named=True)
    assert row["estimate"] == krippendorff_alpha(trust, "ordinal")
    assert (row["n_units"], row["n_raters"], row["n"]) == (30, 5, 150)
