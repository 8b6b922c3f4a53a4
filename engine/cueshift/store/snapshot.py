"""Reading a study database while ``cueshift infer`` writes it: the published snapshot.

DuckDB lets one process open a database file for writing and no other process open it
meanwhile, not even read-only (https://duckdb.org/docs/current/connect/concurrency; the
second process gets ``Could not set lock on file``). A run lasts days, so the writer publishes
a snapshot beside the database, ``<db>.snapshot``, that readers open instead while the file is
locked:

1. ``CHECKPOINT``: every committed batch is in the database file, the WAL is empty;
2. a byte copy of the file to ``<db>.snapshot.tmp`` (no write happens meanwhile: the runner
   publishes between two batches, from the thread that writes), made by a child process: POSIX
   drops a process's file locks when it closes *any* descriptor of the file, so a copy made in
   the writer would release DuckDB's lock and let a second writer in;
3. ``os.replace`` onto ``<db>.snapshot``: atomic, so a reader opens the old or the new whole
   file; one that has the old one open keeps reading it.

Cost measured on the default study (1,863,000 answers, 36 MB): checkpoint 0.01 s + copy 0.03 s,
0.15-0.2 s in all with starting the copying process; ``COPY FROM DATABASE`` took 4.8 s.
A snapshot follows the run record, then a batch at most every ``every`` seconds (``cueshift infer
--snapshot-every``) and never closer than :data:`COST_FACTOR` times its own cost (at most 5 % of
the run). Holding the write lock only while committing was the alternative: a reader holds its
shared lock for as long as it reads, so a long ``analyze`` would stall the run.
The snapshot costs disk space (one more copy of the file) until the run ends and removes it.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import duckdb

from cueshift.errors import CueshiftError
from cueshift.store.files import SAFE_CONFIG

#: A snapshot waits at least this many times what the previous one cost.
COST_FACTOR: Final[float] = 20.0
#: The answer tables and the column naming their model, as counted for readers and ``status``.
ANSWER_TABLES: Final[dict[str, str]] = {
    "judgment": "model_id",
    "pairwise_trial": "model_id",
    "rating": "rater_id",
}
#: The copy, run in a child process (see the module docstring): source, target.
_COPY: Final[str] = "import shutil, sys; shutil.copyfile(sys.argv[1], sys.argv[2])"
_LOCK_HOLDER = re.compile(r"Conflicting lock is held in (.*?)(?: \(PID (\d+)\))?\.?(?: See also|$)")


def snapshot_path(database: Path) -> Path:
    """Where the writer of ``database`` publishes its snapshot: ``<database>.snapshot``."""
    return database.with_name(database.name + ".snapshot")


def partial_path(database: Path) -> Path:
    """Where ``analyze`` of a running study keeps its copy: ``<stem>.partial<suffix>``."""
    return database.with_name(f"{database.stem}.partial{database.suffix or '.duckdb'}")


def locked_by(database: Path) -> str | None:
    """``'PID <n>'`` (or the holder's program) when another process has ``database`` open for
    writing, else None (other failures are left to the checks that open it)."""
    try:
        duckdb.connect(str(database), read_only=True, config=dict(SAFE_CONFIG)).close()
    except duckdb.IOException as exc:
        if "Could not set lock" not in str(exc):
            return None
        found = _LOCK_HOLDER.search(str(exc))
        if found is None:
            return "another process"
        return f"PID {found.group(2)}" if found.group(2) else found.group(1)
    except duckdb.Error:
        return None
    return None


@dataclass(frozen=True)
class Snapshot:
    """The snapshot a reader opens while ``database`` is written by ``holder``."""

    database: Path
    path: Path
    holder: str
    taken_at: dt.datetime

    def describe(self, answers: int) -> str:
        """One line for the reader: what it reads instead of the database, and how fresh it is."""
        return (
            f"note: {self.database} is being written by a running `cueshift infer` ({self.holder}); "
            f"reading its snapshot of {self.taken_at:%Y-%m-%d %H:%M:%S} ({answers:,} answers)"
        )


def readable(database: Path) -> tuple[Path, Snapshot | None]:
    """The file a reader should open for ``database``: itself, or its snapshot while it is locked.

    Raises
    ------
    CueshiftError
        The database is locked and no snapshot has been published yet.
    """
    holder = locked_by(database) if database.is_file() else None
    if holder is None:
        return database, None
    snapshot = snapshot_path(database)
    try:
        taken = dt.datetime.fromtimestamp(snapshot.stat().st_mtime)
    except FileNotFoundError:
        raise CueshiftError(
            f"{database}: in use by another process ({holder}) and no snapshot of it yet "
            "(`cueshift infer` publishes one when it starts, unless --snapshot-every 0); try again shortly"
        ) from None
    return snapshot, Snapshot(database, snapshot, holder, taken)


def count_answers(con: duckdb.DuckDBPyConnection, catalog: str | None = None) -> int:
    """Answers stored in every answer table (:data:`ANSWER_TABLES`) of ``catalog`` (default: the
    connection's database)."""
    where = "database_name = current_database()" if catalog is None else "database_name = ?"
    present = {
        row[0]
        for row in con.execute(
            f"SELECT table_name FROM duckdb_tables() WHERE {where}", [] if catalog is None else [catalog]
        ).fetchall()
    }
    prefix = "" if catalog is None else f'"{catalog}".'
    total = 0
    for table in ANSWER_TABLES:
        if table in present:
            rows = con.execute(f"SELECT count(*) FROM {prefix}{table}").fetchall()
            total += int(rows[0][0])
    return total


def tell_reader(
    snapshot: Snapshot | None, con: duckdb.DuckDBPyConnection, catalog: str | None = None
) -> None:
    """Say on stderr which snapshot ``con`` reads and the answers it holds, counted through ``con``
    (the snapshot may be replaced meanwhile); nothing when it reads the database itself."""
    if snapshot is not None:
        sys.stderr.write(snapshot.describe(count_answers(con, catalog)) + "\n")


@dataclass
class SnapshotPublisher:
    """Publishes ``database``'s snapshot during a run (see the module docstring).

    Parameters
    ----------
    database
        The study database the run writes.
    every
        Seconds between snapshots (0: none).
    """

    database: Path
    every: float
    published: int = field(default=0, init=False)
    #: why publishing stopped (a snapshot that cannot be written never stops the run)
    stopped: str | None = field(default=None, init=False)
    _next: float = field(default=0.0, init=False, repr=False)

    def maybe_publish(self, con: duckdb.DuckDBPyConnection) -> None:
        """Publish when the interval has passed (always after the first call's batch)."""
        if self.every > 0 and self.stopped is None and time.perf_counter() >= self._next:
            self.publish(con)

    def publish(self, con: duckdb.DuckDBPyConnection) -> None:
        """Checkpoint, copy the file, and move the copy onto the snapshot path."""
        started = time.perf_counter()
        con.execute("CHECKPOINT")
        target = snapshot_path(self.database)
        partial = target.with_name(target.name + ".tmp")
        copied = subprocess.run(
            [sys.executable, "-c", _COPY, str(self.database), str(partial)], capture_output=True, text=True
        )
        if copied.returncode != 0:  # a full disk: the run goes on without snapshots
            partial.unlink(missing_ok=True)
            reason = copied.stderr.strip().splitlines()[-1:] or [f"exit code {copied.returncode}"]
            self.stopped = f"snapshots of {self.database} stopped: {reason[0]}"
            return
        os.replace(partial, target)
        self.published += 1
        cost = time.perf_counter() - started
        self._next = time.perf_counter() + max(self.every, COST_FACTOR * cost)

    def remove(self) -> None:
        """Remove the snapshot once the run ends (the database itself is readable again); only one
        this publisher made (a run refused because another holds the database leaves its alone)."""
        if self.published == 0 and self.stopped is None:
            return
        target = snapshot_path(self.database)
        for leftover in (target, target.with_name(target.name + ".tmp")):
            leftover.unlink(missing_ok=True)


__all__ = [
    "ANSWER_TABLES",
    "COST_FACTOR",
    "Snapshot",
    "SnapshotPublisher",
    "count_answers",
    "locked_by",
    "partial_path",
    "readable",
    "snapshot_path",
    "tell_reader",
]
