"""Helpers of the stats tests: hand-built ``delta`` / ``base_phi`` frames with default columns."""

from __future__ import annotations

from typing import Any

import polars as pl

DELTA_DEFAULTS: dict[str, Any] = {
    "model_id": "m1",
    "scenario_category": "Personality & Social",
    "variation_category": "Fashion",
    "feature_key": "fashion_style",
    "age": "young adult",
    "gender": "male",
    "ethnicity": "Asian",
    "body_type": "thin",
    "phi_variation": 0.5,
    "phi_base": 0.5,
}


def delta_rows(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """A frame shaped like the ``delta`` view; each row needs face_id, variation_value, scenario_id, delta."""
    full = [{**DELTA_DEFAULTS, **row} for row in rows]
    return pl.DataFrame(
        full,
        schema={
            "model_id": pl.String,
            "face_id": pl.String,
            "scenario_id": pl.String,
            "scenario_category": pl.String,
            "variation_category": pl.String,
            "feature_key": pl.String,
            "variation_value": pl.String,
            "age": pl.String,
            "gender": pl.String,
            "ethnicity": pl.String,
            "body_type": pl.String,
            "phi_variation": pl.Float64,
            "phi_base": pl.Float64,
            "delta": pl.Float64,
        },
    )


def base_rows(rows: list[dict[str, Any]]) -> pl.DataFrame:
    """A frame shaped like the ``base_phi`` view; rows need face_id, scenario_id, phi (+ demographics)."""
    defaults = {
        "model_id": "m1",
        "scenario_category": "Personality & Social",
        "age": "young adult",
        "gender": "male",
        "ethnicity": "Asian",
        "body_type": "thin",
    }
    full = [{**defaults, **row} for row in rows]
    return pl.DataFrame(
        full,
        schema={
            "model_id": pl.String,
            "face_id": pl.String,
            "scenario_id": pl.String,
            "scenario_category": pl.String,
            "age": pl.String,
            "gender": pl.String,
            "ethnicity": pl.String,
            "body_type": pl.String,
            "phi": pl.Float64,
        },
    )
