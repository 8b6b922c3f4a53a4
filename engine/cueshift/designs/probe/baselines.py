r"""Baselines of model–human similarity (seed 004 Eq. 4): what image statistics alone explain.

Two statistics per model × attribute, over the stimuli the model scored and humans rated,
with the image statistics :math:`Z` (one column per measure of
:mod:`cueshift.images.pixel_stats`; constant columns dropped):

* **Image statistics alone** (:func:`cv_prediction`): the human means :math:`h` regressed on
  :math:`Z` by ridge regression, k-fold cross-validated over images; the out-of-fold
  predictions :math:`\hat h` are correlated with :math:`h` (Spearman, as Eq. 4).
* **Similarity net of the image statistics** (:func:`partial_spearman`): the partial Spearman
  correlation of model scores :math:`m` and :math:`h` given :math:`Z`: every variable ranked,
  :math:`m` and :math:`h` residualised on :math:`[1, Z]` by least squares, the residuals
  correlated (the definition behind pingouin's ``partial_corr(method="spearman")``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special
from scipy import stats as sps

from cueshift._types import F64


def varying_columns(z: ArrayLike) -> F64:
    """The columns of ``z`` that vary (a constant column carries no information and breaks scaling)."""
    matrix = np.atleast_2d(np.asarray(z, dtype=np.float64))
    if matrix.shape[0] == 0:
        return matrix[:, :0]
    kept: F64 = matrix[:, np.ptp(matrix, axis=0) > 0]
    return kept


def kfold_labels(n: int, k: int, seed: int) -> NDArray[np.int64]:
    """Fold of each of ``n`` rows: a seeded permutation dealt round-robin into ``min(k, n)`` folds."""
    labels = np.empty(n, dtype=np.int64)
    labels[np.random.default_rng(seed).permutation(n)] = np.arange(n) % max(1, min(k, n))
    return labels


def ridge_fit(x: ArrayLike, y: ArrayLike, ridge: float) -> tuple[F64, F64, F64, float]:
    r"""Ridge regression on standardised predictors with an unpenalised intercept.

    .. math:: \hat\beta = \arg\min_\beta \lVert y_c - X_s\beta\rVert^2 + \lambda\lVert\beta\rVert^2,
        \qquad \hat y = \bar y + X_s\hat\beta

    with :math:`X_s` the columns centred and scaled by their SD (ddof 0) and :math:`y_c = y -
    \bar y`; solved as least squares on :math:`[X_s; \sqrt\lambda I]` (:math:`\lambda = 0`:
    OLS, the minimum-norm solution when collinear).

    Returns
    -------
    beta, centre, scale, intercept
        Predict ``intercept + ((x - centre) / scale) @ beta``.
    """
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    centre, scale = xa.mean(axis=0), xa.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    xs = (xa - centre) / scale
    p = xs.shape[1]
    design = np.vstack([xs, math.sqrt(ridge) * np.eye(p)]) if ridge > 0 else xs
    target = np.concatenate([ya - ya.mean(), np.zeros(p)]) if ridge > 0 else ya - ya.mean()
    beta = np.linalg.lstsq(design, target, rcond=None)[0]
    return beta, centre, scale, float(ya.mean())


def cv_prediction(z: ArrayLike, y: ArrayLike, *, folds: int = 10, ridge: float = 1.0, seed: int = 0) -> F64:
    """Out-of-fold predictions of ``y`` from ``z``: each fold predicted by :func:`ridge_fit` on
    the other folds (standardisation learnt on the training folds only); folds of images from
    :func:`kfold_labels`. Fewer than two folds or no varying column: NaN."""
    za, ya = np.asarray(z, dtype=np.float64), np.asarray(y, dtype=np.float64)
    za = za.reshape(len(ya), -1)
    labels = kfold_labels(len(ya), folds, seed)
    predicted = np.full(len(ya), np.nan)
    if labels.max(initial=0) < 1 or za.shape[1] == 0:
        return predicted
    for fold in np.unique(labels):
        test = labels == fold
        beta, centre, scale, intercept = ridge_fit(za[~test], ya[~test], ridge)
        predicted[test] = intercept + ((za[test] - centre) / scale) @ beta
    return predicted


def cv_r2(y: ArrayLike, predicted: ArrayLike) -> float:
    r"""Out-of-fold :math:`R^2 = 1 - \sum(y - \hat y)^2 / \sum(y - \bar y)^2` (negative when the
    predictions do worse than the mean)."""
    ya, pa = np.asarray(y, dtype=np.float64), np.asarray(predicted, dtype=np.float64)
    total = float(((ya - ya.mean()) ** 2).sum())
    return 1.0 - float(((ya - pa) ** 2).sum()) / total if total > 0 else math.nan


def residualise(v: ArrayLike, z: ArrayLike) -> F64:
    """Residuals of ``v`` after least squares on ``[1, z]``."""
    va = np.asarray(v, dtype=np.float64)
    design = np.column_stack([np.ones(len(va)), np.asarray(z, dtype=np.float64).reshape(len(va), -1)])
    resid: F64 = va - design @ np.linalg.lstsq(design, va, rcond=None)[0]
    return resid


def partial_spearman(
    x: ArrayLike, y: ArrayLike, z: ArrayLike, confidence: float = 0.95
) -> tuple[float, float, float, float, int]:
    r"""Partial Spearman correlation of ``x`` and ``y`` given the columns of ``z``.

    Ranks of :math:`x, y` and of each column of :math:`z` (average ranks for ties); the Pearson
    correlation :math:`r` of the rank residuals of :math:`x` and :math:`y` after least squares on
    :math:`[1, Z]`. With :math:`k` covariates (the rank of :math:`Z`):

    .. math::

        t = r\sqrt{\frac{n-2-k}{1-r^2}} \sim t_{n-2-k},\qquad
        \tanh\!\left(\operatorname{artanh} r \pm z_{1-\alpha/2}\sqrt{\frac{1 + r^2/2}{n-3-k}}\right),

    the test of pingouin's ``partial_corr`` and the Fisher-z interval of
    :func:`cueshift.stats.spearman_with_ci` with :math:`k` fewer degrees of freedom.

    Returns
    -------
    tuple
        ``(estimate, ci_low, ci_high, p, n)``; NaN with fewer than :math:`k + 4` stimuli
        or a residual that does not vary.

    References
    ----------
    .. [1] Conover, W. J. (1999). *Practical Nonparametric Statistics*, 3rd ed., §5.5 (partial
       rank correlation).
    .. [2] Bonett, D. G. & Wright, T. A. (2000). *Psychometrika* 65, 23–28.
    """
    xa, ya = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    za = varying_columns(np.asarray(z, dtype=np.float64).reshape(len(xa), -1))
    n = len(xa)
    ranked = np.column_stack([sps.rankdata(col) for col in za.T]) if za.shape[1] else za
    k = int(np.linalg.matrix_rank(ranked - ranked.mean(axis=0))) if za.shape[1] else 0
    nan = math.nan
    if n < k + 4:
        return nan, nan, nan, nan, n
    rx, ry = residualise(sps.rankdata(xa), ranked), residualise(sps.rankdata(ya), ranked)
    sxx, syy = float(rx @ rx), float(ry @ ry)
    if sxx <= 1e-12 * n or syy <= 1e-12 * n:
        return nan, nan, nan, nan, n
    r = float(np.clip(rx @ ry / math.sqrt(sxx * syy), -1.0, 1.0))
    df = n - 2.0 - k
    if abs(r) >= 1:
        return r, nan, nan, 0.0, n
    t = r * math.sqrt(df / (1.0 - r * r))
    p = float(special.betainc(df / 2.0, 0.5, df / (df + t * t)))  # two-sided t_df, exactly
    half = float(sps.norm.ppf(0.5 + confidence / 2)) * math.sqrt((1 + r * r / 2) / (n - 3.0 - k))
    return r, math.tanh(math.atanh(r) - half), math.tanh(math.atanh(r) + half), p, n
