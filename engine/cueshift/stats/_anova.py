"""One-way between-subject ANOVA with partial η² (seed 000 Table 10, ANOVA rows)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import special

from cueshift.stats._equal_values import all_equal


@dataclass(frozen=True)
class AnovaResult:
    """One-way ANOVA: F, its degrees of freedom, p, η²p and the group count."""

    statistic: float
    df_between: float
    df_within: float
    p_value: float
    eta_sq_partial: float
    n: int


def one_way_anova(values: ArrayLike, labels: ArrayLike) -> AnovaResult:
    r"""One-way between-subject ANOVA of ``values`` by ``labels``.

    .. math::

        F = \frac{SS_b/(k-1)}{SS_w/(N-k)}, \qquad
        \eta^2_p = \frac{SS_b}{SS_b + SS_w},

    with :math:`SS_b = \sum_g n_g(\bar y_g - \bar y)^2` and :math:`SS_w = \sum_g\sum_i (y_{gi} - \bar y_g)^2`.
    In a one-way design partial η² equals η². NaN values and missing labels (None, a float NaN,
    pandas' NA) are dropped. As
    :func:`scipy.stats.f_oneway`: when every group is constant, F is infinite (p = 0) if the
    groups differ and undefined (NaN F, p and η²) if every value is the same, decided by exact
    comparison (the sums of squares of equal values are rounding noise, not 0).

    References
    ----------
    .. [1] seed 000 Table 10, rows "ANOVA" (face level, n = 500).
    .. [2] Cohen, J. (1973). Eta-squared and partial eta-squared in fixed factor ANOVA designs.
       *Educ. Psychol. Meas.* 33, 107–112.
    """
    y = np.asarray(values, dtype=np.float64)
    g = np.asarray(labels, dtype=object)
    ok = ~np.isnan(y) & ~np.asarray(pd.isna(g), dtype=bool)
    y, g = y[ok], g[ok]
    levels, codes = np.unique(g.astype(str), return_inverse=True)
    k, n = levels.size, y.size
    if k < 2 or n <= k:
        return AnovaResult(np.nan, float(k - 1), float(n - k), np.nan, np.nan, int(n))
    if all_equal(y):
        return AnovaResult(np.nan, float(k - 1), float(n - k), np.nan, np.nan, int(n))
    sizes = np.bincount(codes, minlength=k).astype(np.float64)
    means = np.bincount(codes, weights=y, minlength=k) / sizes
    grand = y.mean()
    ss_between = float(np.sum(sizes * (means - grand) ** 2))
    ss_within = float(np.sum((y - means[codes]) ** 2))
    df_b, df_w = float(k - 1), float(n - k)
    first = np.full(k, np.nan)
    first[codes[::-1]] = y[::-1]  # a value of each group
    constant_groups = bool(np.all(y == first[codes]))
    f = np.inf if constant_groups or ss_within <= 0 else (ss_between / df_b) / (ss_within / df_w)
    p = float(special.fdtrc(df_b, df_w, f))
    eta = 1.0 if constant_groups else ss_between / (ss_between + ss_within)
    return AnovaResult(f, df_b, df_w, p, eta, int(n))
