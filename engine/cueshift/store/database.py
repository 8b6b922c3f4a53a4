"""The study database file: opening it with its tables and views in place, its schema version,
queries, and what its catalog says about the tables (:func:`study_tables`)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import duckdb
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.store.damage import remember, verify_blocks, verify_indexes
from cueshift.store.damage_checksums import verify_checksums
from cueshift.store.files import (
    check_database_path,
    check_existing_database,
    close_quietly,
    connect,
    probe_connection,
    remove_database,
)
from cueshift.store.keys import UNINDEXED_KEYS
from cueshift.store.snapshot import readable, tell_reader

#: Version of ``sql/schema.sql``; bump it with any change to a table, and say how to migrate.
#: 3: judgment.invalid_reason; 4: judgment without a primary-key index; 5: the person table
#: ``identity`` (key ``identity_id``, also ``image.identity_id``) renamed ``face`` (``face_id``).
SCHEMA_VERSION = "5"
#: Older versions ``cueshift upgrade`` brings to :data:`SCHEMA_VERSION` (``store/upgrade.py``).
UPGRADABLE_VERSIONS: tuple[str, ...] = ("2", "3", "4")

#: Views in dependency order; each lives in ``sql/views/<name>.sql``.
VIEWS: tuple[str, ...] = (
    "phi",
    "base_phi",
    "delta",
    "invalid_answers",
    "invalid_texts",
    "edit_verdict",
)
#: Table macros after the views, each file in ``sql/views/<name>.sql``: ``phi_at(T)``,
#: ``delta_at(T)`` and ``base_phi_at(T)`` (φ with answers drawn at temperature T).
MACRO_FILES: tuple[str, ...] = ("phi_at", "delta_at")


def sql_text(relative: str) -> str:
    """Read a file of the ``sql/`` folder (e.g. ``'views/phi.sql'``)."""
    return resources.files("cueshift.sql").joinpath(relative).read_text(encoding="utf-8")


def open_study(
    path: str | Path, *, read_only: bool = False, announce: bool = True
) -> duckdb.DuckDBPyConnection:
    """Open (creating if needed) a study database with its tables and views in place.

    Everything is checked before the file is opened for writing (:mod:`cueshift.store.files`):
    a damaged, truncated or foreign file, a file of another schema version, a data block that
    fails its checksum (every table read once, :func:`~cueshift.store.damage.verify_blocks`; every
    other block's checksum recomputed from the file, :mod:`~cueshift.store.damage_checksums`), or
    a folder that cannot be written is refused with one line, and the file is left byte for byte
    as it was.
    Read-only, a database that a running ``cueshift infer`` holds is read from its snapshot
    (:mod:`cueshift.store.snapshot`), and stderr says which (unless not ``announce``: a check
    before the command's real work). Read-write, a current database keeps its bytes until written.
    """
    path = Path(path)
    if read_only:
        if not path.exists():
            raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
        source, snapshot = readable(path)  # a running infer's snapshot while it holds the file
        check_existing_database(source)
        con = connect(source, read_only=True)
        remember(path)  # named, not its snapshot, when a damaged block is met later
        try:
            check_schema_version(con, path)
        except BaseException:
            con.close()
            raise
        if announce:
            tell_reader(snapshot, con)
        return con
    existed = check_database_path(path)
    probe = probe_connection(path) if existed else None
    if probe is not None:
        try:
            check_schema_version(probe, path)
            verify_blocks(probe, path)  # a damaged data block: refused before the first write
            verify_checksums(probe, path)  # and every other block (index, metadata, free): D79
        finally:
            probe.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        con = connect(path, read_only=False)
        try:
            check_schema_version(con, path)
            if existed:
                verify_indexes(con, path)  # key blocks, which no scan reads: before the first write
            con.execute(sql_text("schema.sql"))  # CREATE ... IF NOT EXISTS: a whole file keeps its bytes
            refresh_views(con)
        except BaseException:
            close_quietly(con)
            raise
    except BaseException:
        if not existed:  # e.g. a full disk: no half-made database left behind
            remove_database(path)
        raise
    return con


def quote_identifier(name: str) -> str:
    """``name`` as a quoted SQL identifier (a file's catalog is named after it: '-', spaces, quotes).

    >>> quote_identifier('old-v3')
    '"old-v3"'
    """
    return '"' + name.replace('"', '""') + '"'


def check_schema_version(con: duckdb.DuckDBPyConnection, path: Path, catalog: str | None = None) -> None:
    """Refuse a database written by another version of ``sql/schema.sql``, naming the remedy.

    ``catalog`` is the name the database is attached under (None: the connection's own file).
    A database without tables is new and passes.
    """
    where, params = ("", []) if catalog is None else (" WHERE database_name = ?", [catalog])
    tables = {
        row[0] for row in con.execute(f"SELECT table_name FROM duckdb_tables(){where}", params).fetchall()
    }
    if not tables:
        return
    if "cueshift_meta" not in tables:
        raise CueshiftError(f"{path}: not a cueshift study database (no cueshift schema version)")
    # a file's catalog is named after it, and a file name may hold '-', spaces or quotes
    meta = "cueshift_meta" if catalog is None else f"{quote_identifier(catalog)}.cueshift_meta"
    rows = con.execute(f"SELECT value FROM {meta} WHERE key = 'schema_version'").fetchall()
    stored = rows[0][0] if rows else None
    if stored != SCHEMA_VERSION:
        found = f"schema version {stored}" if stored else "no cueshift schema version"
        if stored in UPGRADABLE_VERSIONS:
            advice = (
                f"run `cueshift upgrade --db {shlex.quote(str(path))}` to upgrade it (every judgment kept)"
            )
        else:
            advice = (
                "use a new database file (or re-run the study into one); `cueshift upgrade` handles versions "
            )
            advice += ", ".join(UPGRADABLE_VERSIONS)
        writes = f"this cueshift reads and writes schema version {SCHEMA_VERSION}"
        raise CueshiftError(f"{path}: the database has {found}; {writes}: {advice}")


def query(con: duckdb.DuckDBPyConnection, sql: str, params: list[object] | None = None) -> pl.DataFrame:
    """Run a query and return its result as a polars frame."""
    frame: pl.DataFrame = con.sql(sql, params=params).pl()
    return frame


def create_views(con: duckdb.DuckDBPyConnection) -> None:
    """(Re)create every view of ``sql/views/`` in dependency order."""
    for name in (*VIEWS, *MACRO_FILES):
        con.execute(sql_text(f"views/{name}.sql"))


def refresh_views(con: duckdb.DuckDBPyConnection) -> None:
    """:func:`create_views`, committed only where a view or macro differs from ``sql/views/``.

    ``CREATE OR REPLACE VIEW`` rewrites the catalog even when nothing changes, and closing the
    connection then checkpoints new bytes into the file: a command that opened a current database
    and failed would have changed it. The views are recreated in a transaction that is rolled
    back when the catalog reads the same after it.
    """
    before = _view_catalog(con)
    con.execute("BEGIN TRANSACTION")
    try:
        create_views(con)
        changed = _view_catalog(con) != before
    except BaseException:
        con.execute("ROLLBACK")
        raise
    con.execute("COMMIT" if changed else "ROLLBACK")


def _view_catalog(con: duckdb.DuckDBPyConnection) -> list[tuple[object, ...]]:
    """The definitions of the database's own views and macros, as its catalog holds them."""
    views = con.execute(
        "SELECT view_name, sql FROM duckdb_views() "
        "WHERE NOT internal AND database_name = current_database() ORDER BY view_name"
    ).fetchall()
    macros = con.execute(
        "SELECT function_name, macro_definition, parameters FROM duckdb_functions() "
        "WHERE function_type IN ('macro', 'table_macro') AND NOT internal "
        "AND database_name = current_database() ORDER BY function_name"
    ).fetchall()
    return [*views, *macros]


@dataclass(frozen=True)
class StoredTable:
    """A table of the study database: its name, primary key and the tables its rows refer to."""

    name: str
    key: tuple[str, ...]
    references: tuple[str, ...]


def study_tables(con: duckdb.DuckDBPyConnection, schema: str = "main") -> list[StoredTable]:
    """Every data table of ``schema`` (not ``cueshift_meta``, not the ``result_*`` tables), referenced
    tables before the tables that refer to them, otherwise in creation order.

    A table without a primary key is keyed by :data:`~cueshift.store.keys.UNINDEXED_KEYS`, else by
    all its columns.
    """
    names = [
        row[0]
        for row in con.execute(
            "SELECT table_name FROM duckdb_tables() "
            "WHERE schema_name = ? AND database_name = current_database() "
            "AND table_name <> 'cueshift_meta' AND NOT starts_with(table_name, 'result_') "
            "ORDER BY table_oid",
            [schema],
        ).fetchall()
    ]
    constraints = con.execute(
        "SELECT table_name, constraint_type, constraint_column_names, referenced_table "
        "FROM duckdb_constraints() "
        "WHERE schema_name = ? AND database_name = current_database() "
        "AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')",
        [schema],
    ).fetchall()
    keys = dict(UNINDEXED_KEYS) | {t: tuple(c) for t, kind, c, _ in constraints if kind == "PRIMARY KEY"}
    refs: dict[str, set[str]] = {}
    for table, kind, _, referenced in constraints:
        if kind == "FOREIGN KEY" and referenced:
            refs.setdefault(table, set()).add(referenced)
    ordered: list[StoredTable] = []
    placed: set[str] = set()
    while len(ordered) < len(names):
        ready = [n for n in names if n not in placed and refs.get(n, set()) <= placed | {n}]
        if not ready:  # a reference cycle: keep creation order
            ready = [n for n in names if n not in placed]
        for name in ready:
            if name not in keys:
                columns = con.execute(
                    "SELECT column_name FROM duckdb_columns() WHERE schema_name = ? AND table_name = ? "
                    "AND database_name = current_database() ORDER BY column_index",
                    [schema, name],
                ).fetchall()
                keys[name] = tuple(c[0] for c in columns)
            ordered.append(StoredTable(name, keys[name], tuple(sorted(refs.get(name, set())))))
            placed.add(name)
    return ordered
