"""A small simulated StylisticBias study database for the report tests (rows through ``store.write_tables``).

Planted cue effects and a few invalid answers; every number a report test checks is looked up
in this database by the test itself.
"""

from __future__ import annotations

import datetime as dt
import json
import zlib
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import polars as pl

from cueshift import store
from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.study.scenarios import (
    ORDERING_BY_ID,
    ORDERINGS,
    RELEASED_TEMPLATE,
    prompt_variant_frame,
    scenario_frame,
)
from cueshift.study.variations import FEATURES, VariationFilter

AGES = ("young adult", "middle-aged adult", "elderly")
GENDERS = ("male", "female")
ETHNICITIES = ("Asian", "African", "European", "Middle Eastern", "Latino")
BODY_TYPES = ("thin", "normal", "obese")
NOW = dt.datetime(2026, 1, 1, 12, 0, 0)

# planted effects (logit scale) of a few cues, and the scenario category they act on most
_CUE_EFFECT = {
    "Worn / Distressed clothing": -1.2,
    "Professional / Business formal": 0.9,
    "Smart casual": 0.8,
    "Messy": -0.5,
    "Full beard": 0.5,
    "Red lipstick": 0.5,
    "Acne": -0.4,
    "Thick-rimmed": 0.35,
}
_CATEGORY_GAIN = {
    "Socioeconomic & Appearance": 1.6,
    "Behavioral": 0.8,
    "Personality & Social": 0.6,
    "Interpersonal": 0.3,
}


