"""A run's database from opening to closing, and what a stopped run says is stored.

On an error the connection is closed (the batch in flight rolled back), a first run that stored
nothing leaves no file, and Ctrl-C or SIGTERM become :class:`RunInterrupted` with the answers
stored; at the end the snapshot is removed and the executor closed, the database first (Ray's
shutdown resets SIGTERM to its default: kill at once).
"""

from __future__ import annotations

from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from cueshift import store
from cueshift.execution.executor import Executor
from cueshift.execution.interrupts import RunInterrupted, is_interrupt
from cueshift.execution.pending import count_stored
from cueshift.store.files import close_quietly, remove_database
from cueshift.store.snapshot import SnapshotPublisher


@dataclass
class RunCounts:
    """Answers written by this run; answers stored when it started (None until the pending units are
    known) in ``answer_tables``."""

    n_written: int = 0
    stored_at_start: int | None = None
    answer_tables: list[str] = field(default_factory=list)


class OpenRun:
    """The database at ``db_path`` for one run with ``executor``, and its ``snapshots``."""

    def __init__(self, db_path: Path, executor: Executor, snapshots: SnapshotPublisher) -> None:
        self.db_path, self.executor, self.snapshots = db_path, executor, snapshots
        self.existed = db_path.exists()
        self.con: duckdb.DuckDBPyConnection | None = None
        self.counts = RunCounts()

    def open(self) -> duckdb.DuckDBPyConnection:
        """Open (or create) the database; checked first: a damaged file or bad folder is not touched."""
        self.con = store.open_study(self.db_path)
        return self.con

    def stop(self, error: BaseException) -> None:
        """Close the database after ``error``; raise :class:`RunInterrupted` if it is an interrupt."""
        counts, n_stored = self.counts, None
        if self.con is not None:
            if is_interrupt(error) and counts.stored_at_start is not None:  # what is stored, as committed
                with suppress(Exception):  # (a batch may have committed before the interrupt)
                    n_stored = count_stored(self.con, counts.answer_tables)
            close_quietly(self.con)  # the batch in flight was rolled back; closing checkpoints
            self.con = None
            if not self.existed and counts.n_written == 0 and not n_stored:  # a failed first run leaves none
                remove_database(self.db_path)
                n_stored = None
        if is_interrupt(error):
            n_this_run = (
                counts.n_written
                if n_stored is None or counts.stored_at_start is None
                else n_stored - counts.stored_at_start
            )
            raise RunInterrupted(self.db_path, n_stored, n_this_run) from error

    def close(self, stopping: BaseException | None) -> None:
        """Close the database, then remove the snapshot and close the executor (``stopping``: the
        exception ending the run, if any)."""
        try:
            if self.con is not None:
                self.con.close()
        finally:
            self.snapshots.remove()  # after the close: readers switch back to the database itself
            try:
                self.executor.close()
            except BaseException:  # an interrupt landing in Ray's shutdown must not hide what is stored
                if not isinstance(stopping, RunInterrupted):
                    raise


__all__ = ["OpenRun", "RunCounts"]
