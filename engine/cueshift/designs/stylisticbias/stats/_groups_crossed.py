"""Face-level group cells (Tables 3 and 11: attribute keys × demographic group) with intervals
that generalise over faces *and* scenarios (``cueshift analyze --generalise faces+scenarios``):
the crossed bootstrap of :func:`~cueshift.stats.crossed_bootstrap`, scenarios drawn with
replacement from all of the study's scenarios (every such cell pools all of them)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.designs.stylisticbias.constants import DELTA_RANGE
from cueshift.stats import (
    Resampling,
    crossed_bootstrap,
    face_labels,
    face_multiplicities,
    face_sums,
    scenario_multiplicities,
    scenario_sums,
)


def crossed_group_intervals(
    data: pl.DataFrame,
    keys: Sequence[str],
    dimensions: Sequence[str],
    faces: list[str],
    resampling: Resampling,
) -> tuple[F64, F64]:
    """Crossed-bootstrap intervals of the cells of
    :func:`~cueshift.designs.stylisticbias.stats._group_cells.group_cells` (same order: dimension,
    group, then the cells of ``keys`` that the group has).

    The faces are drawn as the face-level bootstrap of the same ``resampling`` (resamples, seed)
    draws them, the scenarios independently (:func:`~cueshift.stats.scenario_multiplicities`); the
    interval's level and kind are ``resampling``'s.

    Returns
    -------
    (ci_low, ci_high)
    """
    fine = face_sums(data, [*keys, "scenario_id"], faces=faces)
    scenarios = sorted(fine.cells["scenario_id"].unique().to_list())
    w = face_multiplicities(len(faces), resampling.resamples, resampling.seed)
    v = scenario_multiplicities(len(scenarios), resampling.resamples, resampling.seed)
    low: list[F64] = []
    high: list[F64] = []
    for labels in face_labels(data, faces, dimensions).values():
        for group in sorted({g for g in labels if g is not None}):
            sums, counts = scenario_sums(fine, keys, scenarios, face_mask=labels == group)
            keep = counts.sum(axis=(0, 2)) > 0  # the cells group_cells keeps
            boot = crossed_bootstrap(
                np.ascontiguousarray(sums[:, keep]),
                np.ascontiguousarray(counts[:, keep]),
                fine.scale,
                w,
                v,
                confidence_level=resampling.confidence_level,
                method=resampling.ci_method,
                bounds=DELTA_RANGE,
            )
            low.append(boot.ci_low)
            high.append(boot.ci_high)
    return np.concatenate(low), np.concatenate(high)