def build_study_db(
    path: Path,
    *,
    n_faces: int = 18,
    models: Sequence[str] = ("sim-a", "sim-b"),
    scenarios_per_category: int | None = 2,
    n_seeds: int = 2,
    seed: int = 0,
) -> Path:
    """Write a small simulated study database (all rows through ``store.write_tables``)."""
    rng = np.random.default_rng(seed)
    configs = [(a, g, e, b) for a in AGES for g in GENDERS for e in ETHNICITIES for b in BODY_TYPES]
    # every group of every dimension is represented: cycle each dimension independently
    faces = [
        (AGES[i % 3], GENDERS[(i // 3) % 2], ETHNICITIES[i % 5], BODY_TYPES[(i // 2) % 3])
        for i in range(n_faces)
    ]
    assert all(f in configs for f in faces)
    face_frame = pl.DataFrame(
        {
            "face_id": [f"f{i:03d}" for i in range(n_faces)],
            "source": ["simulated"] * n_faces,
            "age": [f[0] for f in faces],
            "gender": [f[1] for f in faces],
            "ethnicity": [f[2] for f in faces],
            "body_type": [f[3] for f in faces],
            "attributes": pl.Series([None] * n_faces, dtype=pl.String),
        }
    )
    filt = VariationFilter()
    rows: list[dict[str, object]] = []
    for i, (_, gender, _, _) in enumerate(faces):
        face = f"f{i:03d}"
        rows.append(
            dict(
                image_id=f"{face}-base",
                face_id=face,
                role="base",
                base_image_id=None,
                variation_category=None,
                feature_key=None,
                variation_value=None,
                framing="face",
                evaluated=True,
                exclusion_reason=None,
            )
        )
        for feature in FEATURES:
            if feature.only_gender and feature.only_gender != gender:
                continue
            for k, value in enumerate(feature.values):
                reason = filt.exclusion_reason(feature.feature_key, value, gender)
                rows.append(
                    dict(
                        image_id=f"{face}-{feature.feature_key}-{k}",
                        face_id=face,
                        role="variation",
                        base_image_id=f"{face}-base",
                        variation_category=feature.category,
                        feature_key=feature.feature_key,
                        variation_value=value,
                        framing=feature.framing,
                        evaluated=reason is None,
                        exclusion_reason=reason,
                    )
                )
    image = (
        pl.DataFrame(
            rows,
            schema={
                "image_id": pl.String,
                "face_id": pl.String,
                "role": pl.String,
                "base_image_id": pl.String,
                "variation_category": pl.String,
                "feature_key": pl.String,
                "variation_value": pl.String,
                "framing": pl.String,
                "evaluated": pl.Boolean,
                "exclusion_reason": pl.String,
            },
        )
        .with_columns(
            path=pl.col("image_id") + ".png",
            sha256=pl.lit("0" * 64),
            width=pl.lit(64, dtype=pl.Int32),
            height=pl.lit(64, dtype=pl.Int32),
        )
        .select(
            "image_id",
            "face_id",
            "role",
            "base_image_id",
            "variation_category",
            "feature_key",
            "variation_value",
            "framing",
            "path",
            "sha256",
            "width",
            "height",
            "evaluated",
            "exclusion_reason",
        )
    )
    chosen = list(STYLISTICBIAS_25)
    if scenarios_per_category:
        chosen = [
            s
            for cat in _CATEGORY_GAIN
            for s in [x for x in STYLISTICBIAS_25 if x.category == cat][:scenarios_per_category]
        ]
    scenario = scenario_frame(tuple(chosen), "stylisticbias-25")
    model = pl.DataFrame(
        {
            "model_id": list(models),
            "backend": ["simulated"] * len(models),
            "checkpoint": ["cueshift-simulated-v1"] * len(models),
            "revision": pl.Series([None] * len(models), dtype=pl.String),
            "settings": [json.dumps({"seed": 7 + k, "scale": 1.0 + 0.5 * k}) for k in range(len(models))],
        }
    )
    run = pl.DataFrame(
        {
            "run_id": ["run-1"],
            "study_name": ["report-test"],
            "shard": ["1/1"],
            "config": ["{}"],
            "versions": ["{}"],
            "started_at": [NOW],
            "finished_at": [NOW],
            "n_planned": [0],
            "n_written": [0],
        }
    ).with_columns(pl.col("n_planned").cast(pl.Int64), pl.col("n_written").cast(pl.Int64))

    judged = image.filter(pl.col("evaluated")).join(face_frame, on="face_id")
    age_shift = {"young adult": -0.3, "middle-aged adult": 0.0, "elderly": 0.3}
    body_shift = {"thin": 0.1, "normal": 0.2, "obese": -0.4}
    frames = []
    for m, model_id in enumerate(models):
        scale = 1.0 + 0.5 * m
        for s in chosen:
            gain = _CATEGORY_GAIN[s.category]
            cue = (
                judged["variation_value"]
                .replace_strict(_CUE_EFFECT, default=0.0, return_dtype=pl.Float64)
                .fill_null(0.0)
                .to_numpy()
            )
            demo = (
                judged["age"].replace_strict(age_shift).to_numpy()
                + judged["body_type"].replace_strict(body_shift).to_numpy()
            )
            face_noise = np.array(
                [zlib.crc32(f"{f}/{s.scenario_id}".encode()) % 97 / 97 - 0.5 for f in judged["face_id"]]
            )
            logit = 0.2 + scale * gain * cue + demo + 0.6 * face_noise
            for ordering in ORDERINGS:
                for sd in range(1, n_seeds + 1):
                    p_fav = 1 / (1 + np.exp(-(logit + (0.15 if ordering.favorable_first else -0.15))))
                    u = rng.random(len(judged))
                    invalid = rng.random(len(judged)) < (
                        0.08 if s.category == "Behavioral" and m == 1 else 0.01
                    )
                    outcome = np.where(invalid, "invalid", np.where(u < p_fav, "favorable", "unfavorable"))
                    fav_letter = ORDERING_BY_ID[ordering.ordering].favorable_letter
                    other = "b" if fav_letter == "a" else "a"
                    by_outcome = {"favorable": fav_letter, "unfavorable": other, "invalid": None}
                    letter = [by_outcome[str(o)] for o in outcome]
                    frames.append(
                        pl.DataFrame(
                            {
                                "model_id": model_id,
                                "image_id": judged["image_id"],
                                "scenario_id": s.scenario_id,
                                "ordering": pl.Series([ordering.ordering] * len(judged), dtype=pl.Int32),
                                "seed": pl.Series([sd] * len(judged), dtype=pl.Int32),
                                "response_text": [f"({x})" if x else "I cannot tell." for x in letter],
                                "outcome": outcome.tolist(),
                                "chosen_letter": pl.Series(letter, dtype=pl.String),
                                "p_favorable": pl.Series([None] * len(judged), dtype=pl.Float64),
                                "p_neither": pl.Series([None] * len(judged), dtype=pl.Float64),
                                "latency_ms": [1.0] * len(judged),
                                "created_at": pl.Series([NOW] * len(judged), dtype=pl.Datetime("us")),
                                "run_id": ["run-1"] * len(judged),
                            }
                        )
                    )
    judgment = pl.concat(frames)
    con = store.open_study(path)
    try:
        store.write_tables(
            con,
            {
                "face": face_frame,
                "image": image,
                "scenario": scenario,
                "prompt_variant": prompt_variant_frame(RELEASED_TEMPLATE, ORDERINGS),
                "model": model,
                "run": run,
                "judgment": judgment,
            },
        )
    finally:
        con.close()
    return path
