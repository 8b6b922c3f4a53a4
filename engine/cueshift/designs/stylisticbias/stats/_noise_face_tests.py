"""What the noise-floor tables share: the face-level bootstrap CI and one-sample test of per-face
columns (:func:`_tested`, ties kept by rounding to :data:`TIE_DECIMALS`), the summary of placebo
cell |SBS| (:func:`_floor`), the selection of one model or value or all of them (:func:`_select`,
:data:`ALL_PLACEBOS`) and the name of the test."""

from __future__ import annotations

from typing import Literal

import numpy as np

from cueshift._types import F64
from cueshift.stats import (
    POOLED,
    Resampling,
    TestMethod,
    cluster_bootstrap,
    one_sample_test,
)

#: ``variation_value`` of the rows that take every placebo together.
ALL_PLACEBOS = "(all placebos)"
#: Decimals the per-face values keep before they are ranked (ties of exact rationals stay ties).
TIE_DECIMALS = 12


def _floor(cells: F64, quantile: float) -> tuple[float, float, float, int]:
    """Mean, ``quantile`` (linear, as :func:`numpy.quantile`), max and number of the non-NaN cells."""
    kept = cells[~np.isnan(cells)]
    if kept.size == 0:
        return np.nan, np.nan, np.nan, 0
    return float(kept.mean()), float(np.quantile(kept, quantile)), float(kept.max()), int(kept.size)


def _tested(columns: F64, boot: Resampling, alternative: Literal["two-sided", "greater"]) -> dict[str, F64]:
    """Face-level bootstrap CI of each column's mean and a one-sample test per column.

    The per-face values are rounded to :data:`TIE_DECIMALS` decimals first: they are ratios of
    small integers (answer counts), so values that are equal in exact arithmetic tie whatever the
    summation order (a float-noise difference of 1e-17 would otherwise break a tie of the WSRT).
    """
    columns = np.round(columns, TIE_DECIMALS)
    result, _ = cluster_bootstrap(
        np.ascontiguousarray(columns),
        n_resamples=boot.resamples,
        seed=boot.seed,
        confidence_level=boot.confidence_level,
        method=boot.ci_method,
    )
    statistic, p_value, effect, _ = one_sample_test(
        columns, test=boot.test, n_resamples=boot.resamples, seed=boot.seed, alternative=alternative
    )
    return {
        "estimate": result.estimate,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "statistic": statistic,
        "p": p_value,
        "effect_size": effect,
        "n": result.n.astype(np.float64),
    }


def _test_name(test: TestMethod) -> str:
    return "wilcoxon" if test == "rank" else "sign-flip"


def _select(axis_labels: list[str], label: str) -> slice:
    """One entry of an axis, or all of it for the pooled label."""
    if label in (POOLED, ALL_PLACEBOS):
        return slice(None)
    i = axis_labels.index(label)
    return slice(i, i + 1)
