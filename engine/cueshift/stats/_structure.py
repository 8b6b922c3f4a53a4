"""Correlation structure of attributes: Spearman matrix, normalised Frobenius similarity of two
matrices, Ward clustering and the adjusted Rand index of two partitions (seed 004 Eq. 6, Fig. 5)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from numpy.typing import ArrayLike, NDArray
from scipy import stats as sps
from scipy.cluster import hierarchy
from scipy.spatial.distance import squareform

from cueshift._types import F64


def attribute_correlations(values: pl.DataFrame, value: str, attributes: Sequence[str]) -> F64:
    """Spearman correlation matrix of ``attributes`` over stimuli (complete cases) from long
    ``image_id, attribute, <value>`` rows, in the order of ``attributes`` (seed 004 Eq. 6, CAT)."""
    wide = values.pivot(on="attribute", index="image_id", values=value, aggregate_function="first")
    matrix = wide.select([a for a in attributes]).drop_nulls().to_numpy().astype(np.float64)
    return np.asarray(
        sps.spearmanr(matrix).statistic
        if len(attributes) > 2
        else np.corrcoef(sps.rankdata(matrix, axis=0), rowvar=False),
        dtype=np.float64,
    )


def frobenius_similarity(a: ArrayLike, b: ArrayLike, *, off_diagonal: bool = False) -> float:
    r"""Normalised Frobenius inner product :math:`\langle A, B\rangle_F / (\lVert A\rVert_F \lVert B\rVert_F)`
    (the cosine of the two matrices; 1 for identical structure). ``off_diagonal`` drops the
    unit diagonal of correlation matrices, which otherwise inflates the similarity.

    Examples
    --------
    >>> round(frobenius_similarity([[1.0, 0.5], [0.5, 1.0]], [[1.0, 0.0], [0.0, 1.0]]), 4)  # 2/sqrt(5)
    0.8944
    """
    x, y = np.asarray(a, dtype=np.float64).copy(), np.asarray(b, dtype=np.float64).copy()
    if off_diagonal:
        mask = ~np.eye(x.shape[0], dtype=bool)
        x, y = x[mask], y[mask]
    return float(np.sum(x * y) / (np.linalg.norm(x) * np.linalg.norm(y)))


def ward_clusters(correlation: ArrayLike, n_clusters: int) -> tuple[F64, NDArray[np.int64], list[int]]:
    r"""Ward clustering of attributes from their correlation matrix (seed 004 Fig. 5).

    Distance :math:`d_{ab} = \sqrt{2(1 - r_{ab})}`, the Euclidean distance between the
    standardised attribute vectors, as Ward's criterion requires; ``scipy.cluster.hierarchy``.
    Returns the linkage, the flat labels at ``n_clusters`` and the dendrogram leaf order.

    References
    ----------
    .. [1] Ward, J. H. (1963). Hierarchical grouping to optimize an objective function.
       *JASA* 58, 236–244.
    """
    c = np.asarray(correlation, dtype=np.float64)
    distance = np.sqrt(np.clip(2.0 * (1.0 - c), 0.0, None))
    np.fill_diagonal(distance, 0.0)
    linkage = hierarchy.linkage(squareform(distance, checks=False), method="ward")
    labels = hierarchy.fcluster(linkage, t=n_clusters, criterion="maxclust").astype(np.int64)
    return linkage, labels, hierarchy.leaves_list(linkage).tolist()


def adjusted_rand_index(a: ArrayLike, b: ArrayLike) -> float:
    r"""Hubert–Arabie adjusted Rand index of two partitions (1 identical, ~0 chance):

    .. math::

        \frac{\sum_{ij}\binom{n_{ij}}{2} - E}
             {\tfrac12[\sum_i\binom{a_i}{2} + \sum_j\binom{b_j}{2}] - E},
              \quad E = \frac{\sum_i\binom{a_i}{2}\sum_j\binom{b_j}{2}}{\binom{n}{2}},

    :math:`n_{ij}` the contingency counts and :math:`a_i`, :math:`b_j` its margins.

    References
    ----------
    .. [1] Hubert, L. & Arabie, P. (1985). Comparing partitions. *J. Classification* 2, 193–218.
    .. [2] Seed 004 Fig. 5 (clusters of the model vs the human attribute structure).

    Examples
    --------
    >>> round(adjusted_rand_index([0, 0, 1, 1], [0, 0, 1, 2]), 4)  # 4/7
    0.5714
    """
    _, ia = np.unique(np.asarray(a), return_inverse=True)
    _, ib = np.unique(np.asarray(b), return_inverse=True)
    table = np.zeros((ia.max() + 1, ib.max() + 1))
    np.add.at(table, (ia, ib), 1)

    def comb(x: F64) -> F64:
        return x * (x - 1) / 2.0

    index = comb(table).sum()
    rows, cols = comb(table.sum(axis=1)).sum(), comb(table.sum(axis=0)).sum()
    expected = rows * cols / (len(ia) * (len(ia) - 1) / 2.0)
    top = (rows + cols) / 2.0
    return float((index - expected) / (top - expected)) if top != expected else 1.0
