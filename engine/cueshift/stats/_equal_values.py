"""Constant data decided exactly: whether every value is the same, and the moments that follow.

The spread of equal non-zero values computed from sums is rounding noise, not 0 (45 values 0.1:
a standard deviation of 4e-17), so a test of "is the spread zero?" on it fails, and a mean over
it is off by ulps; a t or a Cohen's d divides by that noise (1.6e16). Equality is decided here
on the values themselves (D49).
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64


def all_equal(values: F64) -> bool:
    """Whether the values of a one-dimensional array are all the same, exactly (none: False).

    >>> all_equal(np.full(45, 0.1)), bool(np.full(45, 0.1).std(ddof=1) == 0)
    (True, False)
    """
    return bool(values.size) and bool(np.all(values == values[0]))


def equal_columns(x: F64) -> NDArray[np.bool_]:
    """Per column of ``x``: whether its non-NaN values are all the same, exactly (none: False).

    Examples
    --------
    >>> equal_columns(np.array([[0.1, 1.0, np.nan], [0.1, 2.0, np.nan], [np.nan, 1.0, np.nan]])).tolist()
    [True, False, False]
    """
    high = np.fmax.reduce(x, axis=0, initial=-np.inf)
    return np.asarray(high == np.fmin.reduce(x, axis=0, initial=np.inf))


def exact_mean_sd(x: F64) -> tuple[F64, F64]:
    """Per column: mean and standard deviation (``ddof = 1``) of the non-NaN values; a column of
    equal values has that value as its mean and a standard deviation of exactly 0 (NaN for the
    standard deviation with fewer than two values, for both with none)."""
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # empty columns, fewer than two values
        mean, sd = np.nanmean(x, axis=0), np.nanstd(x, axis=0, ddof=1)
    equal = equal_columns(x)
    value = np.fmax.reduce(x, axis=0, initial=-np.inf)
    exact_mean = np.asarray(np.where(equal, value, mean), dtype=np.float64)
    return exact_mean, np.asarray(np.where(equal & ~np.isnan(sd), 0.0, sd), dtype=np.float64)


def cohens_dz(values: F64) -> F64:
    r"""Per column: Cohen's :math:`d_z = \bar x / s` of the non-NaN values (``ddof = 1``).

    Equal values (decided exactly) give :math:`\pm\infty` (NaN where they are 0: 0/0), not
    their value over rounding noise; fewer than two values give NaN.

    Examples
    --------
    >>> cohens_dz(np.array([[0.1, 0.0, 1.0], [0.1, 0.0, 2.0], [0.1, 0.0, 3.0]])).tolist()
    [inf, nan, 2.0]
    """
    x = np.asarray(values, dtype=np.float64)
    mean, sd = exact_mean_sd(x.reshape(x.shape[0], -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        d = mean / sd
    return np.asarray(d.reshape(x.shape[1:]), dtype=np.float64)


def equal_cell_means(sums: F64, counts: F64) -> NDArray[np.bool_]:
    """Per row (axis 1 of ``(faces, rows, scenarios)`` sums and counts): whether every face ×
    scenario cell with data has the same mean. The means are correctly rounded quotients of
    integers, so equal rationals give equal doubles.

    Examples
    --------
    >>> sums = np.array([[[1.0, 2.0], [1.0, 1.0]], [[3.0, 0.0], [2.0, 0.0]]])
    >>> equal_cell_means(sums, np.array([[[1.0, 2.0], [1.0, 1.0]], [[3.0, 0.0], [1.0, 0.0]]])).tolist()
    [True, False]
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        cell_mean = np.where(counts > 0, sums / counts, np.nan)  # (faces, rows, scenarios)
    return equal_columns(np.moveaxis(cell_mean, 1, 0).reshape(sums.shape[1], -1).T)
