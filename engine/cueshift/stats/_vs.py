r"""Variation Strength (seed 000 Eq. 3) with the sampling variance of the group means removed.

The plug-in VS of a scenario, the std of the observed group means :math:`\bar\phi_g`, is biased
upward: with :math:`G` groups, true means :math:`\mu_g` and :math:`v_g = \operatorname{var}(\bar\phi_g)`,

.. math::

    E\Big[\tfrac{1}{G - \delta}\sum_g (\bar\phi_g - \bar\phi)^2\Big]
    = \sigma^2_{\delta} + \frac{G - 1}{G - \delta}\,\frac{1}{G}\sum_g v_g, \qquad
    \sigma^2_{\delta} = \tfrac{1}{G - \delta}\textstyle\sum_g (\mu_g - \bar\mu)^2

(:math:`\delta` = ``ddof``), so a null dimension shows a VS of the order of the groups' standard
errors. The bias-corrected VS of a scenario is

.. math::

    \widetilde{\mathrm{VS}} = \sqrt{\max\!\Big(0,\ s^2_{\delta} - \frac{G - 1}{G - \delta}\,
    \frac{1}{G}\sum_g \frac{\hat s_g^2}{n_g}\Big)},

:math:`\hat s_g^2` the sample variance (ddof 1) of the face φ of group :math:`g`, :math:`n_g` its
faces (method of moments, as the between-group component of a one-way random-effects ANOVA;
Searle, Casella & McCulloch 1992 §3.5). VS of a model averages the scenarios. The square root of
an unbiased variance is itself biased downward (Jensen), so at moderate VS the corrected value
lies slightly below the truth where the plug-in lies above it (simulated, 40 faces per group,
true VS 0.019: -0.003 against +0.002); near VS = 0, where the plug-in's noise floor dominates
(+0.010), the correction removes most of it (+0.004).

Its interval is the image of a confidence ball for the group means, averaged over scenarios.
In a scenario, :math:`\sigma_\delta = \lVert P\mu \rVert / \sqrt{G - \delta}` with :math:`P` the
centring projection, and :math:`\lVert P(\bar\phi - \mu) \rVert^2 \le \max_g v_g\, \chi^2_{G-1}`
stochastically, so with :math:`r^2 = (G - 1) F_{1-\alpha}(G - 1, \nu)\, \max_g \hat v_g / (G - \delta)`
(:math:`\nu = \min_g n_g - 1`; the F quantile allows for estimated variances)

.. math::

    \sigma_\delta \in \big[\max(0, P_i - r),\ \min(P_i + r, \mathrm{VS}_{\max})\big]

with probability at least :math:`1 - \alpha` (:math:`P_i` the scenario's plug-in VS; for two
groups this is the image of the gap's interval under :math:`|\cdot|/2`). The interval of a
model's VS averages its scenarios' bounds. It always contains the bias-corrected estimate
(:math:`r^2 \ge` the correction, since :math:`F_{1-\alpha} \ge 1`), is valid at VS = 0, and is
conservative: like |SBS| (:mod:`cueshift.stats._folded`), a mean of folded (here: norm)
statistics is not a regular functional - the bias of any estimator does not shrink with the
number of scenarios (Cai & Low 2011) - and a bootstrap interval of the mean (percentile, BCa,
or basic around the corrected estimate) covered 7-25 % at VS = 0 over 25 scenarios in
simulation, and was what excluded its own estimate before (docs/decisions.md#d3).

References
----------
.. [1] Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*, §10 (bias
   estimation) and §13. Chapman & Hall.
.. [2] Davison, A. C. & Hinkley, D. V. (1997). *Bootstrap Methods and their Application*, §5.2.
.. [3] Searle, S. R., Casella, G. & McCulloch, C. E. (1992). *Variance Components*, §3.5. Wiley.
.. [4] Cai, T. T. & Low, M. G. (2011). Testing composite hypotheses, Hermite polynomials and
   optimal estimation of a nonsmooth functional. *Ann. Statist.* 39, 1012-1041.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from cueshift._types import F64


def vs_max(n_groups: int, ddof: int) -> float:
    r"""Largest VS of ``n_groups`` means in [0, 1]: :math:`\tfrac12\sqrt{G/(G-\delta)}` (even
    :math:`G`) or :math:`\tfrac12\sqrt{(G^2-1)/(G(G-\delta))}` (odd); 0.5 with ``ddof=0``, even G.

    Examples
    --------
    >>> vs_max(2, 0), round(vs_max(2, 1), 4), round(vs_max(3, 0), 4)
    (0.5, 0.7071, 0.4714)
    """
    if n_groups - ddof <= 0:
        return math.inf
    pop_var = 0.25 if n_groups % 2 == 0 else (n_groups**2 - 1) / (4.0 * n_groups**2)
    return math.sqrt(pop_var * n_groups / (n_groups - ddof))


def cell_caps(df1: F64, ddof: int, top: float | None) -> F64:
    """Each cell's cap on its upper bound: ``top``, or by default :func:`vs_max` of the groups
    present in the cell (``df1 + 1``), not of all groups: two groups of a three-group dimension
    at 0 and 1 have a VS of 0.5, above ``vs_max(3, 0)`` = 0.471, which put the bound below
    the estimate.

    Examples
    --------
    >>> cell_caps(np.array([1.0, 2.0]), 0, None).round(4).tolist()  # 2 and 3 groups present
    [0.5, 0.4714]
    """
    if top is not None:
        return np.full(df1.shape, top, dtype=np.float64)
    return np.array([vs_max(int(d) + 1, ddof) if d >= 1 else math.inf for d in df1], dtype=np.float64)


@dataclass(frozen=True)
class VsResult:
    """Per unit (model): bias-corrected VS, plug-in VS, and the interval of the VS."""

    estimate: F64
    plugin: F64
    ci_low: F64
    ci_high: F64


def _scenario_vs(x: F64, codes: NDArray[np.int64], n_groups: int, ddof: int) -> dict[str, F64]:
    """Per cell (column of ``x``): corrected and plug-in VS, and what the ball's radius needs."""
    observed = ~np.isnan(x)
    x0 = np.where(observed, x, 0.0)
    member = [codes == g for g in range(n_groups)]
    n = np.stack([observed[m].sum(0) for m in member]).astype(np.float64)
    s1 = np.stack([x0[m].sum(0) for m in member])
    s2 = np.stack([(x0[m] ** 2).sum(0) for m in member])
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.where(n > 0, s1 / n, np.nan)
        var_mean = np.where(n > 1, np.maximum(s2 - s1 * mean, 0.0) / (n - 1) / n, np.nan)
        present = ~np.isnan(mean)
        n_present = present.sum(axis=0).astype(np.float64)
        between = np.nanvar(mean, axis=0, ddof=ddof)
        spread = n_present - ddof
        noise = (n_present - 1) / spread * np.nanmean(var_mean, axis=0)
        corrected = np.sqrt(np.maximum(between - noise, 0.0))
        scale = np.nanmax(var_mean, axis=0) / spread
    one_face = (n == 1).any(axis=0)  # a group mean of unknown variance: no correction, no ball
    defined = ~np.isnan(corrected) & ~np.isnan(scale) & (n_present >= 2) & ~one_face
    return {
        "estimate": np.where(defined, corrected, np.nan),
        "plugin": np.where(n_present >= 2, np.sqrt(between), np.nan),
        "scale": np.where(defined, scale, np.nan),
        "df1": n_present - 1,
        "df2": np.min(np.where(present, n, np.inf), axis=0) - 1,
    }


