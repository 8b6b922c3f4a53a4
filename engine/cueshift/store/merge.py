"""Merging study databases (the shards of ``cueshift infer --shard K/N``) into one; trusts no input.

Every data table of the schema is merged — judgments, two-image trials, ratings, human means,
the dimension tables, run records, the embedding cache — as the database's catalog lists them
(:func:`~cueshift.store.database.study_tables`), so a table added to ``sql/schema.sql`` is
merged without a change here. Result tables are not merged: ``cueshift analyze`` recomputes
them from the merged data.

Before the output is opened, every input is checked read-only: a whole DuckDB file, this schema
version, the same study (name and definition hash, :mod:`cueshift.store.identity`) as the other
inputs and the output, and every table with the output's columns. Columns are matched by name,
never by position. Rows whose key and content agree are one answer even when their provenance
(:data:`PROVENANCE_COLUMNS`: which run, when, how fast) differs — a legitimate re-run; the same
key with other content is a conflict, refused with the key named. On any failure nothing is
written, and an output the merge created is removed.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from cueshift.errors import CueshiftError
from cueshift.store.database import SCHEMA_VERSION, open_study, sql_text, study_tables
from cueshift.store.files import (
    check_database_path,
    check_existing_database,
    close_quietly,
    connect,
    remove_database,
)
from cueshift.store.identity import StudyIdentity, database_identities
from cueshift.store.keys import check_unique_keys
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

Columns = dict[str, tuple[str, bool]]  # column name -> (DuckDB type, nullable)


def merge_databases(output: Path, inputs: list[Path]) -> dict[str, int]:
    """Merge study databases into ``output`` (created if needed) in one transaction.

    Rows already in ``output`` are kept; a key present with different content in two
    inputs (or in an input and the output) is an error and nothing is written.

    Parameters
    ----------
    output
        The database merged into.
    inputs
        Databases of the same schema version and study (e.g. the shard files of one study).

    Returns
    -------
    dict of str to int
        Rows added per table.

    Raises
    ------
    CueshiftError
        A missing, damaged or foreign input; an input that is the output; another schema
        version or study; a table whose columns differ by name or type; conflicting rows.
    """
    output = Path(output)
    if not inputs:
        raise CueshiftError("merge: no databases to merge")
    for path in inputs:
        if not Path(path).is_file():
            raise CueshiftError(f"{path}: no such database to merge")
        if Path(path).resolve() == output.resolve():
            raise CueshiftError(f"{path}: cannot merge a database into itself")
    expected = _expected_tables()
    identities = {Path(path): _check_input(Path(path), expected) for path in inputs}
    existed = check_database_path(output)
    if existed:
        identities[output] = _check_input(output, expected)
    _check_one_study(identities)
    con = open_study(output)
    try:
        added = _merge_all(con, inputs, expected)
        _checkpoint(con, output, existed)
    except BaseException:
        close_quietly(con)
        if not existed:
            remove_database(output)
        raise
    con.close()
    return added


def _checkpoint(con: duckdb.DuckDBPyConnection, output: Path, existed: bool) -> None:
    """Write the merge into the database file now, so a full disk is reported, not left in the WAL."""
    try:
        con.execute("CHECKPOINT")
    except duckdb.Error as exc:
        kept = (
            " (the merge is committed in its .wal file and applied when it is next opened)" if existed else ""
        )
        raise CueshiftError(
            f"{output}: cannot write the merged database: {str(exc).splitlines()[0]}{kept}"
        ) from None


def _expected_tables() -> dict[str, Columns]:
    """The data tables of this cueshift's schema and their columns (from an in-memory database)."""
    con = duckdb.connect(":memory:")
    try:
        con.execute(sql_text("schema.sql"))
        return {table.name: _columns(con, "memory", table.name) for table in study_tables(con)}
    finally:
        con.close()


