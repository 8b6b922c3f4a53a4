"""The simulated judges' answer noise is independent across models and across images.

A report of the default study showed a placebo SBS of +0.0061 for ``sim-judge`` and -0.0061 for
``sim-judge-b`` (report review; D59). These tests check what a seeding flaw would break: two
models (the default study's two judges, or two judges that differ only in ``model_id``) must not
share or negate their draws, and a placebo image must not reuse its base image's draws. Each
answer's residual, ``1[names favorable] - P(favorable)``, has mean 0; a correlation of
independent residuals is within ``Z / sqrt(n)`` of 0 (a shared stream gives about +1, a mirrored
one about -1). Tolerances are z = 4 standard errors; the draws are deterministic, so a passing
test stays passing.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.inference.backends.base import StudyContext
from cueshift.inference.stand_ins.simulated import SimulatedBackend
from cueshift.study.config import ModelConfig
from cueshift.study.reading import read_study_file
from cueshift.study.scenarios import RELEASED_TEMPLATE
from tests.inference.judged_images import judged_image

Z = 4.0
N_FACES = 240
ORDERINGS = (1, 2, 3, 4)
SEEDS = (1, 2, 3)  # the default study's answer seeds
PLACEBOS = ("Identical copy", "Lossless re-encode")
SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25}
CELLS = (
    ("young adult", "middle-aged adult", "elderly"),
    ("male", "female"),
    ("Asian", "African", "European", "Middle Eastern", "Latino"),
    ("thin", "normal", "obese"),
)


def _base_id(face: int) -> str:
    return f"demo-{face:04d}-base"


def _placebo_suffix(value: str) -> str:
    return "placebo-" + value.lower().replace(" ", "-")


def _placebo_id(face: int, value: str) -> str:
    return f"{_base_id(face)}--{_placebo_suffix(value)}"


def _context() -> StudyContext:
    """Base images of ``N_FACES`` identities over the demographic grid, each with both placebos."""
    images = {}
    for face, cell in zip(range(1, N_FACES + 1), itertools.cycle(itertools.product(*CELLS)), strict=False):
        identity = f"demo-{face:04d}"
        images[_base_id(face)] = judged_image(_base_id(face), identity, None, None, *cell, path=Path("/x"))
        for value in PLACEBOS:
            image_id = _placebo_id(face, value)
            images[image_id] = judged_image(image_id, identity, "placebo", value, *cell, path=Path("/x"))
    return StudyContext(images=images, scenarios=SCENARIOS, template=RELEASED_TEMPLATE)


CONTEXT = _context()
BATCH = pl.DataFrame(
    list(itertools.product(CONTEXT.images, SCENARIOS, ORDERINGS, SEEDS)),
    schema={"image_id": pl.String, "scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32},
    orient="row",
)


def _default_judges() -> list[ModelConfig]:
    data, _ = read_study_file(None)
    return [ModelConfig(**model) for model in data["models"]]


def _residuals(model: ModelConfig) -> tuple[np.ndarray, np.ndarray]:
    """(1[names favorable] - P(favorable), valid) per row of ``BATCH``."""
    draws = SimulatedBackend(model, CONTEXT).simulate(BATCH)
    return draws.chose_favorable - draws.p_favorable, draws.valid


def _correlation_is_null(x: np.ndarray, y: np.ndarray, what: str) -> None:
    r = float(np.corrcoef(x, y)[0, 1])
    assert abs(r) <= Z / math.sqrt(x.size), f"{what}: r = {r:+.4f} over {x.size} (|r| > {Z}/sqrt(n))"


def test_the_default_judges_draw_independent_answers() -> None:
    (x, valid_x), (y, valid_y) = (_residuals(model) for model in _default_judges())
    both = valid_x & valid_y
    _correlation_is_null(x[both], y[both], "sim-judge vs sim-judge-b, per prompt")


def test_judges_that_differ_only_in_model_id_draw_independent_answers() -> None:
    settings = {"seed": 7}
    (x, valid_x), (y, valid_y) = (
        _residuals(ModelConfig(model_id=model_id, backend="simulated", settings=settings))
        for model_id in ("judge-one", "judge-two")
    )
    both = valid_x & valid_y
    _correlation_is_null(x[both], y[both], "same settings, other model_id")


def test_a_placebo_does_not_reuse_its_base_images_draws() -> None:
    x, valid = _residuals(_default_judges()[1])
    frame = BATCH.with_columns(residual=pl.Series(x), valid=pl.Series(valid))
    base = frame.filter(pl.col("image_id").str.ends_with("-base"))
    key = ["base_image_id", "scenario_id", "ordering", "seed"]
    base = base.rename({"image_id": "base_image_id", "residual": "base_residual", "valid": "base_valid"})
    for value in PLACEBOS:
        placebo = frame.filter(pl.col("image_id").str.ends_with(_placebo_suffix(value)))
        placebo = placebo.with_columns(base_image_id=pl.col("image_id").str.split("--").list.first())
        pairs = placebo.join(base, on=key).filter(pl.col("valid") & pl.col("base_valid"))
        assert pairs.height > 0.9 * placebo.height
        _correlation_is_null(pairs["residual"].to_numpy(), pairs["base_residual"].to_numpy(), value)


def _placebo_cell_deltas(model: ModelConfig) -> pl.DataFrame:
    """Δ = φ(placebo) - φ(base) per (placebo value, face, scenario) cell, as the engine defines φ."""
    draws = SimulatedBackend(model, CONTEXT).simulate(BATCH)
    favorable = pl.Series(np.where(draws.valid, draws.chose_favorable, np.nan)).fill_nan(None)
    phi = (
        BATCH.with_columns(favorable=favorable)
        .group_by("image_id", "scenario_id")
        .agg(phi=pl.col("favorable").mean())
        .with_columns(
            face=pl.col("image_id").str.slice(0, len("demo-0000")),
            placebo=pl.col("image_id").str.split("--").list.get(1, null_on_oob=True),
        )
    )
    base = phi.filter(pl.col("placebo").is_null()).select("face", "scenario_id", phi_base="phi")
    cells = phi.filter(pl.col("placebo").is_not_null()).join(base, on=["face", "scenario_id"])
    return cells.select("placebo", "face", "scenario_id", delta=pl.col("phi") - pl.col("phi_base"))


def test_placebo_deltas_are_centred_and_uncorrelated_between_the_default_judges() -> None:
    judges = _default_judges()
    # the planted truth: a placebo has exactly its base image's P(favorable) (true Δ = 0)
    draws = SimulatedBackend(judges[0], CONTEXT).simulate(BATCH)
    p = BATCH.with_columns(
        p=pl.Series(draws.p_favorable), base=pl.col("image_id").str.split("--").list.first()
    )
    assert p.group_by("base", "scenario_id", "ordering").agg(pl.col("p").n_unique())["p"].max() == 1
    a, b = (_placebo_cell_deltas(model) for model in judges)
    cells = a.join(b, on=["placebo", "face", "scenario_id"], suffix="_b").drop_nulls()
    assert cells.height > 0.99 * 2 * N_FACES * len(SCENARIOS)
    for value in PLACEBOS:
        one = cells.filter(pl.col("placebo") == _placebo_suffix(value))
        for column in ("delta", "delta_b"):
            delta = one[column].to_numpy()
            se = delta.std(ddof=1) / math.sqrt(delta.size)
            assert abs(delta.mean()) <= Z * se, f"{value} {column}: mean {delta.mean():+.5f}, SE {se:.5f}"
        _correlation_is_null(one["delta"].to_numpy(), one["delta_b"].to_numpy(), f"{value}: cell Δ")
        faces = one.group_by("face").agg(pl.col("delta", "delta_b").mean())
        _correlation_is_null(faces["delta"].to_numpy(), faces["delta_b"].to_numpy(), f"{value}: face Δ")
