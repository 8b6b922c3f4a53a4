r"""Method-of-moments variance components of the shifts, pooled over variation values, with intervals.

For one value :math:`v`, the faces × scenarios table of :math:`\Delta_{fvs}` (faces with a shift in
every scenario) is a two-way layout with one observation per cell (Searle, Casella & McCulloch
1992, §4.6). With face means :math:`\bar x_{f\cdot}`, scenario means :math:`\bar x_{\cdot s}` and
grand mean :math:`\bar x`:

.. math::

    E[MS_F] = S\sigma_F^2 + \sigma_R^2, \quad E[MS_S] = F\tau^2 + \sigma_R^2, \quad
    E[MS_R] = \sigma_R^2 = \sigma_{FS}^2 + \sigma_\varepsilon^2,

so :math:`\hat\sigma_F^2 = (MS_F - MS_R)/S`, :math:`\hat\tau^2 = (MS_S - MS_R)/F` and
:math:`\hat\sigma_{FS}^2 = MS_R - \hat\sigma_\varepsilon^2`, where :math:`\hat\sigma_\varepsilon^2`
is the mean unbiased binomial variance of the cells' two φ,
:math:`\hat\phi(1-\hat\phi)/(n-1)` each. Sums of squares and degrees of freedom are pooled over
values. Estimates below zero are reported as 0.

Intervals: faces are the clusters, so :math:`\sigma_F^2` and :math:`\sigma_{FS}^2` get face-level
jackknife intervals (every statistic here is linear in the face weights, so a replicate costs a
few matrix products); :math:`\tau^2` varies with the scenarios, which a face
bootstrap keeps fixed, and gets the modified large-sample interval of
Ting, Burdick & Graybill (1990) for :math:`c_1 MS_S - c_2 MS_R`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from cueshift._types import F64


@dataclass(frozen=True)
class ShiftCube:
    """Shifts of one model in a dense value × face × scenario cube.

    ``delta[v, f, s]`` is NaN where face ``f`` has no shift of value ``v`` in scenario ``s``;
    ``error[v, f, s]`` is the cell's estimated measurement variance of Δ (0 when unknown or exact).
    """

    values: list[str]
    delta: F64
    error: F64


@dataclass(frozen=True)
class Pooled:
    """Pooled mean squares (one entry per replicate; the first is the data itself)."""

    ms_face: F64
    ms_scenario: F64
    ms_residual: F64
    error: F64
    df_face: F64
    df_scenario: F64
    df_residual: F64
    faces: F64  # mean faces per value (the coefficient of tau^2)
    scenarios: int

    @property
    def face(self) -> F64:
        return np.maximum((self.ms_face - self.ms_residual) / self.scenarios, 0.0)

    @property
    def scenario(self) -> F64:
        return np.maximum((self.ms_scenario - self.ms_residual) / self.faces, 0.0)

    @property
    def face_scenario(self) -> F64:
        return np.maximum(self.ms_residual - self.error, 0.0)


def pooled_two_way(cube: ShiftCube, weights: F64 | None = None) -> Pooled:
    """Pooled two-way mean squares of ``cube`` under face multiplicities ``weights`` (B × F).

    ``weights=None`` is the data (one row of ones). A face counts in a value's table when it has
    a shift in every scenario.
    """
    n_values, n_faces, n_scen = cube.delta.shape
    w = np.ones((1, n_faces)) if weights is None else np.atleast_2d(weights).astype(np.float64)
    totals = {k: np.zeros(w.shape[0]) for k in ("ssf", "sss", "ssr", "err", "dff", "dfs", "dfr", "wf")}
    n_used = 0
    for v in range(n_values):
        x = cube.delta[v]
        keep = np.isfinite(x).all(axis=1)
        if keep.sum() < 2:
            continue
        n_used += 1
        xs, wk = x[keep], w[:, keep]
        e = np.nan_to_num(cube.error[v][keep]).mean(axis=1)
        big_w = wk.sum(axis=1)
        r = xs.mean(axis=1)
        q = ((xs - r[:, None]) ** 2).sum(axis=1)
        c = (wk @ xs) / big_w[:, None]
        m = c.mean(axis=1)
        between_scen = ((c - m[:, None]) ** 2).sum(axis=1)
        totals["ssf"] += n_scen * (wk @ r**2 - big_w * m**2)
        totals["sss"] += big_w * between_scen
        totals["ssr"] += wk @ q - big_w * between_scen
        totals["err"] += wk @ e
        totals["dff"] += big_w - 1.0
        totals["dfs"] += n_scen - 1.0
        totals["dfr"] += (big_w - 1.0) * (n_scen - 1.0)
        totals["wf"] += big_w
    if n_used == 0:
        nan = np.full(w.shape[0], np.nan)
        return Pooled(nan, nan, nan, nan, nan, nan, nan, nan, n_scen)
    with np.errstate(invalid="ignore", divide="ignore"):
        return Pooled(
            ms_face=totals["ssf"] / totals["dff"],
            ms_scenario=totals["sss"] / totals["dfs"],
            ms_residual=totals["ssr"] / totals["dfr"],
            error=totals["err"] / totals["wf"],
            df_face=totals["dff"],
            df_scenario=totals["dfs"],
            df_residual=totals["dfr"],
            faces=totals["wf"] / n_used,
            scenarios=n_scen,
        )


def leave_one_out(n_faces: int) -> F64:
    """Face weights of the jackknife replicates: row ``i`` leaves face ``i`` out (F × F)."""
    return np.asarray(1.0 - np.eye(n_faces), dtype=np.float64)


def jackknife_interval(estimate: float, replicates: F64, level: float) -> tuple[float, float]:
    r"""Face-level jackknife interval :math:`\hat\theta \pm z\,\widehat{se}`, floored at 0, with
    :math:`\widehat{se}^2 = \frac{F-1}{F}\sum_i(\hat\theta_{(i)} - \bar\theta_{(\cdot)})^2`.

    A face bootstrap would bias these components: a replicate that repeats a face loses that
    face's spread while the degrees of freedom still count it (about :math:`-\sigma_R^2/F` on
    :math:`MS_R`, the size of :math:`\sigma_{FS}^2`'s whole standard error in a small pilot). A
    replicate that leaves a face out keeps the moment estimators unbiased (Efron & Stein 1981).

    References
    ----------
    .. [1] Efron, B. & Stein, C. (1981). The jackknife estimate of variance. *Ann. Statist.* 9,
       586–596.
    """
    finite = replicates[np.isfinite(replicates)]
    if finite.size < 2 or not np.isfinite(estimate):
        return (float("nan"), float("nan"))
    n = finite.size
    se = float(np.sqrt((n - 1) / n * ((finite - finite.mean()) ** 2).sum()))
    z = float(stats.norm.ppf((1 + level) / 2))
    return max(estimate - z * se, 0.0), max(estimate + z * se, 0.0)


def mls_interval(
    ms1: float, df1: float, ms2: float, df2: float, c1: float, c2: float, level: float = 0.95
) -> tuple[float, float]:
    r"""Modified large-sample interval for :math:`\theta = c_1 MS_1 - c_2 MS_2` (both :math:`c > 0`).

    .. math::

        L = \hat\theta - \sqrt{G_1^2 c_1^2 MS_1^2 + H_2^2 c_2^2 MS_2^2 + G_{12} c_1 c_2 MS_1 MS_2}, \quad
        U = \hat\theta + \sqrt{H_1^2 c_1^2 MS_1^2 + G_2^2 c_2^2 MS_2^2 + H_{12} c_1 c_2 MS_1 MS_2},

    :math:`G_i = 1 - 1/F_{a;\nu_i,\infty}`, :math:`H_i = 1/F_{1-a;\nu_i,\infty} - 1`,
    :math:`G_{12} = [(F_{a;\nu_1,\nu_2} - 1)^2 - G_1^2F_{a;\nu_1,\nu_2}^2 - H_2^2]/F_{a;\nu_1,\nu_2}`,
    :math:`H_{12} = [(1 - F_{1-a;\nu_1,\nu_2})^2 - H_1^2F_{1-a;\nu_1,\nu_2}^2 - G_2^2]/F_{1-a;\nu_1,\nu_2}`,
    :math:`a = (1-\text{level})/2` and :math:`F_{a;\cdot}` the upper-:math:`a` point. Bounds below zero
    are set to 0.

    References
    ----------
    .. [1] Ting, N., Burdick, R. K., Graybill, F. A., Jeyaratnam, S. & Lu, T.-F. C. (1990).
       Confidence intervals on linear combinations of variance components that are unrestricted in
       sign. *J. Statist. Comput. Simul.* 35, 135–143.
    .. [2] Burdick, R. K. & Graybill, F. A. (1992). *Confidence Intervals on Variance Components*.
       Marcel Dekker, §3.3.
    """
    a = (1.0 - level) / 2.0
    f_inf_hi = {nu: stats.chi2.isf(a, nu) / nu for nu in (df1, df2)}
    f_inf_lo = {nu: stats.chi2.ppf(a, nu) / nu for nu in (df1, df2)}
    g1, g2 = 1.0 - 1.0 / f_inf_hi[df1], 1.0 - 1.0 / f_inf_hi[df2]
    h1, h2 = 1.0 / f_inf_lo[df1] - 1.0, 1.0 / f_inf_lo[df2] - 1.0
    f_hi, f_lo = stats.f.isf(a, df1, df2), stats.f.ppf(a, df1, df2)
    g12 = ((f_hi - 1.0) ** 2 - g1**2 * f_hi**2 - h2**2) / f_hi
    h12 = ((1.0 - f_lo) ** 2 - h1**2 * f_lo**2 - g2**2) / f_lo
    theta = c1 * ms1 - c2 * ms2
    v_lo = g1**2 * c1**2 * ms1**2 + h2**2 * c2**2 * ms2**2 + g12 * c1 * c2 * ms1 * ms2
    v_hi = h1**2 * c1**2 * ms1**2 + g2**2 * c2**2 * ms2**2 + h12 * c1 * c2 * ms1 * ms2
    return max(theta - float(np.sqrt(max(v_lo, 0.0))), 0.0), max(theta + float(np.sqrt(max(v_hi, 0.0))), 0.0)


__all__ = ["Pooled", "ShiftCube", "jackknife_interval", "leave_one_out", "mls_interval", "pooled_two_way"]
