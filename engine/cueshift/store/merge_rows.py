"""Copying the rows of checked databases into the merge output, in one transaction.

Rows whose key and content agree are one answer even when their provenance
(:data:`PROVENANCE_COLUMNS`: which run, when, how fast) differs — a legitimate re-run; the same
key with other content is a conflict, refused with the key named. After the inserts every
answer must name rows the output holds (:data:`ANSWER_REFERENCES`) and every key must be unique.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from cueshift.errors import CueshiftError
from cueshift.store.database import study_tables
from cueshift.store.keys import check_unique_keys
from cueshift.store.merge_checks import Columns, table_columns
from cueshift.store.transaction import transaction

#: Caches (and the identity cosines computed from them): the same key with different content in two
#: databases is not a conflict (the first row is kept), since a cached vector may differ in its last
#: bits between machines.
CACHE_TABLES: frozenset[str] = frozenset({"embedding", "image_identity"})

#: Columns that say where a row came from, not what it holds: two rows that differ only here
#: are the same answer (the first is kept). A key column is never provenance.
PROVENANCE_COLUMNS: frozenset[str] = frozenset({"run_id", "created_at", "latency_ms"})

#: Columns of the answer tables that name a row of another table (the schema declares no foreign
#: key on them, for speed): a merged answer must refer to rows the merged database holds, which
#: also catches an input whose columns were filled in the wrong order (image ids as scenarios).
ANSWER_REFERENCES: dict[str, tuple[tuple[str, str, str], ...]] = {
    "judgment": (
        ("model_id", "model", "model_id"),
        ("image_id", "image", "image_id"),
        ("scenario_id", "scenario", "scenario_id"),
        ("ordering", "prompt_variant", "ordering"),
        ("run_id", "run", "run_id"),
    ),
    "pairwise_trial": (
        ("model_id", "model", "model_id"),
        ("left_image_id", "image", "image_id"),
        ("right_image_id", "image", "image_id"),
        ("run_id", "run", "run_id"),
    ),
}


def merge_all(
    con: duckdb.DuckDBPyConnection, inputs: list[Path], expected: dict[str, Columns]
) -> dict[str, int]:
    """Attach the inputs read-only and insert every table's missing keys into ``con``'s database.

    Parameters
    ----------
    con
        The open output database.
    inputs
        The checked input databases.
    expected
        The data tables to merge and their columns.

    Returns
    -------
    dict of str to int
        How many rows each table gained (0 where the output held every key).

    Raises
    ------
    CueshiftError
        A key with different content in two databases, a dangling reference or a repeated key;
        the transaction is rolled back.
    """
    for i, path in enumerate(inputs):
        quoted = Path(path).as_posix().replace("'", "''")
        con.execute(f"ATTACH '{quoted}' AS shard_{i} (READ_ONLY)")
    added: dict[str, int] = {}
    with transaction(con):
        for table in study_tables(con):
            if table.name in expected:
                inputs_columns = [
                    set(table_columns(con, f"shard_{i}", table.name)) for i in range(len(inputs))
                ]
                added[table.name] = _merge_table(con, table.name, list(table.key), inputs_columns)
        _check_references(con)
        check_unique_keys(con)  # the output's own rows: the inserts above add each key once
    return added


def _check_references(con: duckdb.DuckDBPyConnection) -> None:
    """Refuse the merge if an answer names a model, image, scenario, ordering or run not stored."""
    for table, references in ANSWER_REFERENCES.items():
        for column, target, target_column in references:
            dangling = con.execute(
                f'SELECT a."{column}" FROM main.{table} AS a '
                f'ANTI JOIN main.{target} AS t ON a."{column}" = t."{target_column}" LIMIT 1'
            ).fetchall()
            if dangling:
                raise CueshiftError(
                    f"merge: table {table}, column {column}: {dangling[0][0]!r} is no {target} of the "
                    "merged databases (an input with columns filled in the wrong order?)"
                )


def _merge_table(
    con: duckdb.DuckDBPyConnection, table: str, key: list[str], inputs_columns: list[set[str]]
) -> int:
    """Insert the rows of ``table`` from every input whose key the output lacks; returns how many."""
    columns = list(table_columns(con, con.execute("SELECT current_database()").fetchall()[0][0], table))
    select = ", ".join(f'"{c}"' for c in columns)

    def by_name(present: set[str]) -> str:  # an input's column order is irrelevant
        return ", ".join(f'"{c}"' if c in present else f'NULL AS "{c}"' for c in columns)

    union = " UNION ALL ".join(
        f"SELECT {by_name(present)}, {i + 1} AS __source FROM shard_{i}.main.{table}"
        for i, present in enumerate(inputs_columns)
        if present  # an input without the table (added without a schema version) adds no rows
    )
    if not union:
        return 0
    key_list = ", ".join(f'"{k}"' for k in key)
    content = [c for c in columns if c in key or c not in PROVENANCE_COLUMNS]
    if table not in CACHE_TABLES and len(key) < len(content):
        content_list = ", ".join(f'"{c}"' for c in content)
        every_row = f"{union} UNION ALL SELECT {select}, 0 AS __source FROM main.{table}"
        clashes = con.execute(
            f"SELECT {key_list} FROM (SELECT DISTINCT {content_list} FROM ({every_row})) "
            f"GROUP BY {key_list} HAVING count(*) > 1 LIMIT 1"
        ).fetchall()
        if clashes:
            raise CueshiftError(
                f"merge: table {table} has key {dict(zip(key, clashes[0], strict=True))} "
                "with different content in two databases"
            )
    on = " AND ".join(f't."{k}" = s."{k}"' for k in key)
    before = _count(con, table)
    con.execute(
        f"INSERT INTO main.{table} ({select}) "
        f"SELECT {select} FROM (SELECT *, row_number() OVER (PARTITION BY {key_list} ORDER BY __source) "
        f"AS __n FROM ({union})) AS s WHERE __n = 1 "
        f"AND NOT EXISTS (SELECT 1 FROM main.{table} AS t WHERE {on})"
    )
    return _count(con, table) - before


def _count(con: duckdb.DuckDBPyConnection, table: str) -> int:
    rows = con.execute(f"SELECT count(*) FROM main.{table}").fetchall()
    return int(rows[0][0])
