r"""The joint test of the specification curve (Simonsohn, Simmons & Nelson 2020): is a model's SBS
claim (or an attribute's), taken over every cueshift specification at once, more than the null
would give?

Per claim (a model's SBS, pooled too, or a model's SBS of one attribute), over the :math:`K`
cueshift specifications (the release path left out),
each with its per-face mean Δ :math:`x_{fk}`, its SBS :math:`\hat\theta_k = \operatorname{mean}_f
x_{fk}` and its two-sided WSRT p-value :math:`p_k`, three statistics:

- the median estimate :math:`\tilde\theta = \operatorname{median}_k \hat\theta_k`, whose sign
  :math:`s` is the dominant sign (``+`` when the median is 0);
- the number of specifications significant in the dominant sign,
  :math:`N = \#\{k: p_k < \alpha,\ \operatorname{sign}\hat\theta_k = s\}` (:math:`p_k` unadjusted:
  a model's SBS is the only row of its BH family; an attribute's multiplicity is adjusted once, on
  the joint p-values, :mod:`.joint_table`);
- Stouffer's :math:`Z = \sum_k \Phi^{-1}(1 - p^{(1)}_k)/\sqrt K` of the one-sided p-values
  towards :math:`s`, :math:`p^{(1)}_k = p_k/2` when :math:`\hat\theta_k` has sign :math:`s`, else
  :math:`1 - p_k/2` (an untestable specification counts as :math:`p_k = 1`).

The null is forced in every specification by shifting its face values by its own estimate,
:math:`x^0_{fk} = x_{fk} - \hat\theta_k`; each of :math:`B` draws resamples the faces once for all
specifications and all claims (the face multiplicities of :func:`~cueshift.stats.face_multiplicities`, the
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
from collections.abc import Sequence
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
    every_column = [np.arange(values.shape[1])]
    median, n_significant, stouffer = _grouped_statistics(values, every_column, weights, alpha)[0]
    return float(median), float(n_significant), float(stouffer)


def _grouped_statistics(
    values: F64, members: Sequence[NDArray[np.int64]], weights: NDArray[np.int64], alpha: float
) -> F64:
    """:func:`curve_statistics` of each claim's columns ``members[g]`` (one row per claim), every
    column's mean, WSRT and normal quantile computed at once."""
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # a specification without faces in a draw
        estimates = np.nanmean(values, axis=0) if values.shape[0] else np.full(values.shape[1], np.nan)
        p = np.nan_to_num(signed_rank_columns(values).p_value, nan=1.0)
        medians = np.array([np.nanmedian(np.repeat(estimates[c], weights[c])) for c in members])
    column = np.concatenate(members)
    claim = np.repeat(np.arange(len(members)), [len(c) for c in members])
    estimate, p_k, weight = estimates[column], p[column], weights[column]
    agrees = np.sign(estimate) == np.where(medians[claim] < 0, -1.0, 1.0)
    one_sided = np.clip(np.where(agrees, p_k / 2, 1 - p_k / 2), 1e-300, 1.0)
    n_significant = np.bincount(claim, weights=weight * ((p_k < alpha) & agrees), minlength=len(members))
    z_sums = np.bincount(claim, weights=weight * norm.isf(one_sided), minlength=len(members))
    totals = np.bincount(claim, weights=weight, minlength=len(members))
    return np.column_stack([medians, n_significant, z_sums / np.sqrt(totals)])


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
    return joint_tests(values, [np.arange(values.shape[1])], weights, multiplicities, alpha)[0]


def joint_tests(
    values: F64,
    members: Sequence[NDArray[np.int64]],
    weights: NDArray[np.int64],
    multiplicities: F64,
    alpha: float,
) -> list[JointTest]:
    """:func:`joint_test` of each claim whose specifications are the columns ``members[g]`` of
    ``values``, all claims on the same face draws (each draw's WSRT of every column in one call)."""
    observed = _grouped_statistics(values, members, weights, alpha)
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        shifted = values - np.nanmean(values, axis=0)
    faces = np.arange(values.shape[0])
    null = np.empty((multiplicities.shape[0], len(members), len(JOINT_STATISTICS)))
    for b, counts in enumerate(multiplicities):
        drawn = shifted[np.repeat(faces, counts.astype(np.int64))]
        null[b] = _grouped_statistics(drawn, members, weights, alpha)
    null[:, :, 0] = np.abs(null[:, :, 0])
    tests = []
    for g, seen in enumerate(observed):
        extreme = np.array([abs(seen[0]), seen[1], seen[2]])
        beyond = null[:, g] >= extreme - 1e-12 * np.maximum(1.0, np.abs(extreme))
        p = (1.0 + np.sum(beyond, axis=0)) / (1.0 + len(null))
        tests.append(JointTest(seen, null[:, g], p, "-" if seen[0] < 0 else "+"))
    return tests


__all__ = ["JOINT_STATISTICS", "JointTest", "curve_statistics", "joint_test", "joint_tests"]
