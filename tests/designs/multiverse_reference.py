"""The joint test's three statistics by hand, with scipy's Wilcoxon: the reference the multiverse
joint tests (D74, D80) are checked against."""

from __future__ import annotations

import numpy as np
from scipy.stats import norm, wilcoxon

ALPHA = 0.05


def joint_statistics(values: np.ndarray, weights: np.ndarray) -> tuple[float, float, float]:
    """The three statistics, one specification at a time, with scipy's Wilcoxon."""
    estimates, ps = [], []
    for k in range(values.shape[1]):
        column = values[:, k][~np.isnan(values[:, k])]
        estimates.append(column.mean())
        ps.append(wilcoxon(column).pvalue)
    median = float(np.median(np.repeat(estimates, weights)))
    sign = 1.0 if median >= 0 else -1.0
    n_significant, z = 0.0, 0.0
    for estimate, p, weight in zip(estimates, ps, weights, strict=True):
        agrees = np.sign(estimate) == sign
        n_significant += weight * (p < ALPHA and agrees)
        z += weight * norm.isf(p / 2 if agrees else 1 - p / 2)
    return median, n_significant, z / np.sqrt(weights.sum())


__all__ = ["ALPHA", "joint_statistics"]
