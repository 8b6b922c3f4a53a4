"""Requests a backend gave up on: the ``request_failure`` table (one row per unit and run).

A unit (a judgment, a two-image trial, a rating) whose request failed is not stored in its
answer table, so every later run plans it again. Each run that fails it adds a row here
with its attempts and last error; once a unit has failed in ``max_failed_runs`` runs it is
no longer planned but reported (a request that always fails would otherwise be asked, and
wait out its retries, on every run forever). A unit is named by its table and its key
columns besides the model, encoded by :func:`unit_keys` the same way everywhere.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import duckdb
import polars as pl

from cueshift.store.database import query


def unit_keys(units: pl.DataFrame, key: Sequence[str]) -> pl.Series:
    """The ``unit_key`` of each row of ``units``: its ``key`` columns as one JSON object."""
    if units.height == 0:
        return pl.Series("unit_key", [], dtype=pl.String)
    return units.select(pl.struct(list(key)).struct.json_encode().alias("unit_key")).to_series()


def failure_frame(
    model_id: str,
    unit_table: str,
    keys: pl.Series,
    attempts: Sequence[int],
    errors: Sequence[str],
    run_id: str,
) -> pl.DataFrame:
    """Rows of ``request_failure`` for the units ``keys`` that failed in run ``run_id``."""
    n = keys.len()
    return pl.DataFrame(
        {
            "model_id": [model_id] * n,
            "unit_table": [unit_table] * n,
            "unit_key": keys.cast(pl.String),
            "run_id": [run_id] * n,
            "attempts": pl.Series(list(attempts), dtype=pl.Int32),
            "error": pl.Series([e.replace("\n", " ") or "no answer" for e in errors], dtype=pl.String),
            "failed_at": pl.Series([dt.datetime.now()] * n, dtype=pl.Datetime("us")),
        }
    )


def failed_units(con: duckdb.DuckDBPyConnection, model_id: str, unit_table: str) -> pl.DataFrame:
    """Per failed unit of one model and table: ``unit_key``, ``n_runs`` (runs it failed in),
    ``attempts`` (in all) and the ``last_error``."""
    return query(
        con,
        """
        SELECT unit_key, count(DISTINCT run_id) AS n_runs, sum(attempts) AS attempts,
               arg_max(error, failed_at) AS last_error
        FROM request_failure WHERE model_id = ? AND unit_table = ?
        GROUP BY unit_key ORDER BY unit_key
        """,
        [model_id, unit_table],
    )


__all__ = ["failed_units", "failure_frame", "unit_keys"]
