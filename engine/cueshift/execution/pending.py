"""What a run has to ask: per model and unit kind, the units not stored yet and not given up on."""

from __future__ import annotations

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.work import UnitKind, Workload
from cueshift.execution.executor import Executor
from cueshift.execution.failures import FailureTally, drop_given_up
from cueshift.execution.shard import Shard
from cueshift.study.config import ModelConfig


def pending_units(
    con: duckdb.DuckDBPyConnection,
    executor: Executor,
    models: list[ModelConfig],
    workload: Workload,
    *,
    shard: Shard,
    max_failed_runs: int,
    tally: FailureTally,
) -> list[list[pl.DataFrame]]:
    """Per model, per unit kind of ``workload``: the shard's units not stored yet, less those that
    failed in ``max_failed_runs`` runs (counted in ``tally.given_up``)."""
    pending = []
    for model in models:
        per_model = []
        for kind in workload.units:
            units = shard.keep(executor.units(model, kind), kind.shard_by)
            missing = missing_units(con, kind, units, model.model_id)
            missing, given_up = drop_given_up(con, kind, missing, model.model_id, max_failed_runs)
            tally.given_up += given_up
            per_model.append(missing)
        pending.append(per_model)
    return pending


def missing_units(
    con: duckdb.DuckDBPyConnection, kind: UnitKind, units: pl.DataFrame, model_id: str
) -> pl.DataFrame:
    """The units of one model not stored yet, in the design's order, with the columns the backend gets.

    The anti-join runs inside DuckDB: stored answers are never pulled into Python.
    """
    key = [column for column in kind.key if column != kind.model_column]
    columns = list(kind.columns) if kind.columns is not None else units.columns
    con.register("cueshift_wanted", units.with_row_index("__order").to_arrow())
    try:
        missing = store.query(
            con,
            f"""
            SELECT w.* FROM cueshift_wanted AS w
            ANTI JOIN (SELECT {", ".join(key)} FROM {kind.table} WHERE {kind.model_column} = ?) AS s
                USING ({", ".join(key)})
            ORDER BY w.__order
            """,
            [model_id],
        )
    finally:
        con.unregister("cueshift_wanted")
    return missing.drop("__order").cast(units.schema).select(columns)


def count_stored(con: duckdb.DuckDBPyConnection, tables: list[str]) -> int:
    """The rows of ``tables`` together."""
    return sum(int(con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]) for table in tables)


__all__ = ["count_stored", "missing_units", "pending_units"]
