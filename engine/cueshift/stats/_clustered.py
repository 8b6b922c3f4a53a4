"""Standard errors of a mean over clustered rows (Miller 2024, "Adding Error Bars to Evals"):
the cluster-robust (CRVE) standard error from per-face sums, the naive one that treats every row
as independent, and the design effect that compares them.

The rows are Δ rows (or paired differences of two models' Δ), the clusters are faces: every
variation and scenario of a face share its identity, so rows of a face are correlated and the
naive standard error is too small by the square root of the design effect.
"""

from __future__ import annotations

import numpy as np

from cueshift._types import F64


def clustered_standard_error(face_means: F64) -> F64:
    r"""Cluster-robust standard error of the face-weighted mean, per column.

    The estimate is the mean of the per-face means, :math:`\hat\theta = G^{-1}\sum_f \bar d_f`
    (every face weighs the same, as SBS), i.e. the weighted row mean with weights
    :math:`w_r = 1/N_f`. Its cluster-robust (sandwich, CR1) variance, clusters = faces, is

    .. math::

        \widehat{\operatorname{Var}}_C(\hat\theta)
          = \frac{G}{G-1}\,\frac{\sum_f \big(\sum_{r \in f} w_r (d_r - \hat\theta)\big)^2}
                                 {\big(\sum_r w_r\big)^2}
          = \frac{G}{G-1}\,\frac{\sum_f (\bar d_f - \hat\theta)^2}{G^2}
          = \frac{s^2_{\bar d}}{G},

    :math:`s^2_{\bar d}` the sample variance (ddof 1) of the :math:`G` face means. With the same
    number of rows per face this is Miller's clustered standard error of the row mean
    (the per-cluster sums of residuals, his §2.3) times the usual :math:`G/(G-1)` correction,
    which is what statsmodels' ``OLS(...).fit(cov_type='cluster')`` of an intercept-only model
    returns (``WLS`` with weights :math:`1/N_f` in general).

    Parameters
    ----------
    face_means : ndarray, shape (n_faces, n_cells)
        Per-face means :math:`\bar d_f` (NaN: the face has no row in the cell).

    Returns
    -------
    ndarray, shape (n_cells,)
        The standard error; NaN with fewer than two faces.

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals: a statistical approach to language
       model evaluations. arXiv:2411.00640, §2.3.
    .. [2] Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust
       inference. *J. Human Resources* 50, 317-372, §II.
    """
    x = np.asarray(face_means, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    n_faces = (~np.isnan(x)).sum(axis=0).astype(np.float64)
    observed = np.where(np.isnan(x), 0.0, x)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = observed.sum(axis=0) / n_faces
        squares = np.where(np.isnan(x), 0.0, (x - mean) ** 2).sum(axis=0)
        se = np.sqrt(squares / (n_faces - 1.0) / n_faces)
    return np.where(n_faces >= 2, se, np.nan)


def naive_standard_error(n_rows: F64, row_mean: F64, row_mean_square: F64) -> F64:
    r"""Standard error of a mean of :math:`N` rows taken as independent, per cell.

    .. math::

        \widehat{\operatorname{SE}}_{\text{naive}} = \sqrt{\frac{s^2}{N}}, \qquad
        s^2 = \frac{N}{N-1}\big(\overline{d^2} - \bar d^{\,2}\big),

    from the row mean :math:`\bar d` and the mean square :math:`\overline{d^2}` (what
    ``OLS(d, 1).fit().bse`` returns). Miller's :math:`\mathrm{SE}_{\mathrm{CLT}}` uses
    :math:`N` instead of :math:`N-1`; the difference is negligible at these sizes.

    Returns
    -------
    ndarray
        The standard error; NaN with fewer than two rows.

    References
    ----------
    .. [1] Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640, §2.1.
    """
    n = np.asarray(n_rows, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.maximum(np.asarray(row_mean_square) - np.asarray(row_mean) ** 2, 0.0) * n / (n - 1.0)
        se = np.sqrt(variance / n)
    return np.where(n >= 2, se, np.nan)


def design_effect(clustered_se: F64, naive_se: F64) -> F64:
    r"""Kish's design effect of the clustering: the variance ratio
    :math:`\mathrm{deff} = (\mathrm{SE}_C / \mathrm{SE}_{\text{naive}})^2`.

    For :math:`m` rows per face and intra-face correlation :math:`\rho`,
    :math:`\mathrm{deff} \approx 1 + (m-1)\rho`: the naive standard error is
    :math:`\sqrt{\mathrm{deff}}` times too small, and the study holds :math:`N/\mathrm{deff}`
    effectively independent rows. NaN where the naive SE is 0 or missing.

    References
    ----------
    .. [1] Kish, L. (1965). *Survey Sampling*, §8.2. Wiley.
    .. [2] Miller, E. (2024). Adding error bars to evals. arXiv:2411.00640, §2.3.
    """
    clustered, naive = np.asarray(clustered_se, dtype=np.float64), np.asarray(naive_se, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(naive > 0, (clustered / naive) ** 2, np.nan)
