"""SBS intervals that generalise over faces *and* scenarios (``cueshift analyze --generalise
faces+scenarios``): the crossed bootstrap of :func:`~cueshift.stats.crossed_bootstrap`
for every SBS row that averages over scenarios.

Which rows change:

- rows pooling every scenario (model, variation category, variation value, demographic group):
  scenarios drawn with replacement from all of the study's scenarios;
- scenario-category rows: scenarios drawn within their category (a category's row is about
  scenarios of that kind; an unstratified draw would leave some replicates without one);
- scenario and model × variation × scenario cell rows: unchanged (a row about one scenario
  generalises over faces only), and so the |SBS| intervals, built from the cells', are too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.designs.stylisticbias.constants import DELTA_RANGE
from cueshift.designs.stylisticbias.stats._sbs_levels import block_specs
from cueshift.stats import (
    BootstrapResult,
    FaceSums,
    Resampling,
    crossed_bootstrap,
    encode_categories,
    scenario_multiplicities,
    scenario_sums,
)

#: Levels whose rows are about one scenario: their intervals stay face-level.
ONE_SCENARIO_LEVELS = ("scenario", "cell")


def crossed_sbs_intervals(
    fine: FaceSums,
    levels: Sequence[str],
    labels: Mapping[str, NDArray[np.object_]],
    faces_only: BootstrapResult,
    face_weights: F64,
    resampling: Resampling,
) -> tuple[F64, F64]:
    """The SBS rows' intervals over faces and scenarios, in the row order of
    :func:`~cueshift.designs.stylisticbias.stats._sbs_levels.level_blocks`.

    Parameters
    ----------
    fine
        Per-face sums of the model × variation × scenario grid.
    levels, labels
        The levels and demographic labels of the SBS rows.
    faces_only
        The face-level bootstrap of the same rows (kept for the one-scenario rows).
    face_weights
        The face multiplicities the face-level bootstrap used (shared: the same faces are drawn).
    resampling
        The run's resampling: the seed of the scenario draws, the interval's level and kind (the
        number of replicates is ``face_weights``').

    Returns
    -------
    (ci_low, ci_high)
    """
    pairs = fine.cells.select("scenario_id", "scenario_category").unique().sort("scenario_id")
    scenarios = pairs["scenario_id"].to_list()
    categories = pairs["scenario_category"].unique().sort(nulls_last=True).to_list()
    strata = encode_categories(pairs["scenario_category"], categories)
    n_rep = face_weights.shape[0]
    draws = {
        False: scenario_multiplicities(len(scenarios), n_rep, resampling.seed),
        True: scenario_multiplicities(len(scenarios), n_rep, resampling.seed, strata=strata),
    }
    low, high = faces_only.ci_low.copy(), faces_only.ci_high.copy()
    start = 0
    for spec in block_specs(levels, labels):
        sums, counts = scenario_sums(fine, spec.keys, scenarios, face_mask=spec.face_mask)
        stop = start + sums.shape[1]
        if spec.level not in ONE_SCENARIO_LEVELS:
            boot = crossed_bootstrap(
                sums,
                counts,
                fine.scale,
                face_weights,
                draws[spec.level == "scenario_category"],
                confidence_level=resampling.confidence_level,
                method=resampling.ci_method,
                bounds=DELTA_RANGE,
            )
            low[start:stop], high[start:stop] = boot.ci_low, boot.ci_high
        start = stop
    return low, high
