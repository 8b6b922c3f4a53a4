"""A damaged study database met while its rows are read, as the project's one line naming the file.

DuckDB checks a data block's checksum only when the block is read, so a file with a flipped bit
opens fine and fails in the middle of a query, with DuckDB's own "Corrupt database file" error
(which names no file). Three things turn that into one line naming the database:

* :func:`reading`: around reads whose database is known, raises :class:`CueshiftError` with
  :func:`unreadable`'s line.
* :func:`remember` / :func:`database_error_line`: every study database this process opens is
  remembered (:func:`cueshift.store.files.connect` and the other openers), so the command line's
  error guard and the Python API name the file of an error raised anywhere else.
* :func:`verify_blocks` and :func:`verify_indexes`: before a command first writes into a database,
  every value of every table is read once and every key looked up in its index, so a damaged block
  is found while nothing has been written.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Final

import duckdb

from cueshift.errors import CueshiftError

#: What DuckDB says of a block it cannot trust: a checksum, a short read, undecodable metadata.
DAMAGE_MARKS: Final[tuple[str, ...]] = (
    "Corrupt database file",
    "Could not read enough bytes",
    "Failed to deserialize",
)
#: What a user does about a damaged database.
RESTORE: Final[str] = "restore it from a copy (or re-run the study into a new file)"

_opened: list[Path] = []  # the study databases this process opened, the latest last


def remember(path: str | Path) -> None:
    """Note ``path`` as the study database now being read (:func:`database_error_line` names it)."""
    path = Path(path)
    if path in _opened:
        _opened.remove(path)
    _opened.append(path)
    del _opened[:-8]


def is_damage(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB's report of a damaged file (:data:`DAMAGE_MARKS`).

    >>> is_damage(duckdb.Error("Corrupt database file: computed checksum 1 does not match stored checksum 2"))
    True
    >>> is_damage(duckdb.Error("Binder Error: no such column"))
    False
    """
    return isinstance(exc, duckdb.Error) and any(mark in str(exc) for mark in DAMAGE_MARKS)


def unreadable(paths: Sequence[str | Path], exc: BaseException, outcome: str = RESTORE) -> str:
    """The one line of a database DuckDB stopped reading: the file(s), what DuckDB said, ``outcome``.

    >>> unreadable(["runs/a.duckdb"], duckdb.Error("Corrupt database file: checksum\\nmore"), "x")
    'runs/a.duckdb: damaged database (Corrupt database file: checksum); x'
    >>> unreadable(["a.duckdb", "b.duckdb"], duckdb.Error("IO Error: x"), "out.duckdb was not written")
    'one of a.duckdb, b.duckdb: cannot read the database (IO Error: x); out.duckdb was not written'
    """
    named = str(paths[0]) if len(paths) == 1 else "one of " + ", ".join(str(p) for p in paths)
    what = "damaged database" if is_damage(exc) else "cannot read the database"
    return f"{named}: {what} ({first_line(exc)}); {outcome}"


def database_error_line(exc: BaseException) -> str:
    """The line of a DuckDB error met outside :func:`reading`: a damaged file named by the database
    this process opened last (:func:`remember`), any other error as ``database: <first line>``.
    A failed ROLLBACK ("no transaction is active": DuckDB had aborted the transaction already)
    stands for the error it hides, which is the one named."""
    while "no transaction is active" in str(exc) and exc.__context__ is not None:
        exc = exc.__context__
    if is_damage(exc) and _opened:
        return unreadable([_opened[-1]], exc)
    return f"database: {first_line(exc)}"


@contextmanager
def reading(path: str | Path, outcome: str = RESTORE) -> Iterator[None]:
    """Raise a damaged block met inside as :class:`CueshiftError` naming ``path``; other errors pass."""
    try:
        yield
    except duckdb.Error as exc:
        if not is_damage(exc):
            raise
        raise CueshiftError(unreadable([path], exc, outcome)) from None


def verify_blocks(con: duckdb.DuckDBPyConnection, path: Path, catalog: str | None = None) -> None:
    """Read every value of every table of ``catalog`` (None: the connection's own file) once.

    DuckDB verifies each block's checksum as it reads it, so a damaged data block is refused
    here, before a command writes anything, instead of in the middle of its work.

    Raises
    ------
    CueshiftError
        A block failed its checksum (or could not be read): the line names ``path``; nothing written.
    """
    where = "current_database()" if catalog is None else "?"
    params = [] if catalog is None else [catalog]
    tables = con.execute(
        f"SELECT database_name, schema_name, table_name FROM duckdb_tables() WHERE database_name = {where}",
        params,
    ).fetchall()
    with reading(path, f"nothing was written; {RESTORE}"):
        for names in tables:
            table = ".".join('"' + str(name).replace('"', '""') + '"' for name in names)
            con.execute(f"SELECT sum(hash(t)) FROM {table} AS t").fetchall()  # every column of every row


def verify_indexes(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Look every key of every keyed table up in its index (primary keys are stored in blocks of their
    own, which a scan never reads), on the connection that will write, in a transaction rolled back.

    Raises
    ------
    CueshiftError
        A block of an index failed its checksum: the line names ``path``; nothing written.
    """
    keyed = con.execute(
        "SELECT DISTINCT schema_name, table_name FROM duckdb_constraints() "
        "WHERE database_name = current_database() AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')"
    ).fetchall()
    if not keyed:
        return
    with reading(path, f"nothing was written; {RESTORE}"):
        con.execute("BEGIN TRANSACTION")
        try:
            for names in keyed:
                table = ".".join('"' + str(name).replace('"', '""') + '"' for name in names)
                con.execute(f"INSERT INTO {table} SELECT * FROM {table} ON CONFLICT DO NOTHING")
        finally:
            with suppress(duckdb.Error):  # a failed statement may have ended the transaction already
                con.execute("ROLLBACK")


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (its type's name when it has none)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
