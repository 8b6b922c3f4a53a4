"""A simulated study as rows of the ``delta`` and ``base_phi`` views.

What a pilot would store, drawn from a :class:`~cueshift.power.model.StudyModel`: the frames the
analyses read (``cueshift.stats.sbs_levels``, ``demographic_tests``, ...) and the component
estimators read (:mod:`cueshift.power.pilot_inputs`). The tests use them to check that the
estimators recover planted components and that the simulation runs the analyses' own tests.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.power.model import StudyModel
from cueshift.power.protocol import DIMENSIONS
from cueshift.power.study_draws import Cells, draw_cells

SCENARIO_CATEGORY = "simulated"


def simulated_frames(sm: StudyModel, rng: np.random.Generator) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One simulated study's ``delta`` rows (with the valid-answer counts) and ``base_phi`` rows."""
    return cells_frames(sm, list(draw_cells(sm, rng, counts=True)))


def cells_frames(sm: StudyModel, drawn: list[Cells]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The ``delta`` and ``base_phi`` rows of drawn cells (one :class:`Cells` per model).

    Scenarios are named ``s00``, ``s01``, ...; a value's category is ``protocol.values``'s. Rows
    whose φ has no valid answer are left out (the views keep them with a NULL Δ; the analyses drop
    them).
    """
    protocol = sm.protocol
    faces = protocol.faces
    face_ids = np.asarray(faces["face_id"].to_list(), dtype=object)
    scen = np.asarray([f"s{k:02d}" for k in range(sm.scenarios)], dtype=object)
    categories = dict(protocol.values.select("variation_value", "variation_category").iter_rows())
    demo = {d: np.asarray(faces[d].to_list(), dtype=object) for d in DIMENSIONS}
    n_f, n_s = sm.n_faces, sm.scenarios
    deltas, bases = [], []
    for model_id, cells in zip(sm.models, drawn, strict=True):
        f_idx, s_idx = np.indices((n_f, n_s)).reshape(2, -1)
        n_base = cells.n_base if cells.n_base is not None else np.zeros((n_f, n_s), dtype=np.int64)
        base = pl.DataFrame(
            {
                "model_id": model_id,
                "face_id": face_ids[f_idx],
                "scenario_id": scen[s_idx],
                "scenario_category": SCENARIO_CATEGORY,
                **{d: demo[d][f_idx] for d in DIMENSIONS},
                "phi": cells.phi_base.ravel(),
                "n_valid": n_base.ravel(),
            }
        )
        v_idx, f3, s3 = np.indices(cells.phi_var.shape).reshape(3, -1)
        n_var = cells.n_var if cells.n_var is not None else np.zeros(cells.phi_var.shape, dtype=np.int64)
        values = np.asarray(sm.values, dtype=object)[v_idx]
        delta = pl.DataFrame(
            {
                "model_id": model_id,
                "face_id": face_ids[f3],
                "scenario_id": scen[s3],
                "scenario_category": SCENARIO_CATEGORY,
                "variation_category": [categories.get(v, "simulated") for v in values],
                "feature_key": "simulated",
                "variation_value": values,
                **{d: demo[d][f3] for d in DIMENSIONS},
                "phi_variation": cells.phi_var.ravel(),
                "phi_base": cells.phi_base[f3, s3],
                "n_valid_variation": n_var.ravel(),
                "n_valid_base": n_base[f3, s3],
            }
        ).with_columns((pl.col("phi_variation") - pl.col("phi_base")).alias("delta"))
        deltas.append(delta.filter(pl.col("delta").is_not_nan()))
        bases.append(base.filter(pl.col("phi").is_not_nan()))
    return pl.concat(deltas), pl.concat(bases)


__all__ = ["SCENARIO_CATEGORY", "cells_frames", "simulated_frames"]
