"""Paired model differences with intervals that generalise over faces *and* scenarios
(``cueshift analyze --generalise faces+scenarios``): the crossed bootstrap of
:func:`~cueshift.stats.crossed_bootstrap` on the per-face paired differences, for the
rows that average over scenarios (the whole model, each variation value); a scenario's row keeps
its face-level interval."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np

from cueshift._types import F64
from cueshift.designs.stylisticbias.constants import DELTA_DIFFERENCE_RANGE
from cueshift.designs.stylisticbias.stats._model_cells import ModelCells
from cueshift.stats import (
    BootstrapResult,
    FaceSums,
    Resampling,
    crossed_bootstrap,
    scenario_multiplicities,
    scenario_sums,
)


def crossed_difference_intervals(
    cells: ModelCells,
    levels: Sequence[str],
    level_keys: Mapping[str, tuple[str, ...]],
    faces_only: BootstrapResult,
    face_weights: F64,
    resampling: Resampling,
) -> tuple[F64, F64]:
    """The intervals of every pair × level × cell row of
    :func:`~cueshift.designs.stylisticbias.stats._comparison.paired_cells` (same order).

    Per pair, the slots (face × variation × scenario) both models have carry the difference
    :math:`\\Delta^a - \\Delta^b` (as :meth:`ModelCells.paired`); faces are drawn with
    ``face_weights`` (those of the face-level bootstrap), scenarios independently from all of
    the study's scenarios. Rows of the ``scenario`` level keep ``faces_only``'s interval.
    ``resampling``: the seed of the scenario draws and the interval's level and kind.

    Returns
    -------
    (ci_low, ci_high)
    """
    scenarios = sorted(cells.cells["scenario_id"].unique().to_list())
    v = scenario_multiplicities(len(scenarios), face_weights.shape[0], resampling.seed)
    low, high = faces_only.ci_low.copy(), faces_only.ci_high.copy()
    start = 0
    for a, b in combinations(range(len(cells.models)), 2):
        both = (cells.counts[a] > 0) & (cells.counts[b] > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            slot_a = np.where(both, cells.sums[a] / np.where(both, cells.counts[a], 1.0), 0.0)
            slot_b = np.where(both, cells.sums[b] / np.where(both, cells.counts[b], 1.0), 0.0)
        fine = FaceSums(cells.faces, cells.cells, slot_a - slot_b, both.astype(np.float64), cells.scale, {})
        for level in levels:
            sums, counts = scenario_sums(fine, level_keys[level], scenarios)
            stop = start + sums.shape[1]
            if "scenario_id" not in level_keys[level]:
                boot = crossed_bootstrap(
                    sums,
                    counts,
                    cells.scale,
                    face_weights,
                    v,
                    confidence_level=resampling.confidence_level,
                    method=resampling.ci_method,
                    bounds=DELTA_DIFFERENCE_RANGE,
                )
                low[start:stop], high[start:stop] = boot.ci_low, boot.ci_high
            start = stop
    return low, high
