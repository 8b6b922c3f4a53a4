"""Model comparisons on the judgment-level simulated judge: the two judges of the default study
(``sim-judge``, ``sim-judge-b``) differ where their planted effects differ and agree where they are
shared; two judges with identical settings show sign "reversals" of point estimates but none with
evidence.

The judge is asked directly (:meth:`SimulatedBackend.simulate`, no database, no image files; the
parser round trip is ``test_judge_coverage.py``'s subject): φ = favorable / valid answers over
4 orderings × 3 seeds, Δ = φ(variation) − φ(base). Truth: per judge, the planted population Δ
(:func:`population_delta`, identity integrated out) averaged over the faces' demographic cells and
the scenarios; the planted difference of two judges is the difference of those.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from cueshift.designs import load_study
from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.designs.stylisticbias.stats import cross_model, model_differences
from cueshift.inference.backends.base import StudyContext
from cueshift.inference.stand_ins.simulated import (
    DEFAULT_DEMOGRAPHIC_EFFECTS,
    SimulatedBackend,
    population_delta,
)
from cueshift.inference.stand_ins.simulated.settings import parse_settings
from cueshift.stats import Resampling
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import RELEASED_TEMPLATE
from tests.inference.judged_images import judged_image
from tests.stats.frames import DELTA_DEFAULTS

SCENARIOS = {s.scenario_id: s for s in STYLISTICBIAS_25}
CELLS = tuple(
    itertools.product(
        *(tuple(DEFAULT_DEMOGRAPHIC_EFFECTS[a]) for a in ("age", "gender", "ethnicity", "body_type"))
    )
)
Variation = tuple[str, str]


def judged_delta(
    models: Mapping[str, dict[str, Any]],
    variations: Sequence[Variation],
    scenario_ids: Sequence[str],
    cells: Sequence[tuple[str, ...]],
) -> pl.DataFrame:
    """Δ rows of every model on one face per demographic cell of ``cells``."""
    records, meta = {}, []
    for f, (age, gender, ethnicity, body_type) in enumerate(cells):
        for k, (feature_key, value) in enumerate([(None, None), *variations]):
            image_id = f"face{f:03d}-v{k}"
            records[image_id] = judged_image(
                image_id,
                f"face{f:03d}",
                feature_key,
                value,
                age,
                gender,
                ethnicity,
                body_type,
                path=Path("/x"),
            )
            meta.append(
                {"image_id": image_id, "face_id": f"face{f:03d}", "feature_key": feature_key, "value": value}
            )
    context = StudyContext(images=records, scenarios=SCENARIOS, template=RELEASED_TEMPLATE)
    prompts = pl.DataFrame(
        list(itertools.product(scenario_ids, (1, 2, 3, 4), (1, 2, 3))),
        schema={"scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32},
        orient="row",
    )
    batch = pl.DataFrame({"image_id": list(records)}).join(prompts, how="cross")
    frames = []
    for model_id, settings in models.items():
        draws = SimulatedBackend(
            ModelConfig(model_id=model_id, backend="simulated", settings=settings), context
        ).simulate(batch)
        phi = (
            batch.with_columns(valid=pl.Series(draws.valid), favorable=pl.Series(draws.chose_favorable))
            .group_by("image_id", "scenario_id")
            .agg(phi=pl.col("favorable").sum() / pl.col("valid").sum())
            .join(pl.DataFrame(meta), on="image_id")
        )
        base = phi.filter(pl.col("feature_key").is_null()).select("face_id", "scenario_id", phi_base="phi")
        frames.append(
            phi.filter(pl.col("feature_key").is_not_null())
            .join(base, on=["face_id", "scenario_id"])
            .select(
                pl.lit(model_id).alias("model_id"),
                "face_id",
                "scenario_id",
                pl.col("scenario_id")
                .replace_strict({k: s.category for k, s in SCENARIOS.items()})
                .alias("scenario_category"),
                pl.col("feature_key").alias("variation_category"),
                "feature_key",
                pl.col("value").alias("variation_value"),
                pl.col("phi").alias("phi_variation"),
                "phi_base",
                (pl.col("phi") - pl.col("phi_base")).alias("delta"),
            )
        )
    demographics = {
        k: v for k, v in DELTA_DEFAULTS.items() if k in ("age", "gender", "ethnicity", "body_type")
    }
    return (
        pl.concat(frames)
        .with_columns(**{k: pl.lit(v) for k, v in demographics.items()})
        .sort("model_id", "face_id", "variation_value", "scenario_id")
    )


def planted_sbs(
    settings: dict[str, Any], variation: Variation, scenario_ids: Sequence[str], cells: Sequence[Any]
) -> float:
    parsed = parse_settings(ModelConfig(model_id="m", backend="simulated", settings=settings))
    return float(
        np.mean(
            [
                population_delta(
                    parsed,
                    *variation,
                    s,
                    scenario_category=SCENARIOS[s].category,
                    age=a,
                    gender=g,
                    ethnicity=e,
                    body_type=b,
                )
                for s in scenario_ids
                for a, g, e, b in cells
            ]
        )
    )


def test_the_default_studys_two_judges_differ_where_their_planted_effects_differ() -> None:
    judges = {m.model_id: dict(m.settings) for m in load_study("default").models}
    assert list(judges) == ["sim-judge", "sim-judge-b"]
    variations = [
        ("fashion_style", "Casual"),  # reversed in judge b
        ("eyewear", "Sunglasses"),  # reversed
        ("fashion_style", "Professional / Business formal"),  # absent in judge b
        ("fashion_style", "Formal / Evening wear"),  # shared
        ("hair_style", "Messy"),  # shared
        ("skin_irregularities", "Freckles"),  # 0 in both
    ]
    scenario_ids, cells = ("competent", "wealthy", "loving", "honest", "stylish"), CELLS[::2]
    data = judged_delta(judges, variations, scenario_ids, cells)
    out = model_differences(data, resampling=Resampling(resamples=500), levels=("variation_value",))
    planted = {
        value: planted_sbs(judges["sim-judge"], (key, value), scenario_ids, cells)
        - planted_sbs(judges["sim-judge-b"], (key, value), scenario_ids, cells)
        for key, value in variations
    }
    # logit effects shared by both judges shift φ by nearly the same amount (the scenario base
    # logits differ, so not exactly: |difference| < 0.015); reversed or absent ones by > 0.08
    differ, shared = (
        ("Casual", "Sunglasses", "Professional / Business formal"),
        ("Formal / Evening wear", "Messy"),
    )
    assert all(abs(planted[v]) > 0.08 for v in differ) and all(abs(planted[v]) < 0.015 for v in shared)
    assert planted["Freckles"] == 0.0
    rows = {r["variation_value"]: r for r in out.iter_rows(named=True)}
    for value, truth in planted.items():
        row = rows[value]
        assert abs(row["estimate"] - truth) < 4 * row["se_clustered"], (value, row["estimate"], truth)
    assert all(rows[v]["p_adj"] < 0.001 for v in differ)
    assert rows["Freckles"]["p_adj"] >= 0.05
    assert out["n"].unique().to_list() == [len(cells)]


def test_identical_judges_reverse_point_estimates_but_not_with_evidence() -> None:
    settings = {"seed": 7}  # same face intercepts and effects; the answers differ by model id
    variations = [("hair_color", "Brown"), ("skin_irregularities", "Freckles"), ("accessories", "Beanie")]
    data = judged_delta({"judge-1": settings, "judge-2": settings}, variations, tuple(SCENARIOS), CELLS[::3])
    row = cross_model(data).row(0, named=True)
    assert row["n"] == 25 and row["n_sign_reversed"] >= 3  # near-zero planted SBS flip by chance
    assert row["n_reversed_significant"] == 0
    assert row["n_reversed_not_distinguishable"] == row["n_sign_reversed"]
