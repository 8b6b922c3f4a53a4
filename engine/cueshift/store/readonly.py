"""Ad-hoc SQL on a study database that cannot change anything or reach anything else.

``cueshift sql`` is for looking at results. Two independent fences keep it that way:

1. **The connection.** The database is opened read-only with external access off (no file,
   network or other database can be read, written or attached), extensions neither
   auto-installed nor auto-loaded, Python replacement scans off, and the configuration
   locked, so no ``SET``/``RESET``/``PRAGMA`` can lift any of it.
2. **The statement.** DuckDB's own parser splits the text (:func:`duckdb.extract_statements`);
   exactly one statement is run, and only of a kind that reads (:data:`QUERY_KINDS`, or ``EXPLAIN`` of one).

Results whose columns have no flat form (lists, structs, maps, unions, intervals, blobs ...)
are returned as text, so every result prints, and writes to CSV and Parquet alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Final

import duckdb
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.store.damage import is_damage, remember, unreadable
from cueshift.store.database import check_schema_version
from cueshift.store.files import check_existing_database
from cueshift.store.interrupts import prompt_interrupts
from cueshift.store.snapshot import readable, tell_reader

#: Settings of the connection; with ``lock_configuration`` last, none can be changed afterwards.
LOCKED_CONFIG: Final[dict[str, str | bool | int | float | list[str]]] = {
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "allow_community_extensions": False,
    "python_enable_replacements": False,
    "lock_configuration": True,
}

#: The query kinds ``cueshift sql`` runs, each also under EXPLAIN (ANALYZE); for messages and help.
QUERY_KINDS: Final[str] = "SELECT, WITH ... SELECT, VALUES, FROM-first, TABLE, DESCRIBE, SHOW or SUMMARIZE"

#: DuckDB type ids that polars, CSV and Parquet all hold as they are; any other becomes text.
_FLAT_TYPES: Final[frozenset[str]] = frozenset(
    {
        "null", "boolean", "tinyint", "smallint", "integer", "bigint", "hugeint",
        "utinyint", "usmallint", "uinteger", "ubigint", "uhugeint", "float", "double",
        "decimal", "varchar", "uuid", "enum", "date", "time", "timestamp", "timestamp_s",
        "timestamp_ms", "timestamp_ns", "timestamp with time zone",
    }
)  # fmt: skip
#: Nested type ids, written as JSON text (``to_json``).
_NESTED_TYPES: Final[frozenset[str]] = frozenset({"list", "array", "struct", "map", "union"})

_COMMENTS = r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*"
_EXPLAIN = re.compile(
    rf"^{_COMMENTS}EXPLAIN\b{_COMMENTS}(?:ANALY[SZ]E\b{_COMMENTS})?(?:\([^()]*\){_COMMENTS})?",
    re.IGNORECASE | re.DOTALL,
)


def open_locked(path: str | Path) -> duckdb.DuckDBPyConnection:
    """Open a study database read-only, with external access off and the configuration locked.

    Parameters
    ----------
    path
        The study database file.

    Returns
    -------
    duckdb.DuckDBPyConnection
        A connection whose settings (:data:`LOCKED_CONFIG`) no statement can change; while a
        running ``cueshift infer`` holds the file, to its snapshot (stderr says which).

    Raises
    ------
    CueshiftError
        The file does not exist, or DuckDB cannot open it as a database.
    """
    path = Path(path)
    if not path.is_file():
        raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
    source, snapshot = readable(path)  # while a running infer holds it: its snapshot
    check_existing_database(source)  # a SQLite or truncated file: one line, no extension download
    try:
        con = duckdb.connect(str(source), read_only=True, config=dict(LOCKED_CONFIG))
    except duckdb.Error as exc:
        raise CueshiftError(f"{path}: cannot open as a DuckDB database: {_first_line(exc)}") from None
    remember(path)  # a damaged block met by the query is named by this file
    tell_reader(snapshot, con)
    return con


def checked_statement(sql: str) -> str:
    """Return the one statement of ``sql`` if it is of an allowed kind; otherwise refuse.

    Parameters
    ----------
    sql
        The text given on the command line.

    Returns
    -------
    str
        The statement's text, as DuckDB's parser delimited it.

    Raises
    ------
    CueshiftError
        The text does not parse, holds no statement or more than one, or its statement
        (for ``EXPLAIN``: the explained statement) is not a query (:data:`QUERY_KINDS`).
    """
    statement = _one_statement(sql)
    if statement.type == duckdb.StatementType.SELECT:
        return statement.query
    if statement.type == duckdb.StatementType.EXPLAIN:
        prefix = _EXPLAIN.match(statement.query)
        inner = _one_statement(statement.query[prefix.end() :]) if prefix else None
        if inner is not None and inner.type == duckdb.StatementType.SELECT:
            return statement.query
        raise CueshiftError(
            f"sql: `cueshift sql` is read-only: EXPLAIN is allowed of a query only ({QUERY_KINDS})"
        )
    raise CueshiftError(
        f"sql: `cueshift sql` is read-only and runs one {QUERY_KINDS} statement (or EXPLAIN of one), "
        f"not {statement.type.name}; export a result with --out FILE.csv|FILE.parquet"
    )


def run_query(path: str | Path, sql: str, *, note: Callable[[str], None] | None = None) -> pl.DataFrame:
    """Run one allowed statement on a locked, read-only connection to ``path``.

    Parameters
    ----------
    path
        The study database file.
    sql
        One statement of an allowed kind (:func:`checked_statement`).
    note
        Told one line when the database has another schema version than this cueshift writes:
        the query still runs, over that version's tables and views.

    Returns
    -------
    polars.DataFrame
        The result; nested columns as JSON text, other columns without a flat form as text.

    Raises
    ------
    CueshiftError
        The statement is refused, or DuckDB reports an error (first line of its message).
    """
    statement = checked_statement(sql)
    con = open_locked(path)
    if note is not None:
        try:
            check_schema_version(con, Path(path))
        except CueshiftError as exc:
            note(f"{exc}; the query reads that version's tables and views")
    try:
        # Ctrl-C stops the statement at once (DuckDB alone may notice it minutes later)
        with prompt_interrupts(con):
            relation = con.sql(statement)
            if relation is None:
                return pl.DataFrame()
            # materialize() runs the query where it can be interrupted; .pl() alone would not stop
            frame: pl.DataFrame = _flat(relation).materialize().pl()
        return frame
    except duckdb.InterruptException:
        raise  # the caller's interrupt, not an error of the query
    except duckdb.Error as exc:
        if is_damage(exc):
            raise CueshiftError(unreadable([path], exc)) from None
        raise CueshiftError(f"sql: {_first_line(exc)}") from None
    finally:
        con.close()


def _one_statement(sql: str) -> duckdb.Statement:
    try:
        statements = duckdb.extract_statements(sql)
    except duckdb.Error as exc:
        raise CueshiftError(f"sql: {_first_line(exc)}") from None
    if not statements:
        raise CueshiftError("sql: no statement given")
    if len(statements) > 1:
        raise CueshiftError(
            f"sql: {len(statements)} statements given; `cueshift sql` is read-only and runs exactly one"
        )
    return statements[0]


def _flat(relation: duckdb.DuckDBPyRelation) -> duckdb.DuckDBPyRelation:
    """Project columns without a flat form to text: nested ones as JSON, the others cast."""
    ids = [column_type.id for column_type in relation.types]
    if all(type_id in _FLAT_TYPES for type_id in ids):
        return relation
    expressions = []
    for position, (name, type_id) in enumerate(zip(relation.columns, ids, strict=True), start=1):
        if type_id in _FLAT_TYPES:
            value = f"#{position}"
        elif type_id in _NESTED_TYPES:
            value = f"to_json(#{position})::VARCHAR"
        else:
            value = f"#{position}::VARCHAR"
        expressions.append(f'{value} AS "{name.replace(chr(34), chr(34) * 2)}"')
    return relation.project(", ".join(expressions))


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
