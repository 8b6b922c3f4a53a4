"""Merging study databases (the shards of ``cueshift infer --shard K/N``) into one.

Every data table of the schema is merged — judgments, two-image trials, ratings, human means,
the dimension tables, run records, the embedding cache — as the database's catalog lists them
(:func:`~cueshift.store.database.study_tables`), so a table added to ``sql/schema.sql`` is
merged without a change here. Result tables are not merged: ``cueshift analyze`` recomputes
them from the merged data.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from cueshift.errors import CueshiftError
from cueshift.store.database import SCHEMA_VERSION, open_study, study_tables

#: Caches: the same key with different content in two databases is not a conflict (the first
#: row is kept), since a cached vector may differ in its last bits between machines.
CACHE_TABLES: frozenset[str] = frozenset({"embedding"})


def merge_databases(output: Path, inputs: list[Path]) -> dict[str, int]:
    """Merge study databases into ``output`` (created if needed) in one transaction.

    Rows already in ``output`` are kept; a key present with different content in two
    inputs (or in an input and the output) is an error and nothing is written.

    Parameters
    ----------
    output
        The database merged into.
    inputs
        Databases of the same schema version (e.g. the shard files of one study).

    Returns
    -------
    dict of str to int
        Rows added per table.

    Raises
    ------
    CueshiftError
        A missing input, an input that is the output, an input of another schema version,
        or conflicting rows.
    """
    for path in inputs:
        if not Path(path).is_file():
            raise CueshiftError(f"{path}: no such database to merge")
        if Path(path).resolve() == Path(output).resolve():
            raise CueshiftError(f"{path}: cannot merge a database into itself")
    con = open_study(output)
    added: dict[str, int] = {}
    try:
        for i, path in enumerate(inputs):
            con.execute(f"ATTACH '{Path(path).as_posix()}' AS shard_{i} (READ_ONLY)")
            _check_version(con, f"shard_{i}", path)
        con.execute("BEGIN TRANSACTION")
        try:
            for table in study_tables(con):
                added[table.name] = _merge_table(con, table.name, list(table.key), len(inputs))
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    finally:
        con.close()
    return added


def _check_version(con: duckdb.DuckDBPyConnection, alias: str, path: Path) -> None:
    tables = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND table_name = 'cueshift_meta'",
        [alias],
    ).fetchall()
    stored = None
    if tables[0][0]:
        rows = con.execute(
            f"SELECT value FROM {alias}.main.cueshift_meta WHERE key = 'schema_version'"
        ).fetchall()
        stored = rows[0][0] if rows else None
    if stored != SCHEMA_VERSION:
        found = f"schema version {stored}" if stored else "no cueshift schema version"
        raise CueshiftError(
            f"{path}: the database has {found}; merging needs schema version {SCHEMA_VERSION}"
        )


def _merge_table(con: duckdb.DuckDBPyConnection, table: str, key: list[str], n_inputs: int) -> int:
    """Insert the rows of ``table`` from every input whose key the output lacks; returns how many."""
    columns = [r[0] for r in con.execute(f"DESCRIBE main.{table}").fetchall()]
    select = ", ".join(columns)
    union = " UNION ALL ".join(f"SELECT {select} FROM shard_{i}.main.{table}" for i in range(n_inputs))
    key_list = ", ".join(key)
    if table not in CACHE_TABLES and len(key) < len(columns):
        distinct_rows = f"SELECT DISTINCT * FROM ({union} UNION ALL SELECT {select} FROM main.{table})"
        clashes = con.execute(
            f"SELECT {key_list} FROM ({distinct_rows}) GROUP BY {key_list} HAVING count(*) > 1 LIMIT 1"
        ).fetchall()
        if clashes:
            raise CueshiftError(
                f"merge: table {table} has key {dict(zip(key, clashes[0], strict=True))} "
                "with different content in two databases"
            )
    on = " AND ".join(f"t.{k} = s.{k}" for k in key)
    before = _count(con, table)
    con.execute(
        f"INSERT INTO main.{table} ({select}) "
        f"SELECT {select} FROM (SELECT *, row_number() OVER (PARTITION BY {key_list}) AS __n "
        f"FROM ({union}) ) AS s WHERE __n = 1 "
        f"AND NOT EXISTS (SELECT 1 FROM main.{table} AS t WHERE {on})"
    )
    return _count(con, table) - before


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    rows = con.execute(f"SELECT count(*) FROM main.{table}").fetchall()
    return int(rows[0][0])
