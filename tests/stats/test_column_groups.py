"""Grouped column sums of face × cell arrays against a plain per-group loop, in the exact range
(one pass of additions) and beyond 2^52 (the sparse product), with and without a face mask."""

from __future__ import annotations

import numpy as np
import pytest

from cueshift.stats._column_groups import exact_group_totals, group_columns, group_totals
from cueshift.stats._exact_means import exact_bincount


def _direct(x: np.ndarray, idx: np.ndarray, n_groups: int, keep: np.ndarray) -> np.ndarray:
    out = np.zeros((x.shape[0], n_groups))
    for g in range(n_groups):
        out[:, g] = x[:, idx == g].sum(axis=1)
    out[~keep] = 0.0
    return out


@pytest.mark.parametrize("scale", [1.0, 2.0**50])  # 2^50 · 40 cells: past the exact range
@pytest.mark.parametrize("masked", [False, True])
def test_group_columns_and_totals_equal_per_group_sums(scale, masked):
    rng = np.random.default_rng(4)
    x = rng.integers(-50, 50, size=(30, 40)).astype(np.float64) * scale
    idx = rng.integers(0, 7, size=40)
    idx[:7] = np.arange(7)  # every group present
    keep = rng.random(30) < 0.5 if masked else np.ones(30, dtype=bool)
    expected = _direct(x, idx, 7, keep)
    np.testing.assert_array_equal(group_columns(x, idx, 7, keep), expected)
    np.testing.assert_array_equal(group_totals(x, idx, 7, keep), expected.sum(axis=0))
    assert masked is False or (group_columns(x, idx, 7, keep)[~keep] == 0).all()


@pytest.mark.parametrize("scale", [1.0, 2.0**50])
def test_exact_group_totals_equal_exact_bincount_of_the_kept_values(scale):
    rng = np.random.default_rng(9)
    x = rng.integers(-50, 50, size=(30, 40)).astype(np.float64) * scale
    idx = rng.integers(0, 5, size=40)
    keep = rng.random(30) < 0.5
    expected = exact_bincount(np.tile(idx, int(keep.sum())), x[keep].ravel(), 5)
    np.testing.assert_array_equal(exact_group_totals(x, idx, 5, keep), expected)
    assert np.array_equal(expected, _direct(x, idx, 5, keep).sum(axis=0))
