"""Permutation tests in numba: sign flips for paired Δ, label permutation for group
comparisons, exact enumeration when the permutation group is small. Offered wherever a rank
test is used (``test='permutation'``)."""

from __future__ import annotations

import math
from itertools import combinations

import numba
import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.stats._face_draws import CHUNK_BYTES
from cueshift.stats._resample import Alternative
from cueshift.stats._settings import DEFAULT_RESAMPLES


@numba.njit(parallel=True, cache=True)
def _exact_sign_flip(x: F64, cells: NDArray[np.int64], alt: int) -> F64:  # pragma: no cover - numba
    """Exact sign-flip p of the column sums, enumerating all 2^n sign vectors."""
    p = np.full(cells.shape[0], np.nan)
    for k in numba.prange(cells.shape[0]):
        col = x[:, cells[k]]
        vals = col[~np.isnan(col)]
        n = vals.shape[0]
        obs = vals.sum()
        tol = 1e-12 * max(1.0, abs(obs))
        n_ge = 0
        n_le = 0
        total = 1 << n
        for mask in range(total):
            t = 0.0
            for i in range(n):
                t += -vals[i] if (mask >> i) & 1 else vals[i]
            n_ge += t >= obs - tol
            n_le += t <= obs + tol
        p[k] = _tail_p(n_ge / total, n_le / total, alt)
    return p


@numba.njit(cache=True)
def _tail_p(p_greater: float, p_less: float, alt: int) -> float:  # pragma: no cover - numba
    """scipy's convention: two-sided p = min(1, 2 min(p_greater, p_less))."""
    if alt == 1:
        return p_greater
    if alt == -1:
        return p_less
    return min(1.0, 2.0 * min(p_greater, p_less))


