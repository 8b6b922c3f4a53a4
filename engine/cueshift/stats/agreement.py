r"""Agreement of two answers to the same units: Cohen's κ and a face-clustered paired difference.

:func:`cohens_kappa` is the unweighted κ of two raters over nominal labels,

.. math::

    \kappa = \frac{p_o - p_e}{1 - p_e}, \qquad p_e = \sum_c p_{1c}\, p_{2c},

with :math:`p_o` the observed share of agreement and :math:`p_{rc}` rater :math:`r`'s share of
label :math:`c` (undefined, None, when :math:`p_e = 1`: both raters give one and the same label).

:func:`paired_difference` is the mean of :math:`d_i = y_i - x_i` with a cluster-robust standard
error over ``clusters`` (faces), :math:`\widehat{\mathrm{se}}^2 = \frac{G}{G-1}\,\frac{1}{n^2}\sum_g
\big(\sum_{i \in g} (d_i - \bar d)\big)^2`, and a t interval on :math:`G - 1` degrees of freedom
(what a regression of :math:`d` on a constant with clustered errors gives).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps


def cohens_kappa(first: Sequence[str], second: Sequence[str]) -> float | None:
    """Cohen's κ of two label sequences (row for row); None when chance agreement is 1.

    Examples
    --------
    >>> cohens_kappa(["a", "b", "a", "b"], ["a", "b", "b", "b"])
    0.5
    >>> cohens_kappa(["a", "a"], ["a", "a"]) is None
    True
    """
    if len(first) != len(second) or not first:
        sizes = f"({len(first)}, {len(second)})"
        raise ValueError(f"cohens_kappa needs two equally long, non-empty sequences {sizes}")
    labels = sorted(set(first) | set(second))
    index = {label: i for i, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)))
    for a, b in zip(first, second, strict=True):
        table[index[a], index[b]] += 1
    table /= table.sum()
    observed = float(np.trace(table))
    chance = float(table.sum(axis=1) @ table.sum(axis=0))
    if chance >= 1.0 - 1e-12:
        return None
    return (observed - chance) / (1.0 - chance)


@dataclass(frozen=True)
class PairedDifference:
    """Mean of ``y - x`` with its cluster-robust interval (see the module docstring)."""

    estimate: float
    se: float
    ci_low: float
    ci_high: float
    n: int
    n_clusters: int


def paired_difference(
    x: Sequence[float], y: Sequence[float], clusters: Sequence[str], *, level: float = 0.95
) -> PairedDifference:
    """The mean paired difference ``y - x`` and its ``level`` interval, clustered by ``clusters``.

    With one cluster the interval is not defined (NaN bounds), unless every difference is 0.

    Examples
    --------
    >>> d = paired_difference([0, 1, 1, 0], [1, 1, 1, 0], ["f1", "f1", "f2", "f2"])
    >>> d.estimate, d.n_clusters
    (0.25, 2)
    """
    d = np.asarray(y, dtype=float) - np.asarray(x, dtype=float)
    n = d.size
    if n == 0 or len(clusters) != n:
        raise ValueError("paired_difference needs equally long, non-empty x, y and clusters")
    names, group = np.unique(np.asarray(clusters), return_inverse=True)
    n_clusters = names.size
    mean = float(d.mean())
    sums = np.bincount(group, weights=d - mean, minlength=n_clusters)
    if not np.any(d - mean):
        return PairedDifference(mean, 0.0, mean, mean, n, n_clusters)
    if n_clusters < 2:
        return PairedDifference(mean, float("nan"), float("nan"), float("nan"), n, n_clusters)
    se = float(np.sqrt(n_clusters / (n_clusters - 1) * float(sums @ sums)) / n)
    half = float(sps.t.ppf(0.5 + level / 2.0, n_clusters - 1)) * se
    return PairedDifference(mean, se, mean - half, mean + half, n, n_clusters)


__all__ = ["PairedDifference", "cohens_kappa", "paired_difference"]
