"""Fixtures of the plan tests: a planted protocol with known components, and a small pilot study
database judged by the simulated judge (the real runner, a small demo size)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from cueshift.designs import load_study
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.power.components import Components, Effects, ModelInputs, PlanInputs
from cueshift.power.protocol import DIMENSIONS, Protocol
from cueshift.study.config import Study

PILOT_SCENARIOS = '["competent", "wealthy", "honest", "stylish", "friendly", "educated"]'


#: Normal theory is an approximation: besides Monte Carlo error, allow this much (docs/plan.md).
APPROXIMATION = 0.03
#: Monte Carlo standard errors allowed on the worst of a family's rows (tens of rows per check).
Z = 4.0


def assert_agree(frame: pl.DataFrame) -> None:
    """|analytic - simulated| <= :data:`Z` Monte Carlo standard errors + :data:`APPROXIMATION`, every row."""
    gap = (frame["power"] - frame["power_sim"]).abs()
    binomial = np.sqrt((frame["power"] * (1 - frame["power"]) / frame["n_sims"]).to_numpy())
    se = np.maximum(frame["power_sim_se"].fill_null(0.0).to_numpy(), binomial)
    bound = Z * se + APPROXIMATION
    checked = frame.with_columns(gap=gap, bound=bound)
    worst = checked.sort(pl.col("gap") - pl.col("bound"), descending=True).row(0, named=True)
    assert (gap <= bound).all(), f"analytic and simulated power disagree: {worst}"


def planted_protocol(
    n_faces: int, n_values: int, scenarios: int, *, models: tuple[str, ...] = ("m",), seed: int = 0
) -> Protocol:
    """Faces with random demographics, ``n_values`` values for every face, sampled answers (4 x 3)."""
    rng = np.random.default_rng(seed)
    faces = pl.DataFrame(
        {
            "face_id": [f"f{i:04d}" for i in range(n_faces)],
            "age": rng.choice(["young adult", "middle-aged adult", "elderly"], n_faces),
            "gender": rng.choice(["male", "female"], n_faces),
            "ethnicity": rng.choice(["Asian", "African", "European"], n_faces),
            "body_type": rng.choice(["thin", "normal", "obese"], n_faces),
        }
    )
    values = pl.DataFrame(
        {
            "variation_category": ["planted"] * n_values,
            "variation_value": [f"v{k:02d}" for k in range(n_values)],
            "gender": pl.Series([None] * n_values, dtype=pl.String),
        }
    )
    return Protocol(faces, values, scenarios, 4, 3, {m: "sampling" for m in models})


PLANTED = Components(
    face=0.002,
    scenario=0.001,
    face_scenario=0.003,
    base_face={d: 0.005 for d in DIMENSIONS},
    pq=0.2,
    serving=0.0,
    invalid_rate=0.02,
)


def planted_inputs(
    effects: dict[str, float], *, models: tuple[str, ...] = ("m",), components: Components = PLANTED
) -> PlanInputs:
    """Every model with the planted components and ``effects`` (value -> SBS)."""
    return PlanInputs(
        {m: ModelInputs(m, components, Effects(dict(effects)), "planted") for m in models}, {}, "planted"
    )


def pilot_study(tmp: Path, cache: Path, *, faces: int = 16, name: str = "pilot") -> Study:
    """A small StylisticBias study file judged by the simulated judge (settings of the default study)."""
    path = tmp / f"{name}.toml"
    path.write_text(
        f"""
name = "{name}"
database = "{(tmp / (name + ".duckdb")).as_posix()}"
[image_set]
kind = "demo"
size = {faces}
cache_dir = "{cache.as_posix()}"
[scenarios]
only = {PILOT_SCENARIOS}
[[models]]
model_id = "sim-judge"
backend = "simulated"
[models.settings]
seed = 7
"""
    )
    return load_study(path)


@pytest.fixture(scope="session")
def pilot_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Study, Path]:
    """A 16-face pilot of the simulated judge, run by the real runner."""
    tmp = tmp_path_factory.mktemp("pilot")
    study = pilot_study(tmp, tmp_path_factory.mktemp("demo-cache"))
    summary = run_study(study, RunOptions(progress=False))
    return study, summary.database
