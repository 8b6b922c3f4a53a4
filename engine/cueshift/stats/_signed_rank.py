r"""Wilcoxon signed-rank test: vectorised over cells (numba ranks) with an exact or normal null
(the single-sample form the design statistics use is in :mod:`cueshift.stats._signed_rank_sample`).

``method='auto'`` makes scipy's choice (``scipy.stats.wilcoxon``, scipy 1.17, checked in
``tests/stats/test_exact_ties.py``): with :math:`N` the non-missing differences (zeros included),
:math:`N > 50` → normal approximation; no ties and no zeros → exact null of :math:`R^+`; ties or
zeros and :math:`N \le 13` → the exact sign-flip (permutation) distribution of the observed
mid-ranks, all :math:`2^N` sign vectors, as scipy's ``PermutationMethod`` enumerates them;
otherwise the normal approximation with the tie-corrected variance.
"""

from __future__ import annotations

from typing import Literal

import numba
import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.stats._ranks import (
    Alternative,
    RankTestResult,
    as_columns,
    average_ranks,
)
from cueshift.stats._signed_rank_nulls import _normal_p, _signed_rank_exact_p

ZeroMethod = Literal["wilcox", "pratt", "zsplit"]
Method = Literal["auto", "asymptotic", "exact"]


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
        ranks, tie_term, ties = average_ranks(np.abs(d))
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


@numba.njit(parallel=True, cache=True)
def _signed_rank_permutation_kernel(
    x: F64, cells: NDArray[np.int64], zero_code: int, alt: int
) -> F64:  # pragma: no cover - numba
    """Exact sign-flip p of :math:`R^+` per cell with the cell's own mid-ranks (ties, zeros).

    Doubled mid-ranks are integers, so the null of :math:`2R^+` over the :math:`2^m` sign
    vectors of the :math:`m` non-zero differences is counted exactly by a subset-sum recursion;
    zeros never change sign (pratt: they keep their ranks out of :math:`R^+`; zsplit adds the
    same half of their ranks to every sign vector, which shifts nothing).
    """
    p = np.full(cells.shape[0], np.nan)
    for k in numba.prange(cells.shape[0]):
        col = x[:, cells[k]]
        d = col[~np.isnan(col)]
        if zero_code == 0:
            d = d[d != 0.0]
        if d.shape[0] == 0:
            continue
        ranks, _, _ = average_ranks(np.abs(d))
        weights = np.zeros(d.shape[0], dtype=np.int64)
        observed = 0
        for i in range(d.shape[0]):
            if d[i] != 0.0:
                weights[i] = np.int64(np.round(2.0 * ranks[i]))
                if d[i] > 0.0:
                    observed += weights[i]
        top = weights.sum()
        counts = np.zeros(top + 1)
        counts[0] = 1.0
        for w in weights:
            if w > 0:
                for total in range(top, w - 1, -1):
                    counts[total] += counts[total - w]
        n_vectors = counts.sum()
        p_greater = counts[observed:].sum() / n_vectors
        p_less = counts[: observed + 1].sum() / n_vectors
        if alt == 1:
            p[k] = p_greater
        elif alt == -1:
            p[k] = p_less
        else:
            p[k] = min(1.0, 2.0 * min(p_greater, p_less))
    return p


def signed_rank_columns(
    x: F64,
    *,
    zero_method: ZeroMethod = "wilcox",
    correction: bool = False,
    alternative: Alternative = "two-sided",
    method: Method = "auto",
) -> RankTestResult:
    r"""Wilcoxon signed-rank test of each column of ``x`` against a zero median.

    With :math:`n` non-zero differences ranked by absolute value,
    :math:`R^+ = \sum_{d_i > 0} \operatorname{rank}|d_i|`; under H0
    :math:`E R^+ = n(n+1)/4` and, with ties of sizes :math:`t_j`,

    .. math::

        \operatorname{Var} R^+ = \frac{n(n+1)(2n+1)}{24} - \frac{\sum_j (t_j^3 - t_j)}{48}.

    ``method='exact'`` uses the exact null distribution of :math:`R^+` without ties (as scipy);
    ``'auto'`` follows scipy: that exact null when :math:`N \le 50` and there are neither ties
    nor zeros, the exact sign-flip distribution of the observed mid-ranks when there are ties
    or zeros and :math:`N \le 13`, else the normal approximation (:math:`N`: the non-missing
    differences, zeros included; module docstring). The statistic follows scipy:
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
    return _signed_rank(x, zero_method, correction, alternative, method)[0]


def _signed_rank(
    x: F64, zero_method: ZeroMethod, correction: bool, alternative: Alternative, method: Method
) -> tuple[RankTestResult, F64]:
    """:func:`signed_rank_columns` and the positive rank sums :math:`R^+` of the columns."""
    x = as_columns(x)
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
    use_permutation = np.zeros(count.shape, dtype=bool)
    if method == "exact":
        use_exact = count > 0
    elif method == "auto":
        n_total = count + n_zero if zero_method == "wilcox" else count
        untied = (ties == 0) & (n_zero == 0)
        use_exact = (count > 0) & (n_total <= 50) & untied
        use_permutation = (count > 0) & (n_total <= 13) & ~untied
    for c in np.flatnonzero(use_exact):
        p[c] = _signed_rank_exact_p(int(count[c]), float(r_plus[c]), alternative)
    if use_permutation.any():
        cells = np.flatnonzero(use_permutation).astype(np.int64)
        alt = {"two-sided": 0, "greater": 1, "less": -1}[alternative]
        p[cells] = _signed_rank_permutation_kernel(x, cells, zero_code, alt)
    statistic = np.minimum(r_plus, r_minus) if alternative == "two-sided" else r_plus
    p = np.where(count > 0, p, np.nan)
    return RankTestResult(statistic, np.clip(p, 0.0, 1.0), count, effect, z), r_plus
