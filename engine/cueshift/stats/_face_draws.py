"""The face draws of the face-level bootstrap: face multiplicities per replicate (a numba count of
faces drawn with replacement, shared read-only between calls with the same integer seed), their
transpose, and the replicate divisors of cells that not every face has (:class:`_Divisors`);
:data:`CHUNK_BYTES` is the memory budget of one block of resampled statistics."""

from __future__ import annotations

from collections import OrderedDict

import numba
import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64

#: Memory budget of one block of resampled statistics (bytes); larger jobs run in chunks.
CHUNK_BYTES = 64 * 2**20


@numba.njit(parallel=True, cache=True)
def _face_counts(draws: NDArray[np.int32], n_faces: int) -> F64:  # pragma: no cover - numba
    """Multiplicity of each face in each replicate, from the drawn face indices."""
    n_rep = draws.shape[0]
    counts = np.zeros((n_rep, n_faces))
    for b in numba.prange(n_rep):
        for i in range(draws.shape[1]):
            counts[b, draws[b, i]] += 1.0
    return counts


def face_multiplicities(n_faces: int, n_resamples: int, seed: int | np.random.Generator) -> F64:
    """``(n_resamples, n_faces)`` counts of faces drawn with replacement (one row per replicate).

    An integer ``seed`` always gives the same draws, so those are drawn once and shared, read-only,
    by every later call with the same arguments (the analyses of a run share one seed).
    """
    if not isinstance(seed, (int, np.integer)) or n_resamples * n_faces * 8 > CHUNK_BYTES:
        return _draw_multiplicities(n_faces, n_resamples, seed)
    key = (n_faces, n_resamples, int(seed))
    if key not in _SHARED:
        counts = _draw_multiplicities(n_faces, n_resamples, int(seed))
        counts.flags.writeable = False
        _SHARED[key] = (counts, None)
        while len(_SHARED) > 2:
            _SHARED.popitem(last=False)
    _SHARED.move_to_end(key)
    return _SHARED[key][0]


#: The shared face draws (at most two settings), each with its transpose once one was asked for.
_SHARED: OrderedDict[tuple[int, int, int], tuple[F64, F64 | None]] = OrderedDict()


def _draw_multiplicities(n_faces: int, n_resamples: int, seed: int | np.random.Generator) -> F64:
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_faces, size=(n_resamples, n_faces), dtype=np.int32)
    return _face_counts(draws, n_faces)


def _transposed(w: F64) -> F64:
    """``w.T`` in C order; made once for shared draws (:func:`face_multiplicities`)."""
    for key, (counts, transposed) in _SHARED.items():
        if counts is w:
            if transposed is None:
                transposed = np.ascontiguousarray(w.T)
                transposed.flags.writeable = False
                _SHARED[key] = (counts, transposed)
            return transposed
    return np.ascontiguousarray(w.T)


class _Divisors:
    r"""Replicate divisors of the cells: :math:`n_{\text{faces}}` for a cell every face has; for the
    others :math:`\sum_{f \in F_c} w_{bf}`, one row per distinct pattern :math:`F_c` of faces with
    data (cells of one demographic group, or one gender's values, share it). The divisors are
    integer sums, so exact however they are grouped."""

    def __init__(self, observed: NDArray[np.bool_], complete: NDArray[np.bool_], wt: F64) -> None:
        self.wt = wt
        self.pattern_of = np.full(observed.shape[1], -1, dtype=np.int64)
        partial = np.flatnonzero(~complete)
        self.patterns = np.zeros((0, observed.shape[0]))
        if partial.size:
            packed = np.ascontiguousarray(np.packbits(observed[:, partial], axis=0).T)
            keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
            _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            self.patterns = observed[:, partial[first]].T.astype(np.float64)
            self.pattern_of[partial] = inverse.ravel()
        fits = self.patterns.shape[0] * wt.shape[1] * 8 <= CHUNK_BYTES
        self.every = self.patterns @ wt if fits else None  # (patterns, replicates)

    def of(self, cols: NDArray[np.int64]) -> tuple[F64, NDArray[np.int64]]:
        """The divisor rows the cells ``cols`` need and each cell's row among them (−1: all faces)."""
        pattern_of = self.pattern_of[cols]
        if self.every is not None:
            return self.every, pattern_of
        used, local = np.unique(pattern_of[pattern_of >= 0], return_inverse=True)
        pattern_of[pattern_of >= 0] = local.ravel()
        return self.patterns[used] @ self.wt, pattern_of
