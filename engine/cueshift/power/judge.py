r"""Plan inputs without a pilot: the simulated judge's documented defaults, computed exactly.

The simulated judge (:mod:`cueshift.inference.stand_ins.simulated`) knows the probability of every
answer. For the study's faces (at most :data:`JUDGE_FACES` of them), values and scenarios, its
expected φ (:func:`~cueshift.inference.stand_ins.simulated.favorable_probability` averaged over the
orderings) gives noise-free shifts, from which the same estimators as a pilot's
(:func:`cueshift.power.estimate.estimate_model`, ``exact=True``) read the components and effects;
:math:`\overline{pq}` is the mean over cells and orderings of :math:`p_o(1-p_o)`, the exact
per-answer binomial variance. A study model with ``backend = "simulated"`` contributes its own
settings; any other model gets :class:`~cueshift.inference.stand_ins.simulated.SimulatedSettings`
defaults (``docs/plan.md`` lists the numbers).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.inference.stand_ins.simulated import SimulatedSettings, favorable_probability, parse_settings
from cueshift.power.components import ModelInputs, PlanInputs
from cueshift.power.cubes import base_cube, shift_cube
from cueshift.power.estimate import estimate_model
from cueshift.power.protocol import DIMENSIONS
from cueshift.study.config import ModelConfig, Study
from cueshift.study.scenarios import Scenario

#: Faces the exact defaults are computed on (the first of the study's faces).
JUDGE_FACES = 200
DEFAULTS_SOURCE = "simulated-judge defaults (no pilot)"


def judge_settings(model: ModelConfig) -> tuple[SimulatedSettings, str]:
    """The judge a model's defaults come from: its own settings if it is simulated, else the defaults."""
    if model.backend == "simulated":
        return parse_settings(model), "simulated judge (the study's settings, no pilot)"
    return SimulatedSettings(), DEFAULTS_SOURCE


def _judge_frames(
    settings: SimulatedSettings,
    face: pl.DataFrame,
    image: pl.DataFrame,
    scenarios: Sequence[Scenario],
    orderings: list[int],
) -> tuple[pl.DataFrame, pl.DataFrame, float]:
    rows = image.filter(pl.col("evaluated")).join(face, on="face_id")
    n, n_s, n_o = rows.height, len(scenarios), len(orderings)
    img = np.repeat(np.arange(n), n_s * n_o)
    scen = np.tile(np.repeat(np.arange(n_s), n_o), n)

    def col(name: str) -> list[str | None]:
        values = rows[name].to_list()
        return [values[i] for i in img]

    p = favorable_probability(
        settings,
        orderings=np.tile(np.asarray(orderings), n * n_s),
        scenario_ids=[scenarios[i].scenario_id for i in scen],
        scenario_categories=[scenarios[i].category for i in scen],
        face_ids=col("face_id"),
        age=col("age"),
        gender=col("gender"),
        ethnicity=col("ethnicity"),
        body_type=col("body_type"),
        feature_keys=col("feature_key"),
        values=col("variation_value"),
    ).reshape(n, n_s, n_o)
    pq = float((p * (1 - p)).mean())
    phi = (
        rows.select(
            "image_id", "face_id", "role", "base_image_id", "feature_key", "variation_value", *DIMENSIONS
        )
        .join(pl.DataFrame({"scenario_id": [s.scenario_id for s in scenarios]}), how="cross")
        .with_columns(pl.Series("phi", p.mean(axis=2).ravel()))
    )
    base = phi.filter(pl.col("role") == "base").select(
        "face_id", "image_id", "scenario_id", "phi", *DIMENSIONS
    )
    var = phi.filter(pl.col("role") == "variation")
    delta = var.join(
        base.select(
            pl.col("image_id").alias("base_image_id"), "scenario_id", pl.col("phi").alias("phi_base")
        ),
        on=["base_image_id", "scenario_id"],
    ).select(
        "face_id",
        "feature_key",
        "variation_value",
        "scenario_id",
        pl.col("phi").alias("phi_variation"),
        "phi_base",
        (pl.col("phi") - pl.col("phi_base")).alias("delta"),
    )
    return delta, base.with_columns(pl.lit(None, dtype=pl.Int64).alias("n_valid")), pq


def judge_inputs(
    study: Study,
    face: pl.DataFrame,
    image: pl.DataFrame,
    *,
    scenarios: Sequence[Scenario],
    faces: int = JUDGE_FACES,
) -> tuple[PlanInputs, pl.DataFrame]:
    """Plan inputs of every study model from its simulated judge on the study's ``scenarios``
    (:func:`cueshift.designs.registry.study_scenarios`), and the tidy component rows."""
    kept = face.sort("face_id").head(faces)
    image = image.filter(pl.col("face_id").is_in(kept["face_id"].implode()))
    face_ids = kept["face_id"].to_list()
    scenario_ids = [s.scenario_id for s in scenarios]
    models: dict[str, ModelInputs] = {}
    rows: list[dict[str, object]] = []
    cache: dict[str, tuple[ModelInputs, list[dict[str, object]]]] = {}
    for model in study.models:
        settings, source = judge_settings(model)
        key = settings.model_dump_json()
        if key not in cache:
            delta, base, pq = _judge_frames(settings, kept, image, scenarios, list(study.prompt.orderings))
            est = estimate_model(
                model.model_id,
                shift_cube(delta, face_ids, scenario_ids, exact=True),
                base_cube(base, face_ids, scenario_ids, exact=True),
                pq=pq,
                invalid_rate=settings.invalid_rate,
                serving=0.0,
                source=source,
                exact=True,
            )
            cache[key] = (est.inputs, est.rows)
        inputs, est_rows = cache[key]
        models[model.model_id] = ModelInputs(model.model_id, inputs.components, inputs.effects, source)
        rows += [{**r, "model_id": model.model_id} for r in est_rows]
    sources = sorted({m.source for m in models.values()})
    return PlanInputs(models, {}, "; ".join(sources)), pl.DataFrame(rows)


__all__ = ["DEFAULTS_SOURCE", "JUDGE_FACES", "judge_inputs", "judge_settings"]