def sign_flip_test(
    values: F64,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    alternative: Alternative = "two-sided",
) -> tuple[F64, F64]:
    r"""Sign-flip permutation test of a zero mean, per column (paired Δ: one value per face).

    Under H0 each per-face mean Δ is symmetric about 0, so flipping signs leaves the
    distribution of :math:`T = \sum_f d_f` unchanged. With :math:`B` random sign vectors
    (shared by all columns) the p-value is :math:`(b+1)/(B+1)`, :math:`b` the number of
    replicates with :math:`T^* \ge T` (``'greater'``) or :math:`T^* \le T` (``'less'``);
    two-sided p is :math:`\min(1, 2\min(p_{\ge}, p_{\le}))` (scipy's convention). When
    :math:`2^{n} \le B` all sign vectors are enumerated and p is exact (:math:`b/2^n`).

    Returns
    -------
    (statistic, p_value)
        The observed mean per column and its p-value.

    References
    ----------
    .. [1] Fisher, R. A. (1935). *The Design of Experiments*, §21.
    .. [2] Phipson, B. & Smyth, G. K. (2010). Permutation p-values should never be zero.
       *Stat. Appl. Genet. Mol. Biol.* 9(1).
    """
    x = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
    if x.ndim == 1:
        x = x[:, None]
    n_faces, n_cells = x.shape
    observed = ~np.isnan(x)
    x0 = np.where(observed, x, 0.0)
    n_obs = observed.sum(axis=0)
    total = x0.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = total / n_obs
    alt = {"two-sided": 0, "greater": 1, "less": -1}[alternative]
    p = np.full(n_cells, np.nan)
    exact = (n_obs > 0) & (2.0 ** np.minimum(n_obs, 62) <= n_resamples)
    if exact.any():
        p[exact] = _exact_sign_flip(x, np.flatnonzero(exact).astype(np.int64), alt)
    random_cells = np.flatnonzero(~exact & (n_obs > 0))
    if random_cells.size:
        rng = np.random.default_rng(seed)
        signs = (rng.integers(0, 2, size=(n_resamples, n_faces), dtype=np.int8) * 2 - 1).astype(np.float64)
        chunk = max(1, CHUNK_BYTES // (8 * n_resamples))
        for start in range(0, random_cells.size, chunk):
            cols = random_cells[start : start + chunk]
            null = signs @ x0[:, cols]  # (replicates, cells)
            obs = total[cols]
            tol = 1e-12 * np.maximum(1.0, np.abs(obs))
            p_ge = ((null >= obs - tol).sum(axis=0) + 1.0) / (n_resamples + 1.0)
            p_le = ((null <= obs + tol).sum(axis=0) + 1.0) / (n_resamples + 1.0)
            p[cols] = {1: p_ge, -1: p_le}.get(alt, np.minimum(1.0, 2.0 * np.minimum(p_ge, p_le)))
    return statistic, p


@numba.njit(cache=True)
def _group_statistic(vals: F64, labels: NDArray[np.int64], k: int) -> float:  # pragma: no cover
    """Two groups: mean(group 0) − mean(group 1). More: Σ_g n_g (ȳ_g − ȳ)²."""
    sums = np.zeros(k)
    sizes = np.zeros(k)
    for i in range(vals.shape[0]):
        sums[labels[i]] += vals[i]
        sizes[labels[i]] += 1.0
    if k == 2:
        return float(sums[0] / sizes[0] - sums[1] / sizes[1])
    grand = sums.sum() / sizes.sum()
    ss = 0.0
    for g in range(k):
        if sizes[g] > 0:
            ss += sizes[g] * (sums[g] / sizes[g] - grand) ** 2
    return ss


@numba.njit(parallel=True, cache=True)
def _label_permutation(
    x: F64, labels: NDArray[np.int64], k: int, n_resamples: int, seeds: NDArray[np.int64], alt: int
) -> F64:  # pragma: no cover - numba
    n_cells = x.shape[1]
    out = np.full((n_cells, 2), np.nan)
    for c in numba.prange(n_cells):
        np.random.seed(seeds[c])  # per-cell stream: results do not depend on the thread count
        keep = np.zeros(x.shape[0], dtype=np.bool_)
        for i in range(x.shape[0]):
            keep[i] = labels[i] >= 0 and not np.isnan(x[i, c])
        vals = x[keep, c]
        lab = labels[keep].copy()
        present = np.zeros(k)
        for i in range(lab.shape[0]):
            present[lab[i]] = 1.0
        if present.sum() < k:
            continue
        obs = _group_statistic(vals, lab, k)
        tol = 1e-12 * max(1.0, abs(obs))
        n_ge = 0
        n_le = 0
        for _ in range(n_resamples):
            np.random.shuffle(lab)
            t = _group_statistic(vals, lab, k)
            n_ge += t >= obs - tol
            n_le += t <= obs + tol
        out[c, 0] = obs
        p_ge = (n_ge + 1.0) / (n_resamples + 1.0)
        p_le = (n_le + 1.0) / (n_resamples + 1.0)
        out[c, 1] = p_ge if k > 2 else _tail_p(p_ge, p_le, alt)
    return out


def label_permutation_test(
    values: F64,
    labels: NDArray[np.int64],
    n_groups: int,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    alternative: Alternative = "two-sided",
) -> tuple[F64, F64]:
    r"""Label-permutation test of group differences, per column.

    Two groups: :math:`T = \bar y_0 - \bar y_1` (alternative to Mann–Whitney U). More
    groups: :math:`T = \sum_g n_g(\bar y_g - \bar y)^2`, upper tail (equivalent to the F test's
    ordering; alternative to Kruskal–Wallis). Labels of the observed faces of a column are
    shuffled :math:`B` times (a seeded stream per column); :math:`p = (b+1)/(B+1)`, two-sided
    as in :func:`sign_flip_test`. When the
    number of distinct labelings :math:`N!/\prod_g n_g!` is at most :math:`B`, every labeling
    is enumerated and p is exact.

    Parameters
    ----------
    values : ndarray, shape (n_obs, n_cells)
    labels : ndarray of int, shape (n_obs,)
        Group codes 0..n_groups−1; −1 = not used.

    References
    ----------
    .. [1] Good, P. (2005). *Permutation, Parametric, and Bootstrap Tests of Hypotheses*, ch. 3.
    """
    x = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
    if x.ndim == 1:
        x = x[:, None]
    labels = np.asarray(labels, dtype=np.int64)
    alt = {"two-sided": 0, "greater": 1, "less": -1}[alternative]
    seeds = np.random.SeedSequence(seed).generate_state(x.shape[1], dtype=np.uint32).astype(np.int64)
    out = _label_permutation(x, labels, n_groups, n_resamples, seeds, alt)
    statistic, p = out[:, 0].copy(), out[:, 1].copy()
    for c in range(x.shape[1]):
        keep = (labels >= 0) & ~np.isnan(x[:, c])
        sizes = np.bincount(labels[keep], minlength=n_groups)
        if (sizes == 0).any():
            continue
        n_labelings = math.factorial(int(sizes.sum()))
        for s in sizes:
            n_labelings //= math.factorial(int(s))
        if n_labelings <= n_resamples:
            p[c] = _exact_label_p(x[keep, c], labels[keep], n_groups, alt)
    return statistic, p


def _exact_label_p(vals: F64, labels: NDArray[np.int64], k: int, alt: int) -> float:
    obs = _group_statistic(vals, labels, k)
    tol = 1e-12 * max(1.0, abs(obs))
    sizes = np.bincount(labels, minlength=k)
    n_ge = n_le = total = 0
    for labeling in _labelings(vals.size, list(sizes)):
        t = _group_statistic(vals, labeling, k)
        total += 1
        n_ge += t >= obs - tol
        n_le += t <= obs + tol
    return n_ge / total if k > 2 else float(_tail_p(n_ge / total, n_le / total, alt))


def _labelings(n: int, sizes: list[int]):  # type: ignore[no-untyped-def]
    """Every distinct assignment of ``sizes[g]`` positions to group g (g = 0 chooses first)."""
    if len(sizes) == 1:
        yield np.zeros(n, dtype=np.int64)
        return
    positions = range(n)
    for first in combinations(positions, sizes[0]):
        rest = [i for i in positions if i not in set(first)]
        for sub in _labelings(len(rest), sizes[1:]):
            lab = np.empty(n, dtype=np.int64)
            lab[list(first)] = 0
            lab[rest] = sub + 1
            yield lab
