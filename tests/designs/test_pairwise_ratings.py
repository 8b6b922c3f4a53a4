"""The pairwise design's mean ratings with t intervals (``rating_summary``) against independent
references: scipy's t interval on ordinary data; exact rational arithmetic (``statistics``) on
constant ratings, whose mean is the value and whose spread is 0, not rounding noise (D60)."""

from __future__ import annotations

import math
import statistics
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from cueshift.designs.pairwise.ratings import rating_summary


def _ratings(groups: dict[str, list[float | None]]) -> pl.DataFrame:
    """One model rater; a stimulus group per key holding its ratings."""
    return pl.DataFrame(
        [
            {
                "rater_kind": "model",
                "rater_id": "m",
                "image_id": f"{group}{i}",
                "attribute": "beauty",
                "rating": value,
                "cohort": "c1",
                "stimulus_group": group,
            }
            for group, values in groups.items()
            for i, value in enumerate(values)
        ],
        schema_overrides={"rating": pl.Float64},
    )


def _row(summary: pl.DataFrame, group: str) -> dict[str, Any]:
    return summary.filter(pl.col("stimulus_group") == group).row(0, named=True)


def _scipy_interval(values: list[float], confidence: float) -> tuple[float, float]:
    x = np.asarray(values)
    low, high = sps.t.interval(confidence, x.size - 1, loc=x.mean(), scale=sps.sem(x))
    return float(low), float(high)


@pytest.mark.parametrize("confidence", [0.95, 0.8])
def test_ordinary_ratings_match_scipys_t_interval(confidence: float) -> None:
    rng = np.random.default_rng(5)
    groups: dict[str, list[float | None]] = {
        "a": rng.integers(0, 11, 40).astype(float).tolist(),
        "b": np.round(rng.uniform(0, 10, 7), 1).tolist(),
        "c": [2.0, 9.0],
    }
    summary = rating_summary(_ratings(groups), confidence=confidence)
    for group, values in groups.items():
        row, valid = _row(summary, group), [float(v) for v in values if v is not None]
        low, high = _scipy_interval(valid, confidence)
        assert row["n"] == len(valid) and row["n_invalid"] == 0
        assert row["estimate"] == pytest.approx(statistics.mean(valid), rel=1e-14)
        assert row["sd"] == pytest.approx(statistics.stdev(valid), rel=1e-12)
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), rel=1e-12)


@pytest.mark.parametrize(("value", "n"), [(0.3, 10), (2.7, 100), (0.1, 45), (7.0, 3), (0.0, 5)])
def test_constant_ratings_give_the_value_and_a_zero_width_interval(value: float, n: int) -> None:
    # Before: polars' mean of ten ratings 0.3 was 0.29999999999999993 with sd 5.9e-17, and the
    # interval was that rounding noise about it (100 ratings 2.7: sd 8.9e-16).
    row = _row(rating_summary(_ratings({"g": [value] * n})), "g")
    exact_mean, exact_sd = statistics.mean([value] * n), statistics.stdev([value] * n)
    assert (exact_mean, exact_sd) == (value, 0.0)  # the reference: exact rational arithmetic
    assert row["estimate"] == exact_mean and row["sd"] == exact_sd
    assert row["ci_low"] == row["ci_high"] == exact_mean


def test_a_single_rating_has_no_interval_and_a_nan_rating_is_invalid() -> None:
    summary = rating_summary(_ratings({"one": [6.0, None], "nan": [1.0, math.nan, 3.0, 8.0]}))
    one = _row(summary, "one")
    assert (one["estimate"], one["n"], one["n_invalid"]) == (6.0, 1, 1)
    assert one["sd"] is None and one["ci_low"] is None and one["ci_high"] is None
    # A NaN is no rating (the store holds none: parse_rating and the human CSVs refuse it): it
    # counts as invalid, as NULL does, and the mean is that of the others (was NaN, n = 4).
    row, valid = _row(summary, "nan"), [1.0, 3.0, 8.0]
    assert (row["n"], row["n_invalid"]) == (3, 1)
    assert row["estimate"] == pytest.approx(statistics.mean(valid), rel=1e-14)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(_scipy_interval(valid, 0.95), rel=1e-12)


def test_an_infinite_rating_gives_an_undefined_interval_as_scipy() -> None:
    summary = rating_summary(_ratings({"mixed": [1.0, math.inf, 3.0], "all": [math.inf, math.inf]}))
    for group, values in (("mixed", [1.0, math.inf, 3.0]), ("all", [math.inf, math.inf])):
        row = _row(summary, group)
        with np.errstate(invalid="ignore"):
            low, high = _scipy_interval(values, 0.95)
        assert row["estimate"] == math.inf and row["n"] == len(values)
        assert math.isnan(low) and math.isnan(high)
        assert math.isnan(row["ci_low"]) and math.isnan(row["ci_high"])
