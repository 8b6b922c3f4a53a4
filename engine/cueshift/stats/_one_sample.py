"""The one-sample test of per-face values against 0 that every SBS-like row carries: the
Wilcoxon signed-rank test (the paper's, seed 000 §4.4) or the sign-flip permutation test.
"""

from __future__ import annotations

from typing import Literal

from cueshift._types import F64
from cueshift.stats._equal_values import cohens_dz
from cueshift.stats._permutation import sign_flip_test
from cueshift.stats._settings import DEFAULT_RESAMPLES, TestMethod
from cueshift.stats._signed_rank import ZeroMethod, signed_rank_columns


def one_sample_test(
    values: F64,
    *,
    test: TestMethod = "rank",
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    alternative: Literal["two-sided", "less", "greater"] = "two-sided",
    zero_method: ZeroMethod = "wilcox",
) -> tuple[F64, F64, F64, str]:
    """Test each column's per-face values against 0: WSRT (``'rank'``) or sign flips.

    ``zero_method`` is scipy's: ``'wilcox'`` (default, as the paper's scipy-based WSRT) drops
    faces whose mean Δ is exactly 0 — at the cell level, where a face has a single Δ and most
    Δ are 0 (Table 5: 53–80 %), this leaves only the faces that moved; ``'pratt'`` and
    ``'zsplit'`` keep them.

    Returns ``(statistic, p, effect_size, test_name)``; the WSRT statistic is scipy's
    (min(R+, R−) two-sided), its effect size the matched-pairs rank-biserial r; the sign-flip
    statistic is the mean and its effect size Cohen's d_z of the face values
    (:func:`~cueshift.stats._equal_values.cohens_dz`: ±inf where every face value is the same).
    """
    if test == "rank":
        res = signed_rank_columns(values, alternative=alternative, zero_method=zero_method)
        return res.statistic, res.p_value, res.effect_size, "wilcoxon"
    statistic, p = sign_flip_test(values, n_resamples=n_resamples, seed=seed, alternative=alternative)
    return statistic, p, cohens_dz(values), "sign-flip"
