"""Rank tests across groups, vectorised over cells (numba ranks): Mann–Whitney U and
Kruskal–Wallis H, and the single-sample Kruskal–Wallis form the design statistics use."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from cueshift._types import F64
from cueshift.stats._ranks import (
    Alternative,
    RankTestResult,
    as_columns,
    average_ranks,
)


@numba.njit(parallel=True, cache=True)
def _group_rank_kernel(x: F64, labels: NDArray[np.int64], k: int) -> F64:  # pragma: no cover
    """Per column: rank sums of each group (k), group sizes (k), tie term, N, ties flag."""
    n_obs, n_cols = x.shape
    out = np.zeros((n_cols, 2 * k + 3))
    for c in numba.prange(n_cols):
        keep = np.zeros(n_obs, dtype=np.bool_)
        for i in range(n_obs):
            keep[i] = labels[i] >= 0 and not np.isnan(x[i, c])
        values = x[keep, c]
        groups = labels[keep]
        if values.shape[0] == 0:
            continue
        ranks, tie_term, ties = average_ranks(values)
        for i in range(values.shape[0]):
            out[c, groups[i]] += ranks[i]
            out[c, k + groups[i]] += 1.0
        out[c, 2 * k] = tie_term
        out[c, 2 * k + 1] = values.shape[0]
        out[c, 2 * k + 2] = 1.0 if ties else 0.0
    return out


def mann_whitney_columns(
    x: F64,
    labels: NDArray[np.int64],
    *,
    use_continuity: bool = True,
    alternative: Alternative = "two-sided",
    method: Literal["auto", "asymptotic", "exact"] = "auto",
) -> RankTestResult:
    r"""Mann–Whitney U test of group 0 vs group 1 in each column of ``x``.

    :math:`U_1 = R_1 - n_1(n_1+1)/2` (``statistic``; scipy's convention). Normal approximation
    with the tie-corrected variance

    .. math::

        \sigma_U^2 = \frac{n_1 n_2}{12}\left[(n+1) - \frac{\sum_j (t_j^3 - t_j)}{n(n-1)}\right],

    continuity correction 0.5 by default; ``'auto'`` makes scipy's choice
    (``scipy.stats.mannwhitneyu``, scipy 1.17): the exact distribution of :math:`U` when either
    group has at most 8 observations and there are no ties, else the normal approximation
    (with ties scipy's ``'auto'`` stays asymptotic at every size). ``'exact'`` with ties refers
    the half-integer :math:`U` to the untied null at :math:`\lfloor U \rfloor`, as scipy. Effect
    size: the rank-biserial correlation :math:`2U_1/(n_1 n_2) - 1`. A column where either
    sample is empty has no test: ``statistic``, ``p``, ``z`` and the effect size are NaN (as
    scipy; :math:`U_1 = 0` there would read as complete separation).

    Parameters
    ----------
    x : ndarray, shape (n_obs, n_cells)
        Outcomes (NaN = missing).
    labels : ndarray of int, shape (n_obs,)
        0 = first sample, 1 = second, −1 = not used.

    References
    ----------
    .. [1] Mann, H. B. & Whitney, D. R. (1947). *Ann. Math. Stat.* 18, 50–60.
    .. [2] seed 000 Table 9 (gender) and Table 4 (young vs elderly).
    """
    x = as_columns(x)
    raw = _group_rank_kernel(x, np.asarray(labels, dtype=np.int64), 2)
    r1, _, n1, n2, tie_term, n, ties = raw.T
    u1 = r1 - n1 * (n1 + 1.0) / 2.0
    u2 = n1 * n2 - u1
    if alternative == "greater":
        u, factor = u1, 1.0
    elif alternative == "less":
        u, factor = u2, 1.0
    else:
        u, factor = np.maximum(u1, u2), 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.sqrt(n1 * n2 / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0))))
        z = (u - n1 * n2 / 2.0 - (0.5 if use_continuity else 0.0)) / s
        p = special.ndtr(-z) * factor
        effect = 2.0 * u1 / (n1 * n2) - 1.0
    if method != "asymptotic":
        exact = (n1 > 0) & (n2 > 0)
        if method == "auto":
            exact &= ((n1 <= 8) | (n2 <= 8)) & (ties == 0)
        for c in np.flatnonzero(exact):
            sf = _mwu_exact_sf(int(min(n1[c], n2[c])), int(max(n1[c], n2[c])))
            # U of tied data is a half-integer: floor it as scipy does (rounding half to even
            # gave P(U >= 2) at both U = 1.5 and U = 2.5)
            p[c] = factor * float(sf[min(math.floor(u[c]), sf.size - 1)])
    tested = (n1 > 0) & (n2 > 0)
    p = np.where(tested, np.clip(p, 0.0, 1.0), np.nan)
    return RankTestResult(np.where(tested, u1, np.nan), p, n, effect, np.where(tested, z, np.nan))


@lru_cache(maxsize=256)
def _mwu_exact_sf(m: int, n: int) -> F64:
    r"""``sf[u]`` = P(U ≥ u) under H0 for group sizes ``m ≤ n`` (u = 0..mn; symmetric in the sizes).

    The counts of :math:`U` are the coefficients of the Gaussian binomial
    :math:`\binom{m+n}{m}_q = \prod_{i=1}^{m} (1 - q^{n+i}) / (1 - q^{i})`, multiplied out
    factor by factor in exact integers (Mann & Whitney 1947, recursion (2)).
    """
    top = m * n
    counts = np.zeros(top + 1, dtype=object)
    counts[0] = 1
    for i in range(1, m + 1):
        shifted = np.zeros(top + 1, dtype=object)
        shifted[n + i :] = counts[: top + 1 - (n + i)]
        counts = counts - shifted  # × (1 − q^(n+i))
        for k in range(i, top + 1):  # ÷ (1 − q^i): c[k] += c[k − i]
            counts[k] += counts[k - i]
    tail = np.cumsum(counts[::-1])[::-1]  # Σ_{v ≥ u} counts[v], exact
    total = int(tail[0])
    return np.array([int(t) / total for t in tail], dtype=np.float64)


def kruskal_columns(x: F64, labels: NDArray[np.int64], n_groups: int) -> RankTestResult:
    r"""Kruskal–Wallis H test across ``n_groups`` groups in each column of ``x``.

    .. math::

        H = \frac{\frac{12}{N(N+1)} \sum_g R_g^2 / n_g - 3(N+1)}
                 {1 - \sum_j (t_j^3 - t_j)/(N^3 - N)},

    referred to :math:`\chi^2_{k-1}` with :math:`k` the number of non-empty groups (as
    :func:`scipy.stats.kruskal`, which has no exact method at any size, with or without ties;
    ``tests/stats/test_exact_ties.py``). Effect size: :math:`\varepsilon^2 = H / (N - 1)`.
    H, p and ε² are NaN where every value of the column is tied (H = 0/0, as scipy) and where
    fewer than two groups have a value (:math:`k - 1 = 0`: no test, as
    :func:`kruskal_wallis`; the formula's 0 there is rounding noise, 1.4e-14 at N = 25).

    References
    ----------
    .. [1] Kruskal, W. H. & Wallis, W. A. (1952). *JASA* 47, 583–621.
    .. [2] seed 000 Table 9 (age, body type, ethnicity).
    """
    x = as_columns(x)
    raw = _group_rank_kernel(x, np.asarray(labels, dtype=np.int64), n_groups)
    rank_sums = raw[:, :n_groups]
    sizes = raw[:, n_groups : 2 * n_groups]
    tie_term, n = raw[:, 2 * n_groups], raw[:, 2 * n_groups + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(sizes > 0, rank_sums**2 / np.where(sizes > 0, sizes, 1.0), 0.0).sum(axis=1)
        h = 12.0 / (n * (n + 1.0)) * ratio - 3.0 * (n + 1.0)
        # every value tied (the tie term is all of N³ − N, exactly): H = 0/0, undefined as in
        # scipy; the numerator is then rounding noise, not 0, so dividing would give ±inf
        h = np.where(tie_term < n**3 - n, h / (1.0 - tie_term / (n**3 - n)), np.nan)
        df = (sizes > 0).sum(axis=1) - 1.0
        h = np.where(df > 0, h, np.nan)  # one group (or none) with values: nothing to compare
        p = np.where(df > 0, special.chdtrc(np.maximum(df, 1.0), h), np.nan)
        effect = h / (n - 1.0)
    return RankTestResult(h, p, n, effect, df)


@dataclass(frozen=True)
class KruskalResult:
    """H with tie correction, its df, chi-square p-value, N and the effect size ε²."""

    statistic: float
    df: float
    p_value: float
    n: int
    epsilon_squared: float


def kruskal_wallis(groups: Sequence[ArrayLike]) -> KruskalResult:
    r"""Kruskal–Wallis H test of one set of samples (:func:`kruskal_columns` on one cell).

    .. math::

        H = \frac{\frac{12}{N(N+1)} \sum_{i=1}^{k} \frac{R_i^2}{n_i} - 3(N+1)}
                 {1 - \frac{\sum_t (t^3 - t)}{N^3 - N}}, \qquad H \sim \chi^2_{k-1},

    with :math:`R_i` the rank sum of group :math:`i` in the pooled mid-ranks and :math:`t` the
    sizes of the tie groups (as ``scipy.stats.kruskal``); effect size
    :math:`\varepsilon^2 = H / (N - 1)`. Missing values and empty groups are dropped. H is
    undefined (NaN statistic, p and ε², df :math:`\max(k - 1, 0)`) with fewer than two groups
    or when every value is tied.

    References
    ----------
    .. [1] Kruskal, W. H. & Wallis, W. A. (1952). *JASA* 47, 583–621.
    .. [2] Tomczak, M. & Tomczak, E. (2014). The need to report effect size estimates revisited.
       *Trends in Sport Sciences* 21, 19–25 (ε²).
    .. [3] Seed 001 §3.4 (unpaired test of original vs filtered images, "no correction").

    Examples
    --------
    >>> result = kruskal_wallis([[1, 2, 3], [4, 5, 6]])  # R = (6, 15): H = 27/7
    >>> round(result.statistic, 6), result.df, result.n
    (3.857143, 1.0, 6)
    """
    arrays = [np.asarray(g, dtype=np.float64).ravel() for g in groups]
    arrays = [a[~np.isnan(a)] for a in arrays]
    arrays = [a for a in arrays if a.size]
    n, k = int(sum(a.size for a in arrays)), len(arrays)
    pooled = np.concatenate(arrays) if arrays else np.empty(0)
    if k < 2 or np.all(pooled == pooled[0]):
        return KruskalResult(math.nan, float(max(k - 1, 0)), math.nan, n, math.nan)
    labels = np.repeat(np.arange(k, dtype=np.int64), [a.size for a in arrays])
    result = kruskal_columns(pooled, labels, k)
    return KruskalResult(
        float(result.statistic[0]),
        float(result.z[0]),
        float(result.p_value[0]),
        n,
        float(result.effect_size[0]),
    )
