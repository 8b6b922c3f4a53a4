"""Ctrl-C and SIGTERM stop a running DuckDB statement at once (:func:`prompt_interrupts`).

Python raises the interrupt between two bytecodes of the main thread only, and DuckDB's Python
client looks for it only between its own tasks: a long statement (a scan of many rows, one
aggregate) can hold a Ctrl-C back for minutes. ``cueshift sql``, a study's ``.sql(query)`` and
``cueshift analyze`` run their statements inside :func:`prompt_interrupts`.
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

import duckdb

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


__all__ = ["prompt_interrupts"]