def _check_input(path: Path, expected: dict[str, Columns]) -> set[StudyIdentity]:
    """Check one database read-only (version, tables, columns by name); return its study identities."""
    check_existing_database(path)
    con = connect(path, read_only=True)
    try:
        database = con.execute("SELECT current_database()").fetchall()[0][0]
        _check_version(con, database, path)
        for table, columns in expected.items():
            found = _columns(con, database, table)
            if not found:
                raise CueshiftError(f"{path}: table {table} is missing")
            problem = _column_difference(found, columns)
            if problem:
                raise CueshiftError(f"{path}: table {table}: {problem}")
        return database_identities(con)
    except duckdb.Error as exc:
        raise CueshiftError(f"{path}: unreadable database: {str(exc).splitlines()[0]}") from None
    finally:
        con.close()


def _check_one_study(identities: dict[Path, set[StudyIdentity]]) -> None:
    """Every database with run records must record one and the same study."""
    first: tuple[Path, StudyIdentity] | None = None
    for path, found in identities.items():
        if len(found) > 1:
            listed = ", ".join(str(i) for i in sorted(found))
            raise CueshiftError(f"{path}: holds runs of more than one study ({listed}); merge refused")
        for identity in found:
            if first is None:
                first = (path, identity)
            elif identity != first[1]:
                raise CueshiftError(
                    f"{path}: {identity}, but {first[0]} holds {first[1]}: only databases of one study merge"
                )


def _check_version(con: duckdb.DuckDBPyConnection, database: str, path: Path) -> None:
    has_meta = con.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE database_name = ? AND table_name = 'cueshift_meta'",
        [database],
    ).fetchall()[0][0]
    stored = None
    if has_meta:
        rows = con.execute("SELECT value FROM cueshift_meta WHERE key = 'schema_version'").fetchall()
        stored = rows[0][0] if rows else None
    if stored != SCHEMA_VERSION:
        found = f"schema version {stored}" if stored else "no cueshift schema version"
        raise CueshiftError(
            f"{path}: the database has {found}; merging needs schema version {SCHEMA_VERSION}"
        )


def _columns(con: duckdb.DuckDBPyConnection, database: str, table: str) -> Columns:
    rows = con.execute(
        "SELECT column_name, data_type, is_nullable FROM duckdb_columns() "
        "WHERE database_name = ? AND schema_name = 'main' AND table_name = ? ORDER BY column_index",
        [database, table],
    ).fetchall()
    return {str(name): (str(kind), bool(nullable)) for name, kind, nullable in rows}


def _column_difference(found: Columns, wanted: Columns) -> str:
    """What keeps ``found`` from merging by name into ``wanted`` ('' when nothing does).

    A nullable column the input lacks (added to the schema after the input was written) merges as
    NULL; a required one, an unknown one or another type is refused.
    """
    missing = [c for c, (_, nullable) in wanted.items() if c not in found and not nullable]
    extra = [c for c in found if c not in wanted]
    retyped = [
        f"{c} is {found[c][0]}, not {wanted[c][0]}"
        for c in wanted
        if c in found and found[c][0] != wanted[c][0]
    ]
    parts = [f"lacks column(s) {', '.join(missing)}"] if missing else []
    parts += [f"has unknown column(s) {', '.join(extra)}"] if extra else []
    return "; ".join(parts + retyped)


def _merge_all(
    con: duckdb.DuckDBPyConnection, inputs: list[Path], expected: dict[str, Columns]
) -> dict[str, int]:
    for i, path in enumerate(inputs):
        quoted = Path(path).as_posix().replace("'", "''")
        con.execute(f"ATTACH '{quoted}' AS shard_{i} (READ_ONLY)")
    added: dict[str, int] = {}
    with transaction(con):
        for table in study_tables(con):
            if table.name in expected:
                inputs_columns = [set(_columns(con, f"shard_{i}", table.name)) for i in range(len(inputs))]
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
    columns = list(_columns(con, con.execute("SELECT current_database()").fetchall()[0][0], table))
    select = ", ".join(f'"{c}"' for c in columns)

    def by_name(present: set[str]) -> str:  # an input's column order is irrelevant
        return ", ".join(f'"{c}"' if c in present else f'NULL AS "{c}"' for c in columns)

    union = " UNION ALL ".join(
        f"SELECT {by_name(present)}, {i + 1} AS __source FROM shard_{i}.main.{table}"
        for i, present in enumerate(inputs_columns)
    )
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
