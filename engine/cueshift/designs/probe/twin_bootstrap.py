r"""Face-level paired bootstrap of a model's and its random twin's similarity, in numba.

Both correlations are computed on the same faces and share the human means, so they are
dependent: their difference is resampled jointly. A replicate is a vector of face
multiplicities :math:`w` (:func:`cueshift.stats.face_multiplicities`: faces drawn with
replacement, the face the unit); in it, every variable is ranked as the resample would rank it
(a face drawn :math:`w_i` times takes the mid-rank of its copies,
:math:`\sum_{j: v_j < v_i} w_j + (\sum_{j: v_j = v_i} w_j + 1)/2`) and every correlation is the
:math:`w`-weighted Pearson correlation of the ranks: exactly the Spearman ρ (and the partial
Spearman ρ of :func:`.baselines.partial_spearman`) of the resampled faces, without building them.

:func:`replicate_similarities` returns, per replicate and attribute, ρ(model, humans),
ρ(twin, humans) and, given image statistics :math:`Z`, both partial ρ net of :math:`[1, Z]`
(ranked in the replicate, residualised by weighted least squares through the pseudo-inverse of
:math:`D^\top W D`, so collinear statistics are handled as ``lstsq`` does). A weight vector of
ones gives the point estimates.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64


@numba.njit(cache=True)
def _ranks(values: F64, order: NDArray[np.int64], w: F64, out: F64) -> None:  # pragma: no cover
    """Mid-ranks of ``values`` in the resample of multiplicities ``w`` (``order``: argsort)."""
    n = len(order)
    below = 0.0
    i = 0
    while i < n:
        level = values[order[i]]
        j, tied = i, 0.0
        while j < n and values[order[j]] == level:
            tied += w[order[j]]
            j += 1
        for t in range(i, j):
            out[order[t]] = below + (tied + 1.0) / 2.0
        below += tied
        i = j


@numba.njit(cache=True)
def _correlation(sxy: float, sxx: float, syy: float, total: float) -> float:  # pragma: no cover
    """``sxy / sqrt(sxx syy)`` clipped to [-1, 1]; NaN when either sum of squares vanishes."""
    if sxx <= 1e-12 * total or syy <= 1e-12 * total:
        return np.nan
    return float(min(1.0, max(-1.0, sxy / np.sqrt(sxx * syy))))


@numba.njit(cache=True, fastmath=True)
def _dot(x: F64, y: F64) -> float:  # pragma: no cover - numba
    total = 0.0
    for i in range(len(x)):
        total += x[i] * y[i]
    return total


@numba.njit(cache=True)
def _centred(ranked: F64, w: F64, total: float) -> None:  # pragma: no cover - numba
    """Centre each row of ``ranked`` on its ``w``-weighted mean, in place."""
    for r in range(ranked.shape[0]):
        ranked[r] -= _dot(ranked[r], w) / total


@numba.njit(parallel=True, cache=True)
def _replicates(
    model: F64, twin: F64, human: F64, z: F64, weights: F64, orders: NDArray[np.int64]
) -> F64:  # pragma: no cover - numba
    n, n_attr = model.shape
    k = z.shape[1]
    out = np.full((weights.shape[0], n_attr, 4), np.nan)
    for b in numba.prange(weights.shape[0]):
        w = weights[b]
        total = w.sum()
        ranked = np.empty((3 * n_attr + k, n))  # model, twin, human per attribute; then Z
        for v in range(3 * n_attr + k):
            a = v % n_attr
            source = model[:, a] if v < n_attr else twin[:, a] if v < 2 * n_attr else human[:, a]
            _ranks(source if v < 3 * n_attr else z[:, v - 3 * n_attr], orders[:, v], w, ranked[v])
        _centred(ranked, w, total)
        weighted = ranked * w.reshape(1, -1)
        cross = np.zeros((3 * n_attr + k, k))  # sums of products with each statistic
        for v in range(3 * n_attr + k):
            for j in range(k):
                cross[v, j] = _dot(weighted[v], ranked[3 * n_attr + j])
        pinv = np.ascontiguousarray(np.linalg.pinv(cross[3 * n_attr :].copy())) if k else np.zeros((0, 0))
        for a in range(n_attr):
            m, t, h = a, n_attr + a, 2 * n_attr + a
            shh, smm = _dot(weighted[h], ranked[h]), _dot(weighted[m], ranked[m])
            stt = _dot(weighted[t], ranked[t])
            smh, sth = _dot(weighted[m], ranked[h]), _dot(weighted[t], ranked[h])
            out[b, a, 0] = _correlation(smh, smm, shh, total)
            out[b, a, 1] = _correlation(sth, stt, shh, total)
            if k:  # partial sums of squares and products: S_xy - S_xZ S_ZZ^+ S_Zy
                ph = pinv @ cross[h].copy()
                phh = shh - cross[h] @ ph
                pm, pt = pinv @ cross[m].copy(), pinv @ cross[t].copy()
                out[b, a, 2] = _correlation(smh - cross[m] @ ph, smm - cross[m] @ pm, phh, total)
                out[b, a, 3] = _correlation(sth - cross[t] @ ph, stt - cross[t] @ pt, phh, total)
    return out


def replicate_similarities(model: F64, twin: F64, human: F64, z: F64, weights: F64) -> F64:
    """Per replicate and attribute: ρ(model, humans), ρ(twin, humans) and, when ``z`` has
    columns, the two partial ρ net of ``z`` (else NaN).

    Parameters
    ----------
    model, twin, human : ndarray, shape (n_faces, n_attributes)
        Model scores, twin scores and human means of the same faces (no missing value).
    z : ndarray, shape (n_faces, k)
        Image statistics (varying columns; ``k`` may be 0).
    weights : ndarray, shape (n_resamples, n_faces)
        Face multiplicities of each replicate (a row of ones: the point estimates).

    Returns
    -------
    ndarray, shape (n_resamples, n_attributes, 4)
        ``[ρ model, ρ twin, partial ρ model, partial ρ twin]``.

    Examples
    --------
    >>> x = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> replicate_similarities(x, -x, x**2, np.zeros((4, 0)), np.ones((1, 4)))[0, 0, :2]
    array([ 1., -1.])
    """
    m, t, h = (np.ascontiguousarray(a, dtype=np.float64) for a in (model, twin, human))
    za = np.ascontiguousarray(np.asarray(z, dtype=np.float64).reshape(m.shape[0], -1))
    orders = np.argsort(np.column_stack([m, t, h, za]), axis=0, kind="stable").astype(np.int64)
    replicates: F64 = _replicates(
        m, t, h, za, np.ascontiguousarray(weights, dtype=np.float64), np.ascontiguousarray(orders)
    )
    return replicates
