"""The ``result_manifest`` of a run of some analyses (``run_suite(only=...)``): its own rows, and the
stored rows of the analyses it was not asked to run, so every table it leaves untouched keeps the
row that says how it was computed (its test, interval, level, seed), which the report's notes and
labels read. An analysis it was asked to run but skipped (not applicable, or an option such as
``--audit`` left out) loses its row, as before: its earlier table is no result of these settings.

A full run writes every row itself (and drops the tables it did not write); a subset run used to
replace the manifest by its own rows, leaving the other tables with none: their notes then named
``analyze``'s default test and level, whatever the run that made them used.
"""

from __future__ import annotations

from collections.abc import Sequence

import duckdb
import polars as pl

#: The manifest's table.
MANIFEST = "result_manifest"


def with_earlier_rows(
    con: duckdb.DuckDBPyConnection, manifest: pl.DataFrame, asked: Sequence[str], order: Sequence[str]
) -> pl.DataFrame:
    """``manifest`` (the rows of a run ``asked`` to run some analyses) and the stored manifest rows
    of the analyses not ``asked`` whose tables are still stored, in ``order`` (the suite's
    analyses; others last).

    A stored manifest of other columns (an older result schema) gives none of its rows: its tables
    are refused as stale by their readers all the same.
    """
    stored_tables = {
        str(r[0])
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
        ).fetchall()
    }
    if MANIFEST not in stored_tables:
        return manifest
    stored: pl.DataFrame = con.sql(f"SELECT * FROM {MANIFEST}").pl()
    if set(stored.columns) != set(manifest.columns):
        return manifest
    earlier = stored.filter(~pl.col("name").is_in(list(asked)), pl.col("table").is_in(sorted(stored_tables)))
    merged = pl.concat([manifest, earlier.select(manifest.columns).cast(manifest.schema)])
    rank = {name: i for i, name in enumerate(order)}
    position = pl.col("name").replace_strict(rank, default=len(rank), return_dtype=pl.Int64)
    return merged.sort(position, maintain_order=True)


__all__ = ["with_earlier_rows"]
