"""Result tables: ``result_<name>`` frames replaced together, all or nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import duckdb
import polars as pl

from cueshift.store.transaction import transaction


def replace_results(
    con: duckdb.DuckDBPyConnection, frames: Mapping[str, pl.DataFrame], *, drop: Sequence[str] = ()
) -> list[str]:
    """Replace the table ``result_<name>`` by each frame, in one transaction; returns the table names.

    A result table holds the output of the latest analysis only: an earlier table of the same
    name is dropped with its columns (a table whose columns changed is simply recreated). The
    tables named in ``drop`` (full names, ``result_<name>``) are dropped in the same transaction.
    """
    tables = []
    with transaction(con):
        for table in drop:
            con.execute(f'DROP TABLE IF EXISTS "{table}"')
        for name, frame in frames.items():
            arrow = frame.to_arrow()  # noqa: F841  (read by name in SQL)
            table = f"result_{name}"
            con.execute(f'CREATE OR REPLACE TABLE "{table}" AS SELECT * FROM arrow')
            tables.append(table)
    return tables
