"""The scenario side of the crossed bootstrap (:func:`~cueshift.stats.crossed_bootstrap`): the
``--generalise`` questions, scenarios drawn with replacement (within strata on request), and the
per face × row × scenario sums and counts the product bootstrap recombines."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from cueshift._types import F64
from cueshift.stats._cell_codes import cell_codes, encode_categories
from cueshift.stats._face_sums import FaceSums

#: The ``--generalise`` questions: over faces (scenarios fixed), or over faces and scenarios.
GENERALISE = ("faces", "faces+scenarios")


def scenario_multiplicities(
    n_scenarios: int, n_resamples: int, seed: int, *, strata: NDArray[np.int64] | None = None
) -> F64:
    """``(n_resamples, n_scenarios)`` counts of scenarios drawn with replacement; with ``strata``
    (a stratum code per scenario) each stratum's scenarios are drawn from that stratum only, so
    every replicate keeps each stratum's number of scenarios."""
    rng = np.random.default_rng([seed, 0x5CE])  # independent of the face draws of the same seed
    groups = np.zeros(n_scenarios, dtype=np.int64) if strata is None else np.asarray(strata)
    counts = np.zeros((n_resamples, n_scenarios))
    rows = np.arange(n_resamples)[:, None]
    for stratum in np.unique(groups):
        members = np.flatnonzero(groups == stratum)
        draws = members[rng.integers(0, members.size, size=(n_resamples, members.size))]
        np.add.at(counts, (np.broadcast_to(rows, draws.shape), draws), 1.0)
    return counts


def scenario_sums(
    fs: FaceSums, keys: Sequence[str], scenarios: Sequence[str], *, face_mask: NDArray[np.bool_] | None = None
) -> tuple[F64, F64]:
    """Per face × row of ``keys`` × scenario: the exact sums and row counts of the fine cells
    (rows in the order of :func:`~cueshift.stats._face_sums.coarsen` on the same ``keys``).

    Returns ``(sums, counts)``, each ``(n_faces, n_rows, n_scenarios)``; faces outside
    ``face_mask`` have zero counts."""
    row, groups = cell_codes(fs.cells, list(keys))
    scenario = encode_categories(fs.cells["scenario_id"], list(scenarios))
    n_rows, n_scen = groups.height, len(scenarios)
    target = row * n_scen + scenario
    member = sparse.csr_matrix(
        (np.ones(target.size), (np.arange(target.size), target)), shape=(target.size, n_rows * n_scen)
    )
    keep = np.ones(len(fs.faces), dtype=bool) if face_mask is None else face_mask

    def grouped(per_face_cell: F64) -> F64:
        out = np.asarray((member.T @ per_face_cell.T).T)
        out[~keep] = 0.0
        return out.reshape(len(fs.faces), n_rows, n_scen)

    return grouped(fs.sums), grouped(fs.counts)
