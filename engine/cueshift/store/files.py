"""The study database file before it is opened for writing: everything checked first, so a command
that fails writes nothing.

* An existing file must be a whole DuckDB database (magic bytes, as long as its header says,
  readable read-only, of this schema version): a truncated, damaged or foreign file (a SQLite
  file named ``.duckdb``) is refused before a byte of it can change.
* A new file's folder must be creatable and writable (no file in the way, no read-only parent).
* Extensions are never installed or loaded on the way (a SQLite file would make DuckDB download
  its scanner).
"""

from __future__ import annotations

import os
from contextlib import suppress
from pathlib import Path
from typing import Final

import duckdb

from cueshift.errors import CueshiftError
from cueshift.store.damage import remember

#: Connection settings of every study database connection: no extension download or auto-load.
SAFE_CONFIG: Final[dict[str, str | bool | int | float | list[str]]] = {
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
}

#: DuckDB's magic bytes, at offset 8 of the file (after the checksum of the main header).
DUCKDB_MAGIC: Final[bytes] = b"DUCK"
_SQLITE_MAGIC: Final[bytes] = b"SQLite format 3\x00"
#: DuckDB's refusal of a read-only connection to a file this process has open read-write.
_OPEN_IN_THIS_PROCESS: Final[str] = "same database file with a different configuration"
#: A DuckDB file starts with three 4 KiB headers, then its blocks.
_HEADER_BYTES: Final[int] = 3 * 4096


def connect(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """Open ``path`` with :data:`SAFE_CONFIG`; a failure is one line naming the file."""
    try:
        con = duckdb.connect(str(path), read_only=read_only, config=dict(SAFE_CONFIG))
    except duckdb.Error as exc:
        if "Could not set lock" in str(exc):  # another process writes it (a running infer)
            raise CueshiftError(
                f"{path}: in use by another process; `cueshift status` shows a running infer's progress"
            ) from None
        raise CueshiftError(f"{path}: cannot open the database: {_first_line(exc)}") from None
    remember(path)  # a damaged block met later is named by this file (cueshift.store.damage)
    return con


def probe_connection(path: Path) -> duckdb.DuckDBPyConnection | None:
    """A read-only connection to check ``path`` before writing, or ``None`` when this process
    already holds it open read-write (DuckDB refuses a second configuration; the file was checked
    when that connection was opened)."""
    try:
        return connect(path, read_only=True)
    except CueshiftError as exc:
        if _OPEN_IN_THIS_PROCESS in str(exc):
            return None
        raise


def check_existing_database(path: Path) -> None:
    """Refuse a file that is not a whole DuckDB database, reading it only.

    Raises
    ------
    CueshiftError
        Not a regular file, a study file (``.toml``) given as the database, empty, not DuckDB
        (SQLite is named), shorter than its header says (truncated), or unreadable by DuckDB.
    """
    if not path.is_file():
        raise CueshiftError(f"{path}: not a regular file")
    with path.open("rb") as handle:
        head = handle.read(16)
    if head[8:12] != DUCKDB_MAGIC and path.suffix.lower() == ".toml":  # --db given the study file
        empty = ", empty" if not head else ""
        raise CueshiftError(
            f"{path}: a study file (TOML{empty}), not a study database (a .duckdb file such as "
            "runs/<name>.duckdb); a study file goes to --study"
        )
    if not head:
        raise CueshiftError(f"{path}: the file is empty, not a DuckDB database (remove it to start anew)")
    if head.startswith(_SQLITE_MAGIC):
        raise CueshiftError(f"{path}: cannot open as a DuckDB database: it is a SQLite database file")
    if head[8:12] != DUCKDB_MAGIC:
        raise CueshiftError(f"{path}: cannot open as a DuckDB database: the file has no DuckDB header")
    con = probe_connection(path)
    if con is None:  # this process holds it open already: it opened whole
        return
    try:
        rows = con.execute("SELECT block_size, used_blocks FROM pragma_database_size()").fetchall()
    except duckdb.Error as exc:
        raise CueshiftError(f"{path}: damaged database: {_first_line(exc)}") from None
    finally:
        con.close()
    wal = path.with_name(path.name + ".wal")
    if not wal.exists():  # then the blocks in use are all on disk (a WAL may add blocks in memory)
        # each block in use has its own slot at 12 KiB + id x block size, so a whole file holds
        # at least that many blocks; DuckDB trims free blocks at the end, never used ones
        expected = _HEADER_BYTES + int(rows[0][0]) * int(rows[0][1])
        size = path.stat().st_size
        if size < expected:
            raise CueshiftError(
                f"{path}: truncated database ({size:,} bytes; the blocks it uses need {expected:,}); "
                "restore it from a copy or re-run into a new file"
            )


def check_new_database(path: Path) -> None:
    """Refuse a new database path whose folder cannot be created or written.

    Raises
    ------
    CueshiftError
        A file where a folder must be, or a folder that is not writable (permissions or a
        read-only file system).
    """
    if str(path).endswith(os.sep) or path.name in ("", ".", ".."):
        raise CueshiftError(f"{path}: a database path must name a file")
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise CueshiftError(f"{path}: cannot create the database: {ancestor} is not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise CueshiftError(f"{path}: cannot create the database: the folder {ancestor} is not writable")


def check_database_path(path: Path) -> bool:
    """Check ``path`` before it is opened for writing; returns whether the file exists already."""
    if "\x00" in str(path):
        raise CueshiftError(f"{path!r}: a path may not contain a NUL byte")
    if path.exists() or path.is_symlink():
        check_existing_database(path)
        return True
    check_new_database(path)
    return False


def close_quietly(con: duckdb.DuckDBPyConnection) -> None:
    """Close after a failure: a checkpoint that fails too (a full disk) must not hide the cause."""
    with suppress(duckdb.Error):
        con.close()


def remove_database(path: Path) -> None:
    """Remove a database this command created (and its WAL), after it failed."""
    for leftover in (path, path.with_name(path.name + ".wal")):
        leftover.unlink(missing_ok=True)


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__
