"""Exact sums of count ratios, so that per-face means do not depend on the order of the rows.

A φ is a ratio of counts, :math:`\\varphi = k/n` (favorable over valid answers), and so is a
:math:`\\Delta = k_v/n_v - k_b/n_b`. With :math:`L` a common multiple of every :math:`n` present,
:math:`L\\Delta` is an integer: integers add exactly in any order, and the mean
:math:`\\sum_r L\\Delta_r / (L\\,|R|)`, divided once, is the correctly rounded double of an exact
rational, so equal rationals give the same double however they were reached (the rank tests
then see the same ties in every row order). :math:`L` is the least common multiple of the valid
counts in the frame's ``n_valid*`` columns, or :data:`COMMON_DENOMINATOR` (``lcm(1..12)``)
without them; every value must be within rounding error of a multiple of :math:`1/L`.

Values that are not such ratios (``phi_expected``, an |SBS|) are snapped to the fixed binary
grid :math:`2^{-40}` (:data:`GRID_BITS`; the snap moves a value by at most :math:`4.6 \\cdot 10^{-13}`)
and added as integers the same way; the grid is coarsened one bit at a time only when a sum could
leave the exact integer range of int64.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64

#: lcm(1, ..., 12): a φ of at most 12 valid answers, and a Δ of two, are multiples of 1/27720.
COMMON_DENOMINATOR = 27720
#: Largest common denominator used; beyond it values go on the fixed grid.
MAX_DENOMINATOR = 2**24
#: Fixed grid 2^-GRID_BITS of the values that are not ratios of counts.
GRID_BITS = 40
#: Columns holding valid-answer counts (``phi``, ``delta`` and ``base_phi`` views).
COUNT_COLUMNS = ("n_valid", "n_valid_variation", "n_valid_base")
_FLOAT_EXACT = 2.0**52  # integer-valued doubles below this add exactly (bincount)
_INT64_SAFE = 2.0**62


def count_denominator(frame: pl.DataFrame) -> int:
    """Least common multiple of the valid counts in the ``n_valid*`` columns of ``frame``
    (:data:`COMMON_DENOMINATOR` when it has none; 0 when it exceeds :data:`MAX_DENOMINATOR`)."""
    present = [c for c in COUNT_COLUMNS if c in frame.columns]
    if not present:
        return COMMON_DENOMINATOR
    counts: set[int] = set()
    for column in present:
        counts.update(frame[column].drop_nulls().unique().to_list())
    denominator = 1
    for n in sorted(counts):
        if n > 0:
            denominator = math.lcm(denominator, int(n))
            if denominator > MAX_DENOMINATOR:
                return 0
    return denominator


def scaled_integers(values: F64, denominator: int) -> tuple[F64, float]:
    """``values`` as integer-valued doubles ``numerators`` and a ``scale``, values ≈ numerators / scale.

    Ratios of counts (every ``values * denominator`` within rounding error of an integer) are
    exact; other values are snapped to the grid :math:`2^{-\\text{GRID\\_BITS}}`.
    """
    v = np.asarray(values, dtype=np.float64)
    if denominator > 0:
        scaled = v * denominator
        rounded = np.rint(scaled)
        tolerance = max(1e-9, denominator * 2.0**-40)
        if v.size == 0 or float(np.max(np.abs(scaled - rounded))) <= tolerance:
            return rounded, float(denominator)
    total = float(np.abs(v).sum())
    bits = GRID_BITS
    while bits > 0 and total * 2.0**bits >= _INT64_SAFE:
        bits -= 1
    return np.rint(v * 2.0**bits), 2.0**bits


def exact_bincount(index: NDArray[np.int64], numerators: F64, size: int) -> F64:
    """Per-bin sums of integer-valued ``numerators``, exact (independent of the row order):
    float adds while every partial sum stays below 2^52, int64 beyond."""
    if float(np.abs(numerators).sum()) < _FLOAT_EXACT:
        return np.bincount(index, weights=numerators, minlength=size).astype(np.float64)
    sums = np.zeros(size, dtype=np.int64)
    np.add.at(sums, index, numerators.astype(np.int64))
    return sums.astype(np.float64)


def ratio_means(sums: F64, counts: F64, scale: float) -> F64:
    """``sums / (counts * scale)`` in one division (NaN where ``counts`` is 0)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        out: F64 = np.where(counts > 0, sums / np.where(counts > 0, counts * scale, 1.0), np.nan)
    return out
