r"""Equivalence of a Variation Strength to no shift: a one-sided test of VS below its margin.

VS (seed 000 Eq. 3) is a non-negative magnitude, so "no shift" is the one-sided claim
:math:`H_1: \mathrm{VS} < m` against :math:`H_0: \mathrm{VS} \ge m`. Its bounds are those of
Table 2 (:func:`~cueshift.stats._vs.variation_strength_kernel`: the image of a confidence ball
for the group means, averaged over scenarios) at level :math:`1 - 2\alpha`, the level of the SBS
rows' TOST interval:

- the upper bound :math:`U = \overline{\min(P_i + r_i, \mathrm{VS}_{\max})}` is a one-sided
  :math:`1-\alpha` bound: the events :math:`\lVert\mu + e\rVert < \lVert\mu\rVert - r` and
  :math:`\lVert\mu - e\rVert < \lVert\mu\rVert - r` exclude each other (their sum would break the
  triangle inequality) and are equally likely for symmetric errors :math:`e`, so each has at
  most half the ball's :math:`2\alpha`;
- the lower bound :math:`L = \overline{\max(P_i - r_i', 0)}` (:math:`r_i'` at
  :math:`1 - \alpha/k`, Bonferroni over the :math:`k` scenarios) is a one-sided
  :math:`1-\alpha` bound.

The TOST-like ``p`` is the smallest :math:`a` with :math:`U(a) < m` (``p < α`` exactly when
:math:`U < m`); 1 when the plug-in VS itself reaches the margin. ``p_shift``, the test of
VS = 0, is the smallest :math:`a` with :math:`L(a) > 0`:
:math:`\min(1, k \min_i p_i)`, :math:`p_i` the F test of scenario :math:`i`'s ball at radius
:math:`P_i`. Both are conservative beyond two groups and one scenario (BENCHMARKS.md).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from cueshift._types import F64, I64
from cueshift.stats._vs import _scenario_vs, cell_caps

#: Bisection steps in log p for the equivalence p (the bracket is [1e-300, 0.5]).
_STEPS = 64


class VsTost(NamedTuple):
    """Per unit (e.g. a model): the bias-corrected VS, its :math:`1-2\\alpha` interval (each
    bound one-sided :math:`1-\\alpha`), the equivalence ``p``, the ``p_shift`` of VS = 0 and the
    number of scenarios (cells) tested."""

    estimate: F64
    ci_low: F64
    ci_high: F64
    p: F64
    p_shift: F64
    n_cells: I64


def vs_tost(
    x: F64,
    codes: NDArray[np.int64],
    n_groups: int,
    unit: NDArray[np.int64],
    margin: float,
    *,
    alpha: float = 0.05,
    ddof: int = 0,
    top: float | None = None,
) -> VsTost:
    r"""Test each unit's VS against ``margin``: below it (equivalent to no shift) or above 0.

    Parameters
    ----------
    x : numpy.ndarray
        ``(faces, cells)`` face values (φ; NaN: none), as :func:`variation_strength_kernel`.
    codes : numpy.ndarray
        Each face's group (-1: none).
    n_groups : int
        Number of groups.
    unit : numpy.ndarray
        Each cell's unit (the VS of a unit averages its cells).
    margin : float
        The smallest VS of interest :math:`m > 0`.
    alpha : float
        Level of each one-sided test; ``[ci_low, ci_high]`` has coverage :math:`1 - 2\alpha`.
    ddof, top
        As :func:`variation_strength_kernel` (``top``: the cap, by default :func:`vs_max` of the
        groups present in each cell, :func:`~cueshift.stats._vs.cell_caps`).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(0.5, 0.1, size=(400, 1))
    >>> res = vs_tost(x, np.arange(400) % 2, 2, np.zeros(1, dtype=np.int64), 0.05)
    >>> bool(res.p[0] < 0.05 < res.p_shift[0]), bool(res.ci_high[0] < 0.05)
    (True, True)
    """
    if not margin > 0:
        raise ValueError("margin must be > 0")
    cell = _scenario_vs(x, codes, n_groups, ddof)
    cap = cell_caps(cell["df1"], ddof, top)
    n_units = int(unit.max(initial=-1)) + 1
    defined = ~np.isnan(cell["estimate"])
    k = np.bincount(unit[defined], minlength=n_units).astype(np.int64)
    has = k > 0
    plugin, scale = cell["plugin"], cell["scale"]
    df1, df2 = cell["df1"], cell["df2"]

    def unit_mean(values: F64) -> F64:
        total = np.bincount(unit[defined], weights=values[defined], minlength=n_units)
        return np.where(has, total / np.maximum(k, 1), np.nan)

    def radius(tail: F64) -> F64:
        with np.errstate(invalid="ignore"):
            return np.asarray(np.sqrt(df1 * stats.f.isf(tail, df1, df2) * scale))

    def upper(a: F64) -> F64:  # U at the units' level 1 - a: the ball at 1 - 2a
        return unit_mean(np.minimum(plugin + radius(2.0 * a[unit]), cap))

    k_cell = np.maximum(k[unit], 1)
    lower = unit_mean(np.maximum(plugin - radius(alpha / k_cell), 0.0))
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        cell_p = stats.f.sf(plugin**2 / (df1 * scale), df1, df2)
    cell_p = np.where(defined & np.isnan(cell_p), 1.0, cell_p)  # 0 / 0: no spread at all
    smallest = np.full(n_units, np.inf)
    np.minimum.at(smallest, unit[defined], cell_p[defined])
    p_shift = np.where(has, np.minimum(1.0, k * np.where(has, smallest, 0.0)), np.nan)
    return VsTost(
        estimate=unit_mean(cell["estimate"]),
        ci_low=lower,
        ci_high=upper(np.full(n_units, alpha)),
        p=_equivalence_p(upper, unit_mean(plugin), margin, has),
        p_shift=p_shift,
        n_cells=k,
    )


def _equivalence_p(bound: Callable[[F64], F64], plugin: F64, margin: float, has: NDArray[np.bool_]) -> F64:
    """The smallest ``a`` with ``bound(a) < margin`` per unit (``bound``: the upper bound at
    level ``1 - a``, non-increasing in ``a``), by bisection in ``log a``."""
    n_units = plugin.size
    lo, hi = np.full(n_units, np.log(1e-300)), np.full(n_units, np.log(0.5))
    never = bound(np.exp(lo)) < margin  # below the margin even at the widest bound
    for _ in range(_STEPS):
        mid = 0.5 * (lo + hi)
        below = bound(np.exp(mid)) < margin
        hi, lo = np.where(below, mid, hi), np.where(below, lo, mid)
    p = np.where(never, 0.0, np.exp(hi))
    return np.where(~has, np.nan, np.where(plugin >= margin, 1.0, p))
