"""The ``delta`` and ``base_phi`` views read as frames, in a fixed row order.

DuckDB scans in parallel, and float sums depend on row order: every read here is sorted,
so an analysis of the same database with the same seed gives the same numbers bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import duckdb
import polars as pl

DELTA_COLUMNS: tuple[str, ...] = (
    "model_id",
    "face_id",
    "scenario_id",
    "scenario_category",
    "variation_category",
    "feature_key",
    "variation_value",
    "age",
    "gender",
    "ethnicity",
    "body_type",
    "phi_variation",
    "phi_base",
    "delta",
)
BASE_COLUMNS: tuple[str, ...] = (
    "model_id",
    "face_id",
    "scenario_id",
    "scenario_category",
    "age",
    "gender",
    "ethnicity",
    "body_type",
    "phi",
)


def _read(con: duckdb.DuckDBPyConnection, sql: str, models: Sequence[str] | None, order: str) -> pl.DataFrame:
    params: list[object] = []
    if models:
        sql += f" AND model_id IN ({', '.join('?' for _ in models)})"
        params = list(models)
    table = con.sql(f"{sql} ORDER BY {order}", params=params or None).to_arrow_table()
    return cast(pl.DataFrame, pl.from_arrow(table))  # a table gives a frame


#: ``feature_key`` of the noise-floor placebo variations (a pixel-identical copy, a lossless
#: re-encode): their true Δ is zero, so they are read apart from the attribute variations.
PLACEBO_FEATURE_KEY = "placebo"


def read_delta(
    con: duckdb.DuckDBPyConnection, models: Sequence[str] | None = None, *, placebo: bool = False
) -> pl.DataFrame:
    """The ``delta`` rows that have a Δ (optionally of some models), sorted by model, face,
    variation value and scenario: the attribute variations, or with ``placebo=True`` only the
    noise-floor placebos (``feature_key = 'placebo'``)."""
    which = "=" if placebo else "IS DISTINCT FROM"
    return _read(
        con,
        f"SELECT {', '.join(DELTA_COLUMNS)} FROM delta WHERE delta IS NOT NULL "
        f"AND lower(feature_key) {which} '{PLACEBO_FEATURE_KEY}'",
        models,
        "model_id, face_id, variation_value, scenario_id",
    )


def read_base_phi(con: duckdb.DuckDBPyConnection, models: Sequence[str] | None = None) -> pl.DataFrame:
    """The ``base_phi`` rows that have a φ (optionally of some models), sorted by model, face and
    scenario."""
    return _read(
        con,
        f"SELECT {', '.join(BASE_COLUMNS)} FROM base_phi WHERE phi IS NOT NULL",
        models,
        "model_id, face_id, scenario_id",
    )
