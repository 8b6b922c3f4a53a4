"""A run stopped from outside (Ctrl-C, SIGTERM): what it stored and how the user resumes.

Ctrl-C raises :class:`KeyboardInterrupt` where Python next runs; ``cueshift infer`` and
``cueshift analyze`` make SIGTERM (what schedulers and ``docker stop`` send) raise one too. A
DuckDB statement that an interrupt stops raises DuckDB's own error, with the interrupt as its
context. Either way the runner rolls back the batch in flight, closes the database (a checkpoint:
no WAL is left) and raises :class:`RunInterrupted`, which says what is stored.

Python raises the interrupt between two bytecodes of the main thread only: a long DuckDB statement
holds it back until it ends (DuckDB notices the signal only then), and one raised inside a
finalizer is printed as "Exception ignored" and lost.
:func:`~cueshift.store.interrupts.prompt_interrupts` closes both gaps.
"""

from __future__ import annotations

import signal
from pathlib import Path
from types import FrameType

import duckdb

#: the signal that asked this process to stop (SIGTERM), once it came
_STOP_SIGNALS: list[str] = []


def stop_on_sigterm() -> None:
    """Make SIGTERM (schedulers, ``docker stop``) raise :class:`KeyboardInterrupt` as Ctrl-C does,
    and remember it (:func:`terminated`); a second SIGTERM is ignored while the command stops."""

    def handler(signum: int, frame: FrameType | None) -> None:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        _STOP_SIGNALS.append(signal.Signals(signum).name)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def terminated() -> bool:
    """Whether SIGTERM asked this process to stop (exit code 143 rather than Ctrl-C's 130)."""
    return bool(_STOP_SIGNALS)


class RunInterrupted(KeyboardInterrupt):
    """A run stopped by Ctrl-C or SIGTERM once its database was left consistent and closed.

    Parameters
    ----------
    database
        The study database (or shard file) the run wrote.
    n_stored
        Answers the database holds now (None when it was stopped before the pending units were known).
    n_written
        Answers this run stored.
    """

    def __init__(self, database: Path, n_stored: int | None, n_written: int) -> None:
        super().__init__(f"{database}: stopped after storing {n_written} answers")
        self.database = database
        self.n_stored = n_stored
        self.n_written = n_written

    def stored_line(self) -> str:
        """What is stored, in words: ``'1,234 answers stored in runs/x.duckdb (234 by this run)'``."""
        if self.n_stored is None:
            return f"nothing stored by this run in {self.database}"
        return f"{self.n_stored:,} answers stored in {self.database} ({self.n_written:,} by this run)"


def is_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is an interrupt, DuckDB's error for a statement an interrupt stopped, or any
    error raised once SIGTERM came (a library may turn the interrupt into its own error)."""
    if terminated():
        return True
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (KeyboardInterrupt, duckdb.InterruptException)):
            return True
        if isinstance(seen, (RuntimeError, duckdb.Error)) and "interrupted" in str(seen).lower():
            return True
        seen = seen.__context__
    return False


__all__ = ["RunInterrupted", "is_interrupt", "stop_on_sigterm", "terminated"]
