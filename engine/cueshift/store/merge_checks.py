"""The checks ``cueshift merge`` runs on every database before the output is opened for writing.

Each input (and an existing output) is opened read-only and must be a whole DuckDB file of this
schema version whose every data table has the output's columns, matched by name, never by
position; all of them must record one and the same study (:mod:`cueshift.store.fingerprint`).
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from cueshift.errors import CueshiftError
from cueshift.store.damage import verify_blocks
from cueshift.store.database import check_schema_version, sql_text, study_tables
from cueshift.store.files import check_existing_database, connect
from cueshift.store.fingerprint import StudyFingerprint, database_fingerprints

Columns = dict[str, tuple[str, bool]]  # column name -> (DuckDB type, nullable)


#: Tables added to ``schema.sql`` without a new schema version (created where missing on open):
#: an input written before one was added lacks it and merges as if it were empty.
ADDED_WITHOUT_VERSION: frozenset[str] = frozenset({"generation", "face_detection", "audit_skin_tone"})


def expected_tables() -> dict[str, Columns]:
    """The data tables of this cueshift's schema and their columns (from an in-memory database).

    Returns
    -------
    dict of str to Columns
        Each data table's columns, in schema order.
    """
    con = duckdb.connect(":memory:")
    try:
        con.execute(sql_text("schema.sql"))
        return {table.name: table_columns(con, "memory", table.name) for table in study_tables(con)}
    finally:
        con.close()


def check_input(path: Path, expected: dict[str, Columns]) -> set[StudyFingerprint]:
    """Check one database read-only: its schema version and every table's columns by name.

    Parameters
    ----------
    path
        The database file.
    expected
        The output's tables and columns (:func:`expected_tables`).

    Returns
    -------
    set of StudyFingerprint
        The studies its run records name.

    Raises
    ------
    CueshiftError
        A damaged or foreign file, another schema version, a missing table or other columns.
    """
    check_existing_database(path)
    con = connect(path, read_only=True)
    try:
        database = con.execute("SELECT current_database()").fetchall()[0][0]
        check_schema_version(con, path, database)
        for table, columns in expected.items():
            found = table_columns(con, database, table)
            if not found and table in ADDED_WITHOUT_VERSION:
                continue  # a database written before the table existed: it holds no rows of it
            if not found:
                raise CueshiftError(f"{path}: table {table} is missing")
            problem = _column_difference(found, columns)
            if problem:
                raise CueshiftError(f"{path}: table {table}: {problem}")
        verify_blocks(con, path)  # a damaged data block: refused before the output is opened
        return database_fingerprints(con)
    except duckdb.Error as exc:
        raise CueshiftError(f"{path}: unreadable database: {str(exc).splitlines()[0]}") from None
    finally:
        con.close()


def check_one_study(fingerprints: dict[Path, set[StudyFingerprint]]) -> None:
    """Every database with run records must record one and the same study.

    Raises
    ------
    CueshiftError
        A database holding runs of two studies, or two databases of different studies.
    """
    first: tuple[Path, StudyFingerprint] | None = None
    for path, found in fingerprints.items():
        if len(found) > 1:
            listed = ", ".join(str(f) for f in sorted(found))
            raise CueshiftError(f"{path}: holds runs of more than one study ({listed}); merge refused")
        for fingerprint in found:
            if first is None:
                first = (path, fingerprint)
            elif fingerprint != first[1]:
                raise CueshiftError(
                    f"{path}: {fingerprint}, but {first[0]} holds {first[1]}: "
                    "only databases of one study merge"
                )


def table_columns(con: duckdb.DuckDBPyConnection, database: str, table: str) -> Columns:
    """The columns of ``database.main.table`` in order (empty when the table is missing)."""
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
