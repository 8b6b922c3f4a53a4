"""A run stopped from outside (Ctrl-C, SIGTERM): what it stored and how the user resumes.

Ctrl-C raises :class:`KeyboardInterrupt` where Python next runs; ``cueshift infer`` and
``cueshift analyze`` make SIGTERM (what schedulers and ``docker stop`` send) raise one too. A
DuckDB statement that an interrupt stops raises DuckDB's own error, with the interrupt as its
context. Either way the runner rolls back the batch in flight, closes the database (a checkpoint:
no WAL is left) and raises :class:`RunInterrupted`, which says what is stored.

Python raises the interrupt between two bytecodes of the main thread only: a long DuckDB statement
holds it back until it ends (DuckDB notices the signal only then), and one raised inside a
finalizer is printed as "Exception ignored" and lost. :func:`prompt_interrupts` closes both gaps.
"""

from __future__ import annotations

import _thread
import random
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
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


#: Sent to the watcher in place of a signal number: an interrupt was lost, raise it again.
_RAISE_AGAIN = 0


@contextmanager
def prompt_interrupts(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """While in the block, Ctrl-C or SIGTERM stops it at once, a running statement of ``con`` too.

    The signal's C handler writes its number to a socket (:func:`signal.set_wakeup_fd`) at once,
    wherever the main thread is; a watcher thread reading it calls ``con.interrupt()``, so the
    statement fails with :class:`duckdb.InterruptException` (its transaction is rolled back) and
    the main thread raises the interrupt as it returns (an interrupt with no statement running
    changes nothing). An interrupt raised inside a finalizer reaches :data:`sys.unraisablehook`,
    which drops the report and has the watcher raise it again (:func:`_thread.interrupt_main`).
    Outside the main thread (no signal reaches it) the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    stops = {signal.SIGINT.value, signal.SIGTERM.value}
    with ExitStack() as undo:  # every step undone, even if the interrupt lands in one of them
        reader, writer = socket.socketpair()
        undo.callback(reader.close)
        writer.setblocking(False)

        def watch() -> None:
            with suppress(OSError):  # the block ended
                while received := reader.recv(64):  # empty once the writer is closed
                    if _RAISE_AGAIN in received:  # once the hook has returned (else: lost again, sent again)
                        # a random wait: a fixed one can fall into the same phase of a loop of finalizers
                        time.sleep(0.005 + 0.02 * random.random())
                        _thread.interrupt_main()  # as a second Ctrl-C would; its number comes next
                    elif stops.intersection(received):
                        with suppress(duckdb.Error):
                            con.interrupt()

        def unraisable(report: sys.UnraisableHookArgs) -> None:
            if not isinstance(report.exc_value, KeyboardInterrupt):
                hook(report)
                return
            with suppress(OSError):
                writer.send(bytes([_RAISE_AGAIN]))

        watcher = threading.Thread(target=watch, name="cueshift-interrupt", daemon=True)
        watcher.start()
        undo.callback(watcher.join, 1.0)
        undo.callback(writer.close)
        previous = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
        undo.callback(signal.set_wakeup_fd, previous)
        hook = sys.unraisablehook
        sys.unraisablehook = unraisable
        undo.callback(setattr, sys, "unraisablehook", hook)
        yield


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


__all__ = ["RunInterrupted", "is_interrupt", "prompt_interrupts", "stop_on_sigterm", "terminated"]
