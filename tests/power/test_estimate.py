"""The component estimators: planted components recovered with intervals that cover them, serving
noise from placebos, the simulated judge's exact defaults, and a pilot judged by the real runner."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from cueshift.designs.registry import study_scenarios
from cueshift.power.cubes import base_cube, shift_cube
from cueshift.power.estimate import estimate_model
from cueshift.power.judge import judge_inputs
from cueshift.power.model import study_model
from cueshift.power.pilot import open_pilot
from cueshift.power.pilot_inputs import pilot_inputs, serving_noise
from cueshift.power.protocol import study_images
from cueshift.study.config import Study
from tests.power.conftest import PLANTED, planted_inputs, planted_protocol
from tests.power.frames import simulated_frames
from tests.scalars import real

TRUTH = {
    "face": PLANTED.face,
    "scenario": PLANTED.scenario,
    "face_scenario": PLANTED.face_scenario,
    "base_face:age": PLANTED.base_face["age"],
}


@pytest.fixture(scope="module")
def replications() -> pl.DataFrame:
    """200 pilots (40 faces, 8 values, 12 scenarios) drawn with the planted components, estimated."""
    protocol = planted_protocol(40, 8, 12)
    inputs = planted_inputs({f"v{k:02d}": 0.02 * k for k in range(8)})
    faces = protocol.faces["face_id"].to_list()
    rows = []
    for r in range(200):
        delta, base = simulated_frames(study_model(protocol, inputs, seed=1000 + r), np.random.default_rng(r))
        scenarios = sorted(delta["scenario_id"].unique().to_list())
        estimate = estimate_model(
            "m",
            shift_cube(delta, faces, scenarios),
            base_cube(base, faces, scenarios),
            pq=PLANTED.pq,
            invalid_rate=PLANTED.invalid_rate,
            serving=0.0,
            source="planted",
        )
        rows += [{**row, "replication": r} for row in estimate.rows if row["component"] in TRUTH]
    return pl.DataFrame(rows)


@pytest.mark.parametrize("component", sorted(TRUTH))
def test_planted_components_are_recovered(replications: pl.DataFrame, component: str) -> None:
    rows = replications.filter(pl.col("component") == component)
    truth = TRUTH[component]
    mean = real(rows["estimate"].mean())
    se = real(rows["estimate"].std()) / np.sqrt(rows.height)
    assert abs(mean - truth) <= 4 * se + 0.05 * truth, f"{component}: mean estimate {mean} vs {truth}"


@pytest.mark.parametrize("component", sorted(TRUTH))
def test_intervals_cover_the_planted_components(replications: pl.DataFrame, component: str) -> None:
    rows = replications.filter(pl.col("component") == component)
    covered = real(((rows["ci_low"] <= TRUTH[component]) & (TRUTH[component] <= rows["ci_high"])).mean())
    # nominal 95 %; the intervals are approximate (jackknife / MLS with 40 faces, 12 scenarios)
    assert 0.85 <= covered <= 0.995, f"{component}: coverage {covered}"


def test_serving_noise_is_read_from_placebo_shifts() -> None:
    rng = np.random.default_rng(4)
    n_cells, n, serving = 40_000, 12, 0.05**2
    p = rng.uniform(0.3, 0.8, n_cells)
    phi_v = rng.binomial(n, p) / n + rng.normal(0, np.sqrt(serving), n_cells)
    phi_b = rng.binomial(n, p) / n + rng.normal(0, np.sqrt(serving), n_cells)
    frame = pl.DataFrame(
        {
            "feature_key": ["placebo"] * n_cells,
            "phi_variation": phi_v,
            "phi_base": phi_b,
            "delta": phi_v - phi_b,
            "n_valid_variation": n,
            "n_valid_base": n,
        }
    )
    estimate, cells = serving_noise(frame)
    assert cells == n_cells
    assert estimate == pytest.approx(serving, rel=0.25)
    assert serving_noise(frame.with_columns(pl.lit("eyewear").alias("feature_key"))) == (0.0, 0)


def test_the_judges_defaults_are_exact_and_repeatable(pilot_db: tuple[Study, Path]) -> None:
    study, _ = pilot_db
    face, image = study_images(study)
    first, rows = judge_inputs(study, face, image, scenarios=study_scenarios(study))
    second, _ = judge_inputs(study, face, image, scenarios=study_scenarios(study))
    assert first == second
    comp = first.models["sim-judge"].components
    assert comp.invalid_rate == 0.02 and comp.serving == 0.0
    assert 0.15 < comp.pq < 0.25 and comp.face_scenario >= 0 and comp.scenario > 0
    assert rows["ci_low"].is_nan().all()  # exact: no interval
    assert "simulated judge" in first.source


def test_a_pilot_of_the_simulated_judge_estimates_what_the_judge_plants(pilot_db: tuple[Study, Path]) -> None:
    study, database = pilot_db
    face, image = study_images(study)
    exact, _ = judge_inputs(study, face, image, scenarios=study_scenarios(study))
    pilot = open_pilot(database, "stylisticbias")
    try:
        inputs, rows, notes = pilot_inputs(pilot)
    finally:
        pilot.close()
    # the runner judges the noise-floor placebos, from which the pilot estimates serving noise (none planted)
    assert "16 faces" in inputs.source and any("placebo cells" in n for n in notes), notes
    estimated, planted = inputs.models["sim-judge"], exact.models["sim-judge"]
    assert estimated.components.serving < 0.1 * estimated.components.pq, estimated.components.serving
    assert estimated.components.invalid_rate == pytest.approx(0.02, abs=0.01)
    assert estimated.components.pq == pytest.approx(planted.components.pq, abs=0.02)
    values = sorted(planted.effects.attribute)
    r = np.corrcoef(
        [estimated.effects.attribute[v] for v in values], [planted.effects.attribute[v] for v in values]
    )[0, 1]
    assert r > 0.9, f"pilot SBS vs planted SBS: r = {r}"
    assert set(rows["component"]) >= {"face", "scenario", "face_scenario", "pq", "serving", "invalid_rate"}
