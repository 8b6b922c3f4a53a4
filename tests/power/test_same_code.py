"""The simulation runs the analyses' own tests: on one simulated study, the per-face values and
p-values the planner computes equal those of ``sbs_levels`` and ``demographic_variation_table``
(the seed 000 analyses) on the same study's ``delta`` rows."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from cueshift.designs.stylisticbias.stats import demographic_variation_table, sbs_levels
from cueshift.power.model import StudyModel, group_levels, study_model, table11_cells
from cueshift.power.protocol import Mode
from cueshift.power.study_draws import Cells, draw_cells, draw_face_means, face_means
from cueshift.stats import Resampling, one_sample_test
from tests.power.conftest import PLANTED, planted_inputs, planted_protocol
from tests.power.frames import cells_frames


def _study() -> tuple[StudyModel, list[Cells]]:
    effects = {f"v{k:02d}": e for k, e in enumerate([0.0, 0.01, 0.02, -0.015, 0.03])}
    sm = study_model(planted_protocol(60, 5, 6), planted_inputs(effects))
    drawn = list(draw_cells(sm, np.random.default_rng(11), counts=True))
    return sm, drawn


def test_attribute_p_values_are_those_of_sbs_levels() -> None:
    sm, drawn = _study()
    delta, _ = cells_frames(sm, drawn)
    planner = one_sample_test(face_means(drawn[0]).T)[1]
    analysis = (
        sbs_levels(delta, levels=["variation_value"], dimensions=(), resampling=Resampling(resamples=200))
        .filter((pl.col("level") == "variation_value") & (pl.col("model_id") == "m"))
        .sort("variation_value")
    )
    np.testing.assert_allclose(analysis["p"].to_numpy(), planner, rtol=1e-12)


def test_table11_p_values_are_those_of_demographic_variation_table() -> None:
    sm, drawn = _study()
    delta, _ = cells_frames(sm, drawn)
    means = face_means(drawn[0])
    cells = table11_cells(sm.protocol)
    member = np.stack(
        [
            group_levels(sm.protocol, d)[1] == g
            for d, g in zip(cells["dimension"], cells["group_index"], strict=True)
        ]
    )
    planner = one_sample_test(np.where(member, means[cells["value_index"].to_numpy()], np.nan).T)[1]
    keyed = cells.with_columns(pl.Series("planner", planner))
    analysis = demographic_variation_table(delta, resampling=Resampling(resamples=200)).join(
        keyed, on=["variation_value", "dimension", "group"]
    )
    assert analysis.height == cells.height
    np.testing.assert_allclose(analysis["p"].to_numpy(), analysis["planner"].to_numpy(), rtol=1e-12)


@pytest.mark.parametrize("mode", ["sampling", "score"])
@pytest.mark.parametrize("serving", [0.0, 0.02**2])
def test_the_fused_draws_equal_the_cell_by_cell_draws(mode: Mode, serving: float) -> None:
    effects = {f"v{k:02d}": e for k, e in enumerate([0.0, 0.01, 0.02])}
    inputs = planted_inputs(effects, models=("a", "b"), components=replace(PLANTED, serving=serving))
    protocol = planted_protocol(50, 3, 7, models=("a", "b")).with_design(mode=mode)
    sm = study_model(protocol, inputs)
    cell_by_cell = np.stack([face_means(c) for c in draw_cells(sm, np.random.default_rng(9))])
    fused = draw_face_means(sm, np.random.default_rng(9))
    np.testing.assert_allclose(fused, cell_by_cell, rtol=0, atol=1e-12)
