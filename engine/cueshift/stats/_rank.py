"""Rank tests vectorised over many cells: Wilcoxon signed-rank, Mann–Whitney U, Kruskal–Wallis.

Each function takes a dense ``(n_obs, n_cells)`` array (NaN = missing) so that thousands of
cells (e.g. every model × variation × scenario) are tested in one call; ranks are computed
per column by a parallel numba kernel. Conventions follow :mod:`scipy.stats` so results agree
to rounding error (see ``tests/test_stats_rank.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numba
import numpy as np
from numpy.typing import NDArray
from scipy import special

Alternative = Literal["two-sided", "less", "greater"]
ZeroMethod = Literal["wilcox", "pratt", "zsplit"]
F64 = NDArray[np.float64]


@numba.njit(cache=True)
def _average_ranks(values: F64) -> tuple[F64, float, bool]:  # pragma: no cover - numba
    """Average ranks (1-based) of ``values``, the tie term Σ(t³ − t), and whether ties exist."""
    n = values.shape[0]
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(n)
    tie_term = 0.0
    i = 0
    while i < n:
        j = i
        while j + 1 < n and values[order[j + 1]] == values[order[i]]:
            j += 1
        avg = 0.5 * (i + j) + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        t = j - i + 1
        tie_term += t * t * t - t
        i = j + 1
    return ranks, tie_term, tie_term > 0


@numba.njit(parallel=True, cache=True)
def _signed_rank_kernel(x: F64, zero_code: int) -> F64:  # pragma: no cover - numba
    """Per column: r_plus, r_minus, count, n_zero, tie_term (zeros' ties excluded for pratt), ties."""
    n_obs, n_cols = x.shape
    out = np.full((n_cols, 6), np.nan)
    for c in numba.prange(n_cols):
        col = x[:, c]
        keep = np.zeros(n_obs, dtype=np.bool_)
        n_zero = 0
        for i in range(n_obs):
            v = col[i]
            if np.isnan(v):
                continue
            if v == 0.0:
                n_zero += 1
                if zero_code == 0:  # wilcox: drop zeros
                    continue
            keep[i] = True
        d = col[keep]
        m = d.shape[0]
        if m == 0:
            out[c, 2] = 0.0
            out[c, 3] = n_zero
            continue
        ranks, tie_term, ties = _average_ranks(np.abs(d))
        r_plus = 0.0
        r_minus = 0.0
        r_zero = 0.0
        for i in range(m):
            if d[i] > 0:
                r_plus += ranks[i]
            elif d[i] < 0:
                r_minus += ranks[i]
            else:
                r_zero += ranks[i]
        if zero_code == 2:  # zsplit
            r_plus += r_zero / 2.0
            r_minus += r_zero / 2.0
        if zero_code == 1 and n_zero > 0:  # pratt: the zeros' tie group leaves the tie term
            tie_term -= n_zero**3 - n_zero
        out[c, 0] = r_plus
        out[c, 1] = r_minus
        out[c, 2] = m
        out[c, 3] = n_zero
        out[c, 4] = tie_term
        out[c, 5] = 1.0 if ties else 0.0
    return out


def _signed_rank_null_counts(n: int) -> NDArray[np.float64]:
    """Number of sign assignments of ranks 1..n giving each value of R+ (0..n(n+1)/2)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    top = 0
    for r in range(1, n + 1):
        counts[r : top + r + 1] += counts[: top + 1].copy()
        top += r
    return counts


@dataclass(frozen=True)
class RankTestResult:
    """Column-wise result of a rank test (arrays of length ``n_cells``)."""

    statistic: F64
    p_value: F64
    n: F64
    effect_size: F64
    z: F64


def signed_rank_columns(
    x: F64,
    *,
    zero_method: ZeroMethod = "wilcox",
    correction: bool = False,
    alternative: Alternative = "two-sided",
    method: Literal["auto", "asymptotic", "exact"] = "auto",
) -> RankTestResult:
    r"""Wilcoxon signed-rank test of each column of ``x`` against a zero median.

    With :math:`n` non-zero differences ranked by absolute value,
    :math:`R^+ = \sum_{d_i > 0} \operatorname{rank}|d_i|`; under H0
    :math:`E R^+ = n(n+1)/4` and, with ties of sizes :math:`t_j`,

    .. math::

        \operatorname{Var} R^+ = \frac{n(n+1)(2n+1)}{24} - \frac{\sum_j (t_j^3 - t_j)}{48}.

    ``method='exact'`` uses the exact null distribution of :math:`R^+`; ``'auto'`` uses it
    when :math:`n \le 50` and there are neither ties nor zeros, else the normal approximation
    (scipy would switch to a permutation test for n ≤ 13 with ties; use
    :func:`cueshift.stats.sign_flip_test` for that). The statistic follows scipy:
    :math:`\min(R^+, R^-)` two-sided, :math:`R^+` one-sided. The effect size is the
    matched-pairs rank-biserial correlation :math:`(R^+ - R^-)/(R^+ + R^-)`.

    Parameters
    ----------
    x : ndarray, shape (n_obs, n_cells)
        Paired differences (here: per-face mean Δ); NaN marks a missing face.
    zero_method, correction, alternative, method
        As in :func:`scipy.stats.wilcoxon` (defaults equal scipy's).

    References
    ----------
    .. [1] Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1, 80–83.
    .. [2] Pratt, J. W. (1959). Remarks on zeros and ties in the Wilcoxon signed rank procedures.
       *JASA* 54, 655–667.
    .. [3] seed 000 §4.4: WSRT on per-face mean Δ, BH-corrected, α = 0.05.
    """
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    if x.ndim == 1:
        x = x[:, None]
    zero_code = {"wilcox": 0, "pratt": 1, "zsplit": 2}[zero_method]
    raw = _signed_rank_kernel(x, zero_code)
    r_plus, r_minus, count, n_zero, tie_term, ties = raw.T
    mean = count * (count + 1.0) * 0.25
    var_num = count * (count + 1.0) * (2.0 * count + 1.0)
    if zero_method == "pratt":
        mean = mean - n_zero * (n_zero + 1.0) * 0.25
        var_num = var_num - n_zero * (n_zero + 1.0) * (2.0 * n_zero + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt((var_num - tie_term / 2.0) / 24.0)
        z = (r_plus - mean) / se
        z_used = z.copy()
        if correction:
            sign = {"greater": 1.0, "less": -1.0}.get(alternative)
            z_used = z - (np.sign(z) if sign is None else sign) * 0.5 / se
        p = _normal_p(z_used, alternative)
        effect = (r_plus - r_minus) / (r_plus + r_minus)
    use_exact = np.zeros(count.shape, dtype=bool)
    if method == "exact":
        use_exact = count > 0
    elif method == "auto":
        use_exact = (count > 0) & (count <= 50) & (ties == 0) & (n_zero == 0)
    for c in np.flatnonzero(use_exact):
        p[c] = _signed_rank_exact_p(int(count[c]), float(r_plus[c]), alternative)
    statistic = np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus
    p = np.where(count > 0, p, np.nan)
    return RankTestResult(statistic, np.clip(p, 0.0, 1.0), count, effect, z)


def _signed_rank_exact_p(n: int, r_plus: float, alternative: Alternative) -> float:
    counts = _signed_rank_null_counts(n)
    pmf = counts / counts.sum()
    cdf = np.cumsum(pmf)
    sf = 1.0 - np.concatenate(([0.0], cdf[:-1]))  # P(R+ >= k)
    hi, lo = int(np.floor(r_plus)), int(np.ceil(r_plus))
    p_greater = sf[hi] if hi < sf.size else 0.0
    p_less = cdf[lo] if lo < cdf.size else 1.0
    if alternative == "greater":
        return float(p_greater)
    if alternative == "less":
        return float(p_less)
    return float(min(1.0, 2.0 * min(p_greater, p_less)))


def _normal_p(z: F64, alternative: Alternative) -> F64:
    if alternative == "greater":
        return special.ndtr(-z)
    if alternative == "less":
        return special.ndtr(z)
    return 2.0 * special.ndtr(-np.abs(z))


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
        ranks, tie_term, ties = _average_ranks(values)
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

    continuity correction 0.5 by default; ``'auto'`` uses the exact distribution when both
    groups have at most 8 observations and there are no ties (as scipy). Effect size: the
    rank-biserial correlation :math:`2U_1/(n_1 n_2) - 1`.

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
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    if x.ndim == 1:
        x = x[:, None]
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
            exact &= (n1 <= 8) & (n2 <= 8) & (ties == 0)
        for c in np.flatnonzero(exact):
            p[c] = factor * _mwu_exact_sf(int(n1[c]), int(n2[c]), int(round(u[c])))
    p = np.where((n1 > 0) & (n2 > 0), np.clip(p, 0.0, 1.0), np.nan)
    return RankTestResult(u1, p, n, effect, z)


def _mwu_exact_sf(n1: int, n2: int, u: int) -> float:
    """P(U ≥ u) under H0 by the recursion c(u; m, n) = c(u − n; m − 1, n) + c(u; m, n − 1)."""
    top = n1 * n2
    # table[m][k] holds counts for sizes (m, k) built bottom-up
    prev = [np.zeros(top + 1) for _ in range(n2 + 1)]
    for k in range(n2 + 1):
        prev[k][0] = 1.0  # m = 0: U is 0 in one way
    for _ in range(n1):  # add the first sample's observations one at a time
        cur = [np.zeros(top + 1) for _ in range(n2 + 1)]
        cur[0][0] = 1.0
        for k in range(1, n2 + 1):
            shifted = np.zeros(top + 1)
            shifted[k:] = prev[k][: top + 1 - k]
            cur[k] = shifted + cur[k - 1]
        prev = cur
    counts = prev[n2]
    return float(counts[u:].sum() / counts.sum())


def kruskal_columns(x: F64, labels: NDArray[np.int64], n_groups: int) -> RankTestResult:
    r"""Kruskal–Wallis H test across ``n_groups`` groups in each column of ``x``.

    .. math::

        H = \frac{\frac{12}{N(N+1)} \sum_g R_g^2 / n_g - 3(N+1)}
                 {1 - \sum_j (t_j^3 - t_j)/(N^3 - N)},

    referred to :math:`\chi^2_{k-1}` with :math:`k` the number of non-empty groups (as
    :func:`scipy.stats.kruskal`). Effect size: :math:`\varepsilon^2 = H / (N - 1)`.

    References
    ----------
    .. [1] Kruskal, W. H. & Wallis, W. A. (1952). *JASA* 47, 583–621.
    .. [2] seed 000 Table 9 (age, body type, ethnicity).
    """
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    if x.ndim == 1:
        x = x[:, None]
    raw = _group_rank_kernel(x, np.asarray(labels, dtype=np.int64), n_groups)
    rank_sums = raw[:, :n_groups]
    sizes = raw[:, n_groups : 2 * n_groups]
    tie_term, n = raw[:, 2 * n_groups], raw[:, 2 * n_groups + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(sizes > 0, rank_sums**2 / np.where(sizes > 0, sizes, 1.0), 0.0).sum(axis=1)
        h = 12.0 / (n * (n + 1.0)) * ratio - 3.0 * (n + 1.0)
        h = h / (1.0 - tie_term / (n**3 - n))
        df = (sizes > 0).sum(axis=1) - 1.0
        p = np.where(df > 0, special.chdtrc(np.maximum(df, 1.0), h), np.nan)
        effect = h / (n - 1.0)
    return RankTestResult(h, p, n, effect, df)
