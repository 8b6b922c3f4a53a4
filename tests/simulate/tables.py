"""The dimension tables of a simulated StylisticBias study (:mod:`tests.simulate.study`):
the faces' demographics drawn from the paper's population shares, one base and one image per
evaluated variation value (and placebo) of each face, and the fixed scenario, prompt, model and
run rows.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.study.scenarios import (
    ORDERINGS,
    RELEASED_TEMPLATE,
    Scenario,
    prompt_variant_frame,
    scenario_frame,
)
from cueshift.study.variations import FEATURES, PLACEBO_FEATURE_KEY, PLACEBO_VALUES, VariationFilter

#: Demographic groups and population shares (seed 000 App. B.2: 500 faces' marginal counts).
POPULATION: dict[str, dict[str, float]] = {
    "age": {"young adult": 260 / 500, "middle-aged adult": 124 / 500, "elderly": 116 / 500},
    "gender": {"male": 274 / 500, "female": 226 / 500},
    "ethnicity": {
        "Asian": 110 / 500,
        "African": 109 / 500,
        "European": 101 / 500,
        "Middle Eastern": 95 / 500,
        "Latino": 85 / 500,
    },
    "body_type": {"thin": 154 / 500, "normal": 186 / 500, "obese": 160 / 500},
}

#: Columns of the ``image`` table built here, in the order its rows are written.
IMAGE_COLUMNS = (
    "image_id",
    "face_id",
    "role",
    "base_image_id",
    "variation_category",
    "feature_key",
    "variation_value",
    "framing",
    "evaluated",
    "exclusion_reason",
)


def draw_demographics(rng: np.random.Generator, n: int) -> dict[str, np.ndarray]:
    """``n`` faces' group in every dimension of :data:`POPULATION`, drawn with its shares."""
    return {
        dim: rng.choice(list(groups), size=n, p=list(groups.values())) for dim, groups in POPULATION.items()
    }


def image_table(
    face_ids: Sequence[str],
    genders: np.ndarray,
    *,
    placebos: bool,
    variation_values: tuple[str, ...] | None,
    variation_filter: VariationFilter,
) -> pl.DataFrame:
    """The ``image`` rows: per face its base, its placebos, and every variation value the
    filter keeps for the face's gender (only ``variation_values`` when given)."""
    rows: list[tuple[object, ...]] = []
    for i, face in enumerate(face_ids):
        rows.append((f"{face}-base", face, "base", None, None, None, None, "face", True, None))
        for value in PLACEBO_VALUES if placebos else ():
            slug = value.lower().replace(" ", "-")
            rows.append(
                (
                    f"{face}-base--placebo-{slug}",
                    face,
                    "variation",
                    f"{face}-base",
                    PLACEBO_FEATURE_KEY,
                    PLACEBO_FEATURE_KEY,
                    value,
                    "face",
                    True,
                    None,
                )
            )
        for feat in FEATURES:
            for value in feat.values:
                if variation_values is not None and value not in variation_values:
                    continue
                reason = variation_filter.exclusion_reason(feat.feature_key, value, genders[i])
                if reason is not None:
                    continue
                slug = value.lower().replace(" / ", "-").replace(" ", "-")
                rows.append(
                    (
                        f"{face}-{feat.feature_key}-{slug}",
                        face,
                        "variation",
                        f"{face}-base",
                        feat.category,
                        feat.feature_key,
                        value,
                        feat.framing,
                        True,
                        None,
                    )
                )
    cols = list(IMAGE_COLUMNS)
    schema = {c: (pl.Boolean if c == "evaluated" else pl.String) for c in cols}
    image = pl.DataFrame(rows, schema=schema, orient="row")
    return image.with_columns(
        path=pl.col("image_id") + ".png",
        sha256=pl.col("image_id").map_elements(
            lambda s: hashlib.sha256(s.encode()).hexdigest(), return_dtype=pl.String
        ),
        width=pl.lit(None, dtype=pl.Int32),
        height=pl.lit(None, dtype=pl.Int32),
    ).select(cols[:8] + ["path", "sha256", "width", "height", "evaluated", "exclusion_reason"])


def face_table(face_ids: Sequence[str], demo: dict[str, np.ndarray]) -> pl.DataFrame:
    """The ``face`` rows: each simulated face with its demographic groups."""
    return pl.DataFrame(
        {
            "face_id": face_ids,
            "source": "simulated",
            **{k: list(v) for k, v in demo.items()},
            "attributes": pl.Series([None] * len(face_ids), dtype=pl.String),
        }
    )


def fixed_tables(
    scenarios: Sequence[Scenario], models: tuple[str, ...], *, seed: int, n_faces: int, n_judgments: int
) -> dict[str, pl.DataFrame]:
    """The ``scenario``, ``prompt_variant``, ``model`` and ``run`` rows of a simulated study."""
    return {
        "scenario": scenario_frame(tuple(scenarios), "stylisticbias-25"),
        "prompt_variant": prompt_variant_frame(RELEASED_TEMPLATE, ORDERINGS),
        "model": pl.DataFrame(
            {
                "model_id": list(models),
                "backend": "simulated",
                "checkpoint": "phi-level",
                "revision": pl.Series([None] * len(models), dtype=pl.String),
                "settings": json.dumps({"seed": seed}),
            }
        ),
        "run": pl.DataFrame(
            {
                "run_id": ["sim"],
                "study_name": ["simulated"],
                "shard": ["1/1"],
                "config": [json.dumps({"n_faces": n_faces})],
                "versions": ["{}"],
                "started_at": [dt.datetime(2026, 1, 1)],
                "finished_at": [dt.datetime(2026, 1, 1)],
                "n_planned": [n_judgments],
                "n_written": [n_judgments],
            }
        ),
    }
