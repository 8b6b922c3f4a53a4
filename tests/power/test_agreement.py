"""Analytic and simulated power check each other: they agree within Monte Carlo error on a grid of
designs, equal the level at zero effect, and grow with faces and effect."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cueshift.power.curve import power_curve
from cueshift.power.families import Targets, analytic_frame
from cueshift.power.model import study_model
from cueshift.power.simulate import Simulations, simulated_power
from cueshift.power.study_draws import draw_cells, face_means
from cueshift.stats import one_sample_test
from tests.power.conftest import assert_agree, planted_inputs, planted_protocol


@pytest.mark.parametrize("faces", [40, 120])
@pytest.mark.parametrize("scenarios", [6, 12])
def test_analytic_and_simulated_power_agree_on_a_grid(faces: int, scenarios: int) -> None:
    effects = {f"v{k:02d}": e for k, e in enumerate([0.0, 0.004, 0.008, 0.012, 0.016, 0.024])}
    sm = study_model(planted_protocol(faces, 6, scenarios), planted_inputs(effects))
    analytic = analytic_frame(sm, Targets(), tests=("sbs_attribute",))
    simulated = simulated_power(sm, Simulations(300, seed=1), tests=("sbs_attribute",))
    assert_agree(analytic.join(simulated, on=["test", "family", "target"]))


def test_model_pairs_and_table11_cells_agree() -> None:
    effects = {f"v{k:02d}": e for k, e in enumerate([0.0, 0.01, 0.02, 0.03])}
    inputs = planted_inputs(effects, models=("a", "b"))
    inputs.models["b"].effects.attribute.update({"v01": 0.0, "v03": 0.01})
    sm = study_model(planted_protocol(150, 4, 8, models=("a", "b")), inputs)
    tests = ("model_pair", "table11_cell")
    joined = analytic_frame(sm, Targets(), tests=tests).join(
        simulated_power(sm, Simulations(200, seed=2), tests=tests), on=["test", "family", "target"]
    )
    assert_agree(joined.filter(pl.col("n_units") >= 30))  # normal theory needs some faces per cell


def test_power_curve_methods_agree() -> None:
    protocol = planted_protocol(200, 6, 8)
    inputs = planted_inputs({f"v{k:02d}": 0.01 for k in range(6)})
    curve = power_curve(protocol, inputs, Targets(effect=0.01), Simulations(100), faces=[40, 100, 250])
    assert_agree(curve)


def test_simulated_power_is_the_level_at_zero_effect() -> None:
    sm = study_model(planted_protocol(80, 8, 6), planted_inputs({f"v{k:02d}": 0.0 for k in range(8)}))
    rng = np.random.default_rng(5)
    p = np.concatenate([one_sample_test(face_means(next(draw_cells(sm, rng))).T)[1] for _ in range(150)])
    share = float((p <= 0.05).mean())
    assert share == pytest.approx(0.05, abs=3 * np.sqrt(0.05 * 0.95 / p.size) + 0.005)


def test_power_grows_with_faces_and_effect() -> None:
    inputs = planted_inputs({"v00": 0.005, "v01": 0.01, "v02": 0.02})
    by_faces = [
        analytic_frame(study_model(planted_protocol(f, 3, 8), inputs), Targets(), tests=("sbs_attribute",))
        for f in (30, 60, 120, 240)
    ]
    powers = np.array([frame["power"].to_numpy() for frame in by_faces])
    assert np.all(np.diff(powers, axis=0) > 0)  # more faces, more power, for every effect
    assert np.all(np.diff(powers, axis=1) > 0)  # bigger effect, more power, at every size
    mde = np.array([frame["mde"][0] for frame in by_faces])
    assert np.all(np.diff(mde) < 0)
