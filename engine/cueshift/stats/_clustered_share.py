r"""A share estimated from clustered binary answers: the face-level mean with a Wilson interval at
the effective sample size (the answers of one face are not independent)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import stats as sps

from cueshift._types import F64


def clustered_wilson(
    shares: F64, n_answers: F64, confidence_level: float = 0.95
) -> tuple[F64, F64, F64, F64]:
    r"""Per column of per-face shares: the face-level mean and its Wilson interval at the effective
    sample size.

    With :math:`n_F` faces with data, per-face shares :math:`r_f` and :math:`N` answers in all,

    .. math::

        \hat p = \frac{1}{n_F}\sum_f r_f, \qquad
        \widehat{\mathrm{SE}}^2 = \frac{s_r^2}{n_F}, \qquad
        n_{\text{eff}} = \min\!\Big(N,\ \frac{\hat p (1-\hat p)}{\widehat{\mathrm{SE}}^2}\Big),

    and the Wilson score interval of :math:`\hat p` with :math:`n_{\text{eff}}` in place of
    :math:`n` (:func:`~cueshift.stats.wilson_interval`). :math:`N / n_{\text{eff}}` is Kish's
    design effect of the face clusters, truncated at 1 as Korn & Graubard recommend (a clustered
    share is never treated as more precise than independent answers); :math:`n_{\text{eff}} = N`
    when :math:`\hat p \in \{0, 1\}` or every face has the same share. Unlike a bootstrap of a
    rare event, the interval is never :math:`[0, 0]` for a share observed as 0, and it always
    contains :math:`\hat p` and lies in :math:`[0, 1]`; it costs no resampling (thousands of
    model × group × variation cells at once).

    Parameters
    ----------
    shares : numpy.ndarray
        ``(n_faces, n_cells)`` per-face shares (NaN: the face has no answer in the cell).
    n_answers : numpy.ndarray
        ``(n_cells,)`` answers per cell, :math:`N`.
    confidence_level : float
        Coverage of the interval.

    Returns
    -------
    estimate, ci_low, ci_high, n_faces
        Per cell; NaN where a cell has no face.

    References
    ----------
    .. [1] Korn, E. L. & Graubard, B. I. (1998). Confidence intervals for proportions with small
       expected number of positive counts estimated from survey data. *Survey Methodology* 24,
       193–201.
    .. [2] Kish, L. (1965). *Survey Sampling*, §8.2 (design effect).
    .. [3] Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
       inference. *JASA* 22, 209–212.
    """
    values = np.asarray(shares, dtype=np.float64)
    n_faces = np.sum(~np.isnan(values), axis=0).astype(np.float64)
    total = np.asarray(n_answers, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a cell of one face has no variance
        p = np.nansum(values, axis=0) / n_faces
        variance = np.nanvar(values, axis=0, ddof=1) / n_faces if values.shape[0] > 1 else np.zeros_like(p)
        bernoulli = p * (1.0 - p)
        ratio = np.where((variance > 0) & (bernoulli > 0), bernoulli / variance, total)
        n_eff = np.minimum(total, ratio)
        z = float(sps.norm.ppf(0.5 + confidence_level / 2.0))
        denominator = 1.0 + z * z / n_eff
        centre = (p + z * z / (2.0 * n_eff)) / denominator
        half = z / denominator * np.sqrt(bernoulli / n_eff + z * z / (4.0 * n_eff * n_eff))
    empty = n_faces == 0
    low = np.where(empty, np.nan, np.clip(np.minimum(centre - half, p), 0.0, 1.0))
    high = np.where(empty, np.nan, np.clip(np.maximum(centre + half, p), 0.0, 1.0))
    return np.where(empty, np.nan, p), low, high, n_faces
