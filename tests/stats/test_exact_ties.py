"""The rank tests' ``method='auto'`` makes scipy's choice for small samples with ties and zeros.

scipy 1.17: ``wilcoxon`` uses the exact null without ties/zeros (n ≤ 50) and an exact sign-flip
permutation test with ties or zeros for n ≤ 13; ``mannwhitneyu`` is exact when either sample has
at most 8 observations and there are no ties; ``kruskal`` is always χ². Every case is checked
against scipy on the same data to 1e-12.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.stats as st

from cueshift.stats import kruskal_columns, mann_whitney_columns, signed_rank_columns
from tests.scalars import Tolerance

TOL: Tolerance = dict(rtol=1e-12, atol=1e-12)


def _tied_sample(rng: np.random.Generator, n: int) -> np.ndarray:
    """Differences on a coarse grid of quarters: ties always, zeros often."""
    return rng.integers(-4, 5, size=n) / 4.0


def _scipy_wilcoxon(x: np.ndarray, **kwargs: str) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns about ties / small n
        return float(st.wilcoxon(x, **kwargs).pvalue)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_signed_rank_auto_equals_scipy_with_ties_and_zeros(zero_method):
    """scipy itself for n = 3..8 (its permutation test is slow beyond) and 14..20 (normal)."""
    rng = np.random.default_rng(20)
    for n in [*range(3, 9), *range(14, 21)]:
        for _ in range(2):
            x = _tied_sample(rng, n)
            if zero_method == "wilcox" and not (x != 0).any():
                continue  # no non-zero difference: nothing to test
            for alternative in ("two-sided", "greater") if n % 2 else ("two-sided", "less"):
                ref = _scipy_wilcoxon(x, zero_method=zero_method, alternative=alternative)
                ours = signed_rank_columns(x, zero_method=zero_method, alternative=alternative)
                np.testing.assert_allclose(ours.p_value[0], ref, **TOL, err_msg=f"{n} {x}")


def _enumerated_p(x: np.ndarray, zero_method: str, alternative: str) -> float:
    """scipy's permutation test written out: R+ (scipy's ranks) of all 2^n sign vectors."""
    d = x[x != 0] if zero_method == "wilcox" else x
    ranks = st.rankdata(np.abs(d))
    signs = (np.arange(2**d.size)[:, None] >> np.arange(d.size)) & 1  # 1 = positive
    null = ((signs * ranks)[:, d != 0]).sum(axis=1)  # zeros never count as positive
    observed = ranks[d > 0].sum()
    p_greater, p_less = np.mean(null >= observed), np.mean(null <= observed)
    if alternative == "greater":
        return float(p_greater)
    if alternative == "less":
        return float(p_less)
    return float(min(1.0, 2 * min(p_greater, p_less)))


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
def test_signed_rank_auto_with_ties_n_up_to_13_equals_enumeration(zero_method):
    """Many tied cases n = 3..13 in one call (each cell its own null) against the enumeration
    (scipy's own permutation test costs seconds per case beyond n = 8)."""
    rng = np.random.default_rng(21)
    cases = [_tied_sample(rng, int(rng.integers(3, 14))) for _ in range(200)]
    cases = [x for x in cases if (x != 0).any()]
    columns = np.full((13, len(cases)), np.nan)
    for c, x in enumerate(cases):
        columns[: x.size, c] = x
    for alternative in ("two-sided", "less", "greater"):
        ours = signed_rank_columns(columns, zero_method=zero_method, alternative=alternative)
        expected = [_enumerated_p(x, zero_method, alternative) for x in cases]
        np.testing.assert_allclose(ours.p_value, expected, **TOL)


def test_signed_rank_permutation_by_hand():
    # d = (1, 1, -2): |d| ranks 1.5, 1.5, 3; R+ = 3 over the 8 sign vectors
    # {0, 1.5, 1.5, 3, 3, 4.5, 4.5, 6}: P(R+ ≤ 3) = 5/8, P(R+ ≥ 3) = 5/8 → two-sided 1.
    # d = (1, 1, 2): R+ = 6 is the largest of the 8 → P(R+ ≥ 6) = 1/8, two-sided 1/4
    # (the normal approximation would give 0.1003)
    ours = signed_rank_columns(np.array([[1.0, 1.0], [1.0, 1.0], [-2.0, 2.0]]))
    np.testing.assert_allclose(ours.p_value, [1.0, 0.25], **TOL)
    greater = signed_rank_columns(np.array([1.0, 1.0, 2.0]), alternative="greater")
    np.testing.assert_allclose(greater.p_value, [0.125], **TOL)


def test_signed_rank_columns_choose_per_cell():
    """One call over many cells picks each cell's method: untied, tied small, tied large, missing."""
    rng = np.random.default_rng(5)
    x = np.full((30, 4), np.nan)
    x[:12, 0] = rng.normal(size=12)  # untied → exact
    x[:8, 1] = _tied_sample(rng, 8)  # ties, n ≤ 13 → permutation
    x[:, 2] = _tied_sample(rng, 30)  # ties, n > 13 → normal
    x[:20, 3] = _tied_sample(rng, 20)
    x[[2, 5], 3] = np.nan
    ours = signed_rank_columns(x)
    for c in range(4):
        col = x[:, c][~np.isnan(x[:, c])]
        np.testing.assert_allclose(ours.p_value[c], _scipy_wilcoxon(col), **TOL)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_mann_whitney_auto_equals_scipy_small_one_side(alternative):
    rng = np.random.default_rng(31)
    for n1 in range(2, 9):
        for n2 in (3, 8, 9, 20):
            x = np.concatenate([rng.normal(0.4, 1.0, n1), rng.normal(size=n2)])
            labels = np.array([0] * n1 + [1] * n2)
            ours = mann_whitney_columns(x, labels, alternative=alternative)
            ref = st.mannwhitneyu(x[:n1], x[n1:], alternative=alternative)
            np.testing.assert_allclose(ours.p_value[0], ref.pvalue, **TOL)
            np.testing.assert_allclose(ours.statistic[0], ref.statistic, **TOL)


def test_mann_whitney_auto_with_ties_equals_scipy():
    rng = np.random.default_rng(32)
    for n1 in range(2, 12):
        n2 = int(rng.integers(2, 15))
        x = _tied_sample(rng, n1 + n2)
        if len(np.unique(x)) == x.size or len(np.unique(x)) == 1:
            continue
        labels = np.array([0] * n1 + [1] * n2)
        ours = mann_whitney_columns(x, labels)
        ref = st.mannwhitneyu(x[:n1], x[n1:])
        np.testing.assert_allclose(ours.p_value[0], ref.pvalue, **TOL)


def test_kruskal_small_tied_equals_scipy():
    rng = np.random.default_rng(33)
    for n in range(6, 21):
        x = _tied_sample(rng, n)
        labels = np.arange(n) % 3
        if len(np.unique(x)) == 1:
            continue
        ours = kruskal_columns(x, labels, 3)
        ref = st.kruskal(*(x[labels == g] for g in range(3)))
        np.testing.assert_allclose(ours.p_value[0], ref.pvalue, **TOL)
