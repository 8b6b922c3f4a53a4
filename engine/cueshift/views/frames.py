"""The ``delta`` and ``base_phi`` views read as frames, in a fixed row order.

DuckDB scans in parallel: every read here is sorted (on a key that identifies a row), so the
frames come in one order. The per-face means do not depend on it anyway: they are summed exactly
from the valid-answer counts read here (``n_valid*``; ``cueshift.stats`` face means).

The Δ rows (millions at paper scale) are read as numbers only: each row's model, image and
scenario as its row number in that table sorted by the view's order, then sorted on those three
integers, and their labels gathered from the small sorted tables (:func:`read_delta`). The frame
is the one ``SELECT ... FROM delta ORDER BY model_id, face_id, variation_value, image_id,
scenario_id`` gives, at half the cost of sorting and converting millions of strings.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import cast

import duckdb
import polars as pl

from cueshift.views.phi_choice import GREEDY, PhiChoice

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
    "n_valid_variation",
    "n_valid_base",
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
    "n_valid",
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


def _source(view: str, phi: PhiChoice) -> str:
    """The view, or its table macro at the chosen temperature (``sql/views/delta_at.sql``)."""
    return view if phi.temperature is None else f"{view}_at({float(phi.temperature)!r})"


def read_delta(
    con: duckdb.DuckDBPyConnection,
    models: Sequence[str] | None = None,
    *,
    placebo: bool = False,
    phi: PhiChoice = GREEDY,
) -> pl.DataFrame:
    """The ``delta`` rows that have a Δ (optionally of some models) with the valid-answer counts
    of both φ, sorted by model, face, variation value, image and scenario: the attribute
    variations, or with ``placebo=True`` only the noise-floor placebos (``feature_key = 'placebo'``).
    ``phi`` picks the φ (:mod:`cueshift.views.phi_choice`): the ``delta`` view or ``delta_at(T)``."""
    which = "=" if placebo else "IS DISTINCT FROM"
    where = f"delta IS NOT NULL AND lower(feature_key) {which} '{PLACEBO_FEATURE_KEY}'"
    params: list[object] = []
    if models:
        where += f" AND model_id IN ({', '.join('?' for _ in models)})"
        params = list(models)
    numbers = _frame(
        con,
        f"{_ROW_NUMBERS} SELECT model_row, image_row, scenario_row, {', '.join(_MEASURES)} "
        f"FROM {_source('delta', phi)} JOIN model_row USING (model_id) JOIN image_row USING (image_id) "
        f"JOIN scenario_row USING (scenario_id) WHERE {where}",
        params,
    ).sort("model_row", "image_row", "scenario_row")
    models_sorted = _frame(con, f"SELECT model_id FROM ({_MODELS}) ORDER BY model_id")
    images = _frame(con, f"{_IMAGE_LABELS} ORDER BY {_IMAGE_ORDER}")
    scenarios = _frame(con, f"{_SCENARIO_LABELS} ORDER BY {_SCENARIO_ORDER}")
    columns = {
        **models_sorted[numbers["model_row"]].to_dict(),
        **images.drop("image_id")[numbers["image_row"]].to_dict(),
        **scenarios[numbers["scenario_row"]].to_dict(),
        **numbers.select(_MEASURES).to_dict(),
    }
    return pl.DataFrame([columns[name] for name in DELTA_COLUMNS])


#: The Δ rows' numbers; their labels come from the tables below, in the view's row order.
_MEASURES = ("phi_variation", "phi_base", "delta", "n_valid_variation", "n_valid_base")
_MODELS = "SELECT DISTINCT model_id FROM judgment"
_IMAGE_ORDER = "img.face_id, img.variation_value, img.image_id"
_IMAGE_LABELS = (
    "SELECT img.image_id, img.face_id, img.variation_category, img.feature_key, "
    "img.variation_value, fc.age, fc.gender, fc.ethnicity, fc.body_type "
    "FROM image AS img LEFT JOIN face AS fc ON fc.face_id = img.face_id"
)
_SCENARIO_ORDER = "scenario_id"
_SCENARIO_LABELS = "SELECT scenario_id, category AS scenario_category FROM scenario"
#: Each model, image and scenario numbered 0, 1, ... in the order the Δ rows are sorted by
#: (``delta``'s ``face_id`` and ``variation_value`` are the image's).
_ROW_NUMBERS = (
    f"WITH model_row AS (SELECT model_id, row_number() OVER (ORDER BY model_id) - 1 AS model_row "
    f"FROM ({_MODELS})), "
    f"image_row AS (SELECT img.image_id, row_number() OVER (ORDER BY {_IMAGE_ORDER}) - 1 AS image_row "
    f"FROM image AS img), "
    f"scenario_row AS (SELECT scenario_id, row_number() OVER (ORDER BY {_SCENARIO_ORDER}) - 1 "
    f"AS scenario_row FROM scenario)"
)


def _frame(con: duckdb.DuckDBPyConnection, sql: str, params: list[object] | None = None) -> pl.DataFrame:
    return cast(pl.DataFrame, pl.from_arrow(con.sql(sql, params=params or None).to_arrow_table()))


def read_base_phi(
    con: duckdb.DuckDBPyConnection, models: Sequence[str] | None = None, *, phi: PhiChoice = GREEDY
) -> pl.DataFrame:
    """The ``base_phi`` rows that have a φ (optionally of some models) and their valid-answer count,
    sorted by model, face, image and scenario; ``phi`` as in :func:`read_delta`."""
    return _read(
        con,
        f"SELECT {', '.join(BASE_COLUMNS)} FROM {_source('base_phi', phi)} WHERE phi IS NOT NULL",
        models,
        "model_id, face_id, image_id, scenario_id",
    )


@contextmanager
def phi_computed_once(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Within the block, every read of the ``phi`` view (``delta`` joins it twice, ``base_phi``
    reads it again, the placebo rows once more) uses one aggregation of the judgments.

    A temporary table named ``phi`` holds the view's rows: DuckDB resolves names in the ``temp``
    schema before ``main``, so the views built on ``phi`` read the table (same rows, same columns).
    It is dropped when the block ends, also on error.
    """
    con.execute("CREATE OR REPLACE TEMP TABLE phi AS SELECT * FROM main.phi")
    try:
        yield
    finally:
        con.execute("DROP TABLE IF EXISTS temp.phi")
