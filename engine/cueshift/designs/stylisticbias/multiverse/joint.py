r"""The joint test of the specification curve (Simonsohn, Simmons & Nelson 2020): is a model's SBS
claim, taken over every cueshift specification at once, more than the null would give?

Per model (and pooled), over the :math:`K` cueshift specifications (the release path left out),
each with its per-face mean Δ :math:`x_{fk}`, its SBS :math:`\hat\theta_k = \operatorname{mean}_f
x_{fk}` and its two-sided WSRT p-value :math:`p_k`, three statistics:

- the median estimate :math:`\tilde\theta = \operatorname{median}_k \hat\theta_k`, whose sign
  :math:`s` is the dominant sign (``+`` when the median is 0);
- the number of specifications significant in the dominant sign,
  :math:`N = \#\{k: p_k < \alpha,\ \operatorname{sign}\hat\theta_k = s\}` (a model's SBS is the
  only row of its BH family, so :math:`p_{\mathrm{adj}} = p`);
- Stouffer's :math:`Z = \sum_k \Phi^{-1}(1 - p^{(1)}_k)/\sqrt K` of the one-sided p-values
  towards :math:`s`, :math:`p^{(1)}_k = p_k/2` when :math:`\hat\theta_k` has sign :math:`s`, else
  :math:`1 - p_k/2` (an untestable specification counts as :math:`p_k = 1`).

The null is forced in every specification by shifting its face values by its own estimate,
:math:`x^0_{fk} = x_{fk} - \hat\theta_k`; each of :math:`B` draws resamples the faces once for all
specifications (the face multiplicities of :func:`~cueshift.stats.face_multiplicities`, the
bootstrap of every other multiverse table), and the three statistics are recomputed on the draw
(each with its own dominant sign). The p-value is the share of draws at least as extreme,
:math:`(1 + \#\{b: T_b \ge T\})/(1 + B)` with :math:`T = |\tilde\theta|`, :math:`N` or :math:`Z`.

Specifications whose rows coincide (they differ in ``generalise`` only, or in choices a φ from
scores ignores) have the same face values and count with their multiplicity.

References
----------
Simonsohn, U., Simmons, J. P. & Nelson, L. D. (2020). Specification curve analysis. *Nature Human
Behaviour* 4, 1208-1214.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.stats import norm

from cueshift._types import F64
from cueshift.stats import signed_rank_columns

#: The statistics of the joint test, in row order.
JOINT_STATISTICS = ("median", "n_significant", "stouffer")


@dataclass(frozen=True)
class JointTest:
    """``observed[i]`` and ``null[:, i]`` (one row per draw) of :data:`JOINT_STATISTICS` ``[i]``
    (the median as :math:`|\\tilde\\theta|` in ``null``), ``p`` each, the observed ``dominant_sign``."""

    observed: F64
    null: F64
    p: F64
    dominant_sign: str


def curve_statistics(values: F64, weights: NDArray[np.int64], alpha: float) -> tuple[float, float, float]:
    """(median estimate, number significant in the dominant sign, Stouffer's Z) of the columns of
    ``values`` (faces × specifications; NaN: a face without rows), each counted ``weights`` times."""
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # a specification without faces in a draw
        estimates = np.nanmean(values, axis=0) if values.shape[0] else np.full(values.shape[1], np.nan)
        median = float(np.nanmedian(np.repeat(estimates, weights)))
    p = np.nan_to_num(signed_rank_columns(values).p_value, nan=1.0)
    sign = -1.0 if median < 0 else 1.0
    agrees = np.sign(estimates) == sign
    n_significant = float(np.sum(weights * ((p < alpha) & agrees)))
    one_sided = np.clip(np.where(agrees, p / 2, 1 - p / 2), 1e-300, 1.0)
    stouffer = float(np.sum(weights * norm.isf(one_sided)) / np.sqrt(weights.sum()))
    return median, n_significant, stouffer


def joint_test(values: F64, weights: NDArray[np.int64], multiplicities: F64, alpha: float) -> JointTest:
    """The joint test of the specifications in the columns of ``values`` (module docstring).

    Parameters
    ----------
    values
        Per-face mean Δ, faces × specifications (NaN: no rows of the face there).
    weights
        How many specifications each column stands for.
    multiplicities
        Draws × faces: how often each face is drawn (one row per null draw, shared by all columns).
    alpha
        Level of a specification's test.
    """
    observed = np.array(curve_statistics(values, weights, alpha))
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        shifted = values - np.nanmean(values, axis=0)
    faces = np.arange(values.shape[0])
    null = np.empty((multiplicities.shape[0], len(JOINT_STATISTICS)))
    for b, counts in enumerate(multiplicities):
        null[b] = curve_statistics(shifted[np.repeat(faces, counts.astype(np.int64))], weights, alpha)
    null[:, 0] = np.abs(null[:, 0])
    extreme = np.array([abs(observed[0]), observed[1], observed[2]])
    p = (1.0 + np.sum(null >= extreme - 1e-12 * np.maximum(1.0, np.abs(extreme)), axis=0)) / (1.0 + len(null))
    return JointTest(observed, null, p, "-" if observed[0] < 0 else "+")


__all__ = ["JOINT_STATISTICS", "JointTest", "curve_statistics", "joint_test"]
