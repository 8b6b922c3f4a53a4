"""The Wilcoxon signed-rank test of one sample of paired differences (:func:`wilcoxon_signed_rank`,
normal approximation, :math:`T^+` and the rank-biserial effect size): the form the design
statistics use, on the kernels of :func:`~cueshift.stats._signed_rank.signed_rank_columns`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from cueshift.stats._signed_rank import _signed_rank


@dataclass(frozen=True)
class SignedRankResult:
    """Wilcoxon signed-rank: T+ (sum of positive ranks), z, two-sided p, non-zero n, rank-biserial r."""

    statistic: float
    z: float
    p_value: float
    n: int
    rank_biserial: float


def wilcoxon_signed_rank(differences: ArrayLike) -> SignedRankResult:
    r"""Wilcoxon signed-rank test of one sample of paired differences (normal approximation).

    Zeros are dropped (Wilcoxon's convention) and missing values ignored; with :math:`n`
    non-zero differences and mid-ranks of :math:`|d|`,

    .. math::

        T^+ = \sum_{d_i > 0} R_i, \quad
        z = \frac{T^+ - n(n+1)/4}{\sqrt{n(n+1)(2n+1)/24 - \sum_t (t^3 - t)/48}}, \quad
        p = 2\,\bar\Phi(|z|),

    without continuity correction: :func:`signed_rank_columns` with ``method='asymptotic'``
    on one column, as ``scipy.stats.wilcoxon(method="approx", correction=False)``. The
    statistic is :math:`T^+` (not scipy's :math:`\min(T^+, T^-)`); the effect size is the
    matched-pairs rank-biserial correlation :math:`r = (T^+ - T^-)/(T^+ + T^-)`. Without a
    non-zero difference everything is NaN and ``n = 0``.

    References
    ----------
    .. [1] Wilcoxon, F. (1945). *Biometrics Bulletin* 1, 80–83.
    .. [2] Kerby, D. S. (2014). The simple difference formula: an approach to teaching
       nonparametric correlation. *Comprehensive Psychology* 3, 11.IT.3.1.
    .. [3] Seed 001 §4.1 (paired original vs filtered image of each individual).

    Examples
    --------
    >>> result = wilcoxon_signed_rank([1.0, 2.0, -3.0, 0.0])
    >>> result.statistic, result.n, result.rank_biserial
    (3.0, 3, 0.0)
    """
    d = np.asarray(differences, dtype=np.float64).ravel()
    result, r_plus = _signed_rank(d[~np.isnan(d)], "wilcox", False, "two-sided", "asymptotic")
    n = int(result.n[0])
    if n == 0:
        return SignedRankResult(math.nan, math.nan, math.nan, 0, math.nan)
    return SignedRankResult(
        float(r_plus[0]), float(result.z[0]), float(result.p_value[0]), n, float(result.effect_size[0])
    )
