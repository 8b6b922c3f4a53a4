r"""Small-sample cluster-robust inference for OLS: the bias-reduced linearisation (CR2) sandwich
with Satterthwaite degrees of freedom per coefficient, as R's clubSandwich computes
``coef_test(lm(...), vcov = "CR2", cluster = ..., test = "Satterthwaite")``.

statsmodels has no CR2 for OLS (its GEE ``cov_type="bias_reduced"`` is Mancl & DeRouen's
:math:`(I - H_{gg})^{-1}`, without Satterthwaite df), hence this kernel.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as sps

from cueshift._types import F64

#: clubSandwich's ``matrix_power`` tolerance: eigenvalues of :math:`I - H_{gg}` at or below it are
#: zero (the inverse root is the pseudo-inverse one).
EIGEN_TOLERANCE = 1e-12
#: A term's CR2 variance counts as biased, so undefined, where the working model's bias exceeds
#: this share of :math:`M_{ii}` (exact arithmetic: zero or not).
BIAS_TOLERANCE = 1e-8
#: Residuals whose norm is at most this share of the outcome's: an exact fit, no variance to estimate.
EXACT_FIT = 1e-10


@dataclass(frozen=True)
class CR2Inference:
    """Per coefficient: the OLS estimate, its CR2 standard error, Satterthwaite df, t and p.

    ``reason`` is None where the term's inference is defined, else one short line saying why
    ``se, df, statistic, p`` are NaN.
    """

    estimate: F64
    se: F64
    df: F64
    statistic: F64
    p: F64
    n_clusters: int
    reason: tuple[str | None, ...]

    def interval(self, confidence: float = 0.95) -> tuple[F64, F64]:
        """The t interval with each coefficient's Satterthwaite df (NaN where undefined)."""
        with np.errstate(invalid="ignore"):
            half = sps.t.ppf(0.5 + confidence / 2.0, self.df) * self.se
        return self.estimate - half, self.estimate + half