def _radius(cell: dict[str, F64], sel: NDArray[np.bool_], level: float) -> F64:
    """Radius ``r`` of the ball at ``level``: ``sqrt((G - 1) F_level(G - 1, nu) max v / (G - ddof))``."""
    df1 = cell["df1"][sel]
    return np.asarray(np.sqrt(df1 * stats.f.ppf(level, df1, cell["df2"][sel]) * cell["scale"][sel]))


def variation_strength_kernel(
    x: F64,
    codes: NDArray[np.int64],
    n_groups: int,
    unit: NDArray[np.int64],
    *,
    ddof: int = 0,
    level: float = 0.95,
    top: float | None = None,
) -> VsResult:
    """Bias-corrected VS per unit (the mean over its cells, e.g. a model's scenarios) and its interval.

    ``x`` is ``(faces, cells)`` face φ (NaN: no value), ``codes`` each face's group (-1: none),
    ``unit`` each cell's unit index. Cells without two groups, or with a group of one face (its
    mean's variance unknown), leave the corrected VS and the interval; the plug-in VS keeps them.
    ``top`` caps each cell's upper bound: by default :func:`vs_max` of the groups present in the
    cell (:func:`cell_caps`), the largest VS of values in [0, 1] (φ); pass ``math.inf`` for
    values on another scale, where that cap could fall below the estimate itself.
    """
    cell = _scenario_vs(x, codes, n_groups, ddof)
    n_units = int(unit.max(initial=-1)) + 1
    alpha = 1.0 - level
    caps = cell_caps(cell["df1"], ddof, top)
    out = {key: np.full(n_units, np.nan) for key in ("estimate", "plugin", "low", "high")}
    for u in range(n_units):
        in_unit = unit == u
        sel = in_unit & ~np.isnan(cell["estimate"])
        if in_unit.any() and not np.isnan(cell["plugin"][in_unit]).all():
            out["plugin"][u] = np.nanmean(cell["plugin"][in_unit])
        if not sel.any():
            continue
        plugin = cell["plugin"][sel]
        with np.errstate(invalid="ignore"):
            lows = np.maximum(plugin - _radius(cell, sel, 1.0 - alpha / (2.0 * sel.sum())), 0.0)
            highs = np.minimum(plugin + _radius(cell, sel, level), caps[sel])
        out["estimate"][u] = cell["estimate"][sel].mean()
        out["low"][u], out["high"][u] = lows.mean(), highs.mean()
    return VsResult(out["estimate"], out["plugin"], out["low"], out["high"])
