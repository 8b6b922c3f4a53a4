"""Seed 004 Table 1 (:mod:`cueshift.designs.probe.dataset_size`): the similarity's mean, SD and
maximum per dataset size and Cohen's d between sizes, against numpy and scipy's t test."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from cueshift.designs.probe.dataset_size import size_effects, size_summary

SIZES = {"a1": 2e9, "a2": 2e9, "a3": 2e9, "b1": 4e8, "b2": 4e8, "c1": 8e7}


def _frames() -> tuple[pl.DataFrame, pl.DataFrame]:
    rng = np.random.default_rng(3)
    rows = [
        {"model_id": m, "attribute": a, "estimate": float(rng.uniform(-0.2, 0.9))}
        for m in SIZES
        for a in ("happy", "smart")
    ]
    registry = pl.DataFrame({"model_id": list(SIZES), "dataset_size": list(SIZES.values())})
    return pl.DataFrame(rows), registry


def test_summary_is_mean_sd_max_per_size() -> None:
    similarity, registry = _frames()
    out = size_summary(similarity, registry)
    for row in out.iter_rows(named=True):
        models = [m for m, s in SIZES.items() if s == row["dataset_size"]]
        values = similarity.filter(
            pl.col("model_id").is_in(models) & (pl.col("attribute") == row["attribute"])
        )["estimate"].to_numpy()
        assert row["estimate"] == pytest.approx(values.mean()) and row["max"] == pytest.approx(values.max())
        assert row["n"] == len(models)
        assert (row["sd"] is None) if len(models) == 1 else row["sd"] == pytest.approx(values.std(ddof=1))
    assert out.height == 2 * 3


def test_effects_are_cohens_d_and_student_t_between_sizes_with_two_models() -> None:
    similarity, registry = _frames()
    out = size_effects(similarity, registry)
    assert out.select("size_a", "size_b").unique().rows() == [(2e9, 4e8)]  # 8e7 has one model
    for row in out.iter_rows(named=True):
        part = similarity.filter(pl.col("attribute") == row["attribute"])
        x = part.filter(pl.col("model_id").str.starts_with("a"))["estimate"].to_numpy()
        y = part.filter(pl.col("model_id").str.starts_with("b"))["estimate"].to_numpy()
        pooled = np.sqrt((2 * x.var(ddof=1) + 1 * y.var(ddof=1)) / 3)
        assert row["estimate"] == pytest.approx((x.mean() - y.mean()) / pooled)
        reference = stats.ttest_ind(x, y)
        assert row["statistic"] == pytest.approx(reference.statistic)
        assert row["p"] == pytest.approx(reference.pvalue) and row["df"] == 3
        assert (row["n_a"], row["n_b"]) == (3, 2)
    one_each = registry.filter(pl.col("model_id").is_in(["a1", "b1", "c1"]))
    assert size_effects(similarity, one_each).height == 0
