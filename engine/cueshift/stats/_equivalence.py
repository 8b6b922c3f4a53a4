r"""Equivalence to no shift: two one-sided tests (TOST) on per-face values, and the verdict.

A non-significant test does not show that an effect is absent; an equivalence test against a
declared smallest effect of interest :math:`m` does (Schuirmann 1987; Lakens 2017).
"""

from __future__ import annotations

import warnings
from typing import Final, NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from cueshift._types import F64, I64
from cueshift.stats._equal_values import exact_mean_sd

#: The verdicts of :func:`equivalence_verdicts`.
SHIFT: Final = "shift"
EQUIVALENT: Final = "equivalent to no shift"
INCONCLUSIVE: Final = "inconclusive"
VERDICTS: Final = (SHIFT, EQUIVALENT, INCONCLUSIVE)


class Tost(NamedTuple):
    """Per column: mean, the :math:`1-2\alpha` interval, the binding one-sided ``statistic``
    (t), the TOST ``p`` (the larger one-sided p), the two-sided p of the ordinary t test of 0
    (``p_shift``) and the number of faces ``n``."""

    estimate: F64
    ci_low: F64
    ci_high: F64
    statistic: F64
    p: F64
    p_shift: F64
    n: I64


def tost(values: F64, margin: float | F64, *, alpha: float = 0.05) -> Tost:
    r"""Two one-sided t tests of equivalence to 0 per column of per-face values.

    With the :math:`n` non-NaN face values :math:`x_f` of a column, mean :math:`\bar x` and
    standard error :math:`s/\sqrt n`, the hypotheses :math:`H_0: |\mu| \ge m` against
    :math:`H_1: |\mu| < m` are tested by

    .. math::

        t_- = \frac{\bar x + m}{s/\sqrt n}, \quad t_+ = \frac{\bar x - m}{s/\sqrt n}, \quad
        p = \max\bigl(P(T_{n-1} \ge t_-),\ P(T_{n-1} \le t_+)\bigr),

    (Schuirmann 1987; Lakens 2017, eq. 1-2): :math:`p < \alpha` exactly when the
    :math:`1-2\alpha` interval :math:`\bar x \pm t_{1-\alpha, n-1}\, s/\sqrt n` lies inside
    :math:`(-m, m)`. Faces are the units (each face's values averaged first), so the test is
    clustered by face like the WSRT and the face bootstrap of the SBS tables.

    Parameters
    ----------
    values : numpy.ndarray
        ``(faces, columns)`` per-face values (NaN: the face has none in the column).
    margin : float or numpy.ndarray
        The smallest effect of interest :math:`m > 0` (one, or one per column).
    alpha : float
        Level of each one-sided test; the interval has coverage :math:`1 - 2\alpha`.

    Returns
    -------
    Tost
        One entry per column; NaN where fewer than 2 faces have a value.

    Examples
    --------
    >>> res = tost(np.array([[0.01], [-0.02], [0.0], [0.02]]), 0.1)
    >>> bool(res.p[0] < 0.05), bool(-0.1 < res.ci_low[0] < res.ci_high[0] < 0.1)
    (True, True)
    """
    x = np.asarray(values, dtype=np.float64)
    m = np.broadcast_to(np.asarray(margin, dtype=np.float64), x.shape[1:])
    if np.any(~(m > 0)):
        raise ValueError("margin must be > 0")
    n = np.sum(~np.isnan(x), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean, sd = exact_mean_sd(x.reshape(x.shape[0], -1))  # equal values: sd exactly 0
        mean, sd = mean.reshape(x.shape[1:]), sd.reshape(x.shape[1:])
        se = sd / np.sqrt(n)
        df = np.where(n >= 2, n - 1, np.nan)
        t_lower, t_upper = (mean + m) / se, (mean - m) / se
        p_lower, p_upper = stats.t.sf(t_lower, df), stats.t.cdf(t_upper, df)
        # equal values (se 0): each one-sided test is decided by the mean alone; on the margin
        # itself H0 holds (t = 0/0 would otherwise be NaN and drop out of the max)
        p_lower = np.where(se == 0, np.where(mean > -m, 0.0, 1.0), p_lower)
        p_upper = np.where(se == 0, np.where(mean < m, 0.0, 1.0), p_upper)
        half = stats.t.ppf(1.0 - alpha, df) * se
        p_shift = 2.0 * stats.t.sf(np.abs(mean / se), df)
    p = np.maximum(p_lower, p_upper)
    statistic = np.where(p_lower >= p_upper, t_lower, t_upper)
    few: NDArray[np.bool_] = n < 2
    nan = np.where(few, np.nan, 0.0)
    return Tost(
        estimate=np.where(n >= 1, mean, np.nan),
        ci_low=mean - half + nan,
        ci_high=mean + half + nan,
        statistic=statistic + nan,
        p=np.clip(p + nan, 0.0, 1.0),
        p_shift=np.clip(np.where(se == 0, np.where(mean == 0, 1.0, 0.0), p_shift) + nan, 0.0, 1.0),
        n=n.astype(np.int64),
    )


def equivalence_verdicts(
    p_shift_adj: F64, p_adj: F64, ci_low: F64, ci_high: F64, *, alpha: float = 0.05
) -> list[str | None]:
    r"""The verdict of each row at level :math:`\alpha`.

    - ``'shift'``: the ordinary two-sided test's BH-adjusted p (``p_shift_adj``) is below
      :math:`\alpha` and the :math:`1-2\alpha` interval excludes 0 — a shift, even one smaller
      than the margin (then the interval may also lie inside the margins: a real but negligible
      shift is still reported as a shift);
    - ``'equivalent to no shift'``: otherwise, when the TOST's BH-adjusted p (``p_adj``) is
      below :math:`\alpha` — unadjusted, the same as the :math:`1-2\alpha` interval lying inside
      :math:`(-m, m)` (Schuirmann 1987; Lakens 2017);
    - ``'inconclusive'``: neither (the data cannot tell a shift from none at this margin);
    - ``None``: no test (fewer than 2 faces).

    Examples
    --------
    >>> nan = float("nan")
    >>> equivalence_verdicts(
    ...     np.array([0.001, 0.5, 0.5, nan]), np.array([0.9, 0.01, 0.3, nan]),
    ...     np.array([0.1, -0.02, -0.2, nan]), np.array([0.2, 0.03, 0.1, nan]))
    ['shift', 'equivalent to no shift', 'inconclusive', None]
    """
    verdicts: list[str | None] = []
    for shift_p, tost_p, low, high in zip(p_shift_adj, p_adj, ci_low, ci_high, strict=True):
        if np.isnan(shift_p) or np.isnan(tost_p):
            verdicts.append(None)
        elif shift_p < alpha and (low > 0 or high < 0):
            verdicts.append(SHIFT)
        else:
            verdicts.append(EQUIVALENT if tost_p < alpha else INCONCLUSIVE)
    return verdicts