def cr2_satterthwaite(x: ArrayLike, y: ArrayLike, clusters: ArrayLike) -> CR2Inference:
    r"""OLS of ``y`` on ``x`` with CR2 standard errors and Satterthwaite df by ``clusters``.

    With :math:`M = (X^\top X)^{-1}`, residuals :math:`e` and, per cluster :math:`g`,
    :math:`H_{gg} = X_g M X_g^\top` and the symmetric inverse square root
    :math:`A_g = (I - H_{gg})^{-1/2}` (eigen-decomposition; eigenvalues at or below
    :data:`EIGEN_TOLERANCE` left out, the pseudo-inverse root, as clubSandwich), the CR2
    covariance is [1]_ [3]_

    .. math:: V^{CR2} = M \Big(\sum_g X_g^\top A_g e_g e_g^\top A_g X_g\Big) M .

    For coefficient :math:`i` let :math:`p_g = (M X_g^\top A_g)_{i\cdot}` and
    :math:`u_g = X_g^\top p_g`. Under the working model :math:`\operatorname{Var}(e) = \sigma^2 I`,
    :math:`V^{CR2}_{ii}/\sigma^2` is a quadratic form with matrix
    :math:`P_{gh} = \delta_{gh}\, p_g^\top p_g - u_g^\top M u_h` over the clusters, and the
    Satterthwaite df [1]_ [2]_ [3]_ are

    .. math:: \nu_i = \frac{(\operatorname{tr} P)^2}{\operatorname{tr}(P^2)},

    the t test :math:`\hat\beta_i / \sqrt{V^{CR2}_{ii}} \sim t_{\nu_i}`.

    Parameters
    ----------
    x : array_like, shape (n, k)
        Design matrix (include the constant column).
    y : array_like, shape (n,)
        Outcome.
    clusters : array_like, shape (n,)
        Cluster label per row.

    Returns
    -------
    CR2Inference
        Every term NaN, with a reason, where :math:`X` is rank-deficient or there are fewer than
        two clusters. Where some :math:`I - H_{gg}` is singular (a combination of the terms
        singles out cluster :math:`g`, e.g. a cluster-level term that only it takes, or
        cluster-level terms that saturate the clusters), the pseudo-inverse keeps
        :math:`V^{CR2}_{ii}` unbiased under the working model only for the terms that do not rest
        on that direction, :math:`\|N_g^\top X_g M e_i\| = 0` with :math:`N_g` the null space of
        :math:`I - H_{gg}` [3]_: those keep clubSandwich's numbers, the others are NaN with a reason
        naming the clusters (clubSandwich reports a biased number there). Every term is NaN with a
        reason after an exact fit (residuals within :data:`EXACT_FIT`); one term where its
        variance or df are zero or not finite.

    References
    ----------
    .. [1] Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
       regression with multi-stage samples. *Survey Methodology* 28(2), 169–181.
    .. [2] Imbens, G. W. & Kolesár, M. (2016). Robust standard errors in small samples: some
       practical advice. *Review of Economics and Statistics* 98(4), 701–712.
    .. [3] Pustejovsky, J. E. & Tipton, E. (2018). Small-sample methods for cluster-robust
       variance estimation and hypothesis testing in fixed effects models. *Journal of Business
       & Economic Statistics* 36(4), 672–683.

    Examples
    --------
    >>> x = np.column_stack([np.ones(6), [0.0, 1, 0, 1, 0, 1]])
    >>> fit = cr2_satterthwaite(x, [1.0, 2, 1.5, 2.5, 0.5, 2.2], ["a", "a", "b", "b", "c", "c"])
    >>> fit.n_clusters, fit.reason
    (3, (None, None))
    """
    xm = np.asarray(x, dtype=np.float64)
    yv = np.asarray(y, dtype=np.float64)
    labels, codes = np.unique(np.asarray(clusters), return_inverse=True)
    k = xm.shape[1]
    estimate: F64 = np.linalg.lstsq(xm, yv, rcond=None)[0].astype(np.float64)
    if len(labels) < 2:
        return _undefined(estimate, len(labels), "fewer than two clusters")
    if np.linalg.matrix_rank(xm) < k:
        return _undefined(estimate, len(labels), "the design matrix is rank-deficient")
    bread: F64 = np.linalg.inv(xm.T @ xm).astype(np.float64)
    resid = yv - xm @ estimate
    if np.linalg.norm(resid) <= EXACT_FIT * np.linalg.norm(yv):
        return _undefined(estimate, len(labels), "residuals all zero (an exact fit)")
    scores, rows, fits, bias = [], [], [], []
    for g in range(len(labels)):
        xg = xm[codes == g]
        values, vectors = np.linalg.eigh(np.eye(len(xg)) - xg @ bread @ xg.T)
        kept = values > EIGEN_TOLERANCE  # clubSandwich's pseudo-inverse root
        adjust = (vectors[:, kept] / np.sqrt(values[kept])) @ vectors[:, kept].T
        weights = bread @ xg.T @ adjust  # k × n_g: row i is p_g of coefficient i
        scores.append(weights @ resid[codes == g])
        rows.append((weights**2).sum(axis=1))
        fits.append(weights @ xg)  # k × k: row i is u_g of coefficient i
        bias.append(((vectors[:, ~kept].T @ xg @ bread) ** 2).sum(axis=0))
    vcov = np.sum([np.outer(s, s) for s in scores], axis=0)
    own, cross = np.array(rows).T, np.stack(fits, axis=2)  # k × J; k × k × J
    df = np.array([_satterthwaite(own[i], cross[i], bread) for i in range(k)])
    se = np.sqrt(np.maximum(np.diag(vcov), 0.0))
    biased = np.array(bias) > BIAS_TOLERANCE * np.diag(bread)  # J × k
    singular = [[str(c) for c in labels[biased[:, i]]] for i in range(k)]
    return _tested(estimate, se, df, len(labels), singular)


def _satterthwaite(own: F64, u: F64, bread: F64) -> float:
    """:math:`(\\operatorname{tr} P)^2 / \\operatorname{tr}(P^2)`, ``u`` of shape k × J."""
    p = np.diag(own) - u.T @ bread @ u
    denominator = float((p**2).sum())
    return float(np.trace(p)) ** 2 / denominator if denominator > 0 else float("nan")


def _tested(estimate: F64, se: F64, df: F64, n_clusters: int, singular: list[list[str]]) -> CR2Inference:
    """t and p where the term's CR2 is unbiased and its se and df positive and finite; NaN and a
    reason elsewhere."""
    reason = [_singular_reason(names) if names else None for names in singular]
    degenerate = ~(np.isfinite(se) & (se > 0) & np.isfinite(df) & (df > 0))
    reason = [
        r or ("CR2 variance or Satterthwaite df zero or not finite" if d else None)
        for r, d in zip(reason, degenerate, strict=True)
    ]
    ok = np.array([r is None for r in reason])
    se, df = np.where(ok, se, np.nan), np.where(ok, df, np.nan)
    statistic = estimate / se
    p = 2.0 * sps.t.sf(np.abs(statistic), df)
    return CR2Inference(estimate, se, df, statistic, p, n_clusters, tuple(reason))


def _singular_reason(names: list[str]) -> str:
    where = f"cluster {names[0]}" if len(names) == 1 else f"clusters {', '.join(names)}"
    return f"CR2 undefined: I − H_gg singular for {where}, on which the term's estimate rests"


def _undefined(estimate: F64, n_clusters: int, reason: str) -> CR2Inference:
    nan = np.full(estimate.shape, np.nan)
    return CR2Inference(estimate, nan, nan, nan, nan, n_clusters, (reason,) * estimate.size)
