"""The `cueshift` command line (the justfile recipes are thin wrappers over it).

One module per command group: :mod:`~cueshift.cli.run` (infer, status, merge, upgrade),
:mod:`~cueshift.cli.analysis` (analyze, sql, show-study), :mod:`~cueshift.cli.audit` (audit),
:mod:`~cueshift.cli.report` (report), :mod:`~cueshift.cli.publish` (view), :mod:`~cueshift.cli.data`
(import omi, import judgments) and :mod:`~cueshift.cli.plan`;
:mod:`~cueshift.cli._common` holds the app, the consoles and the one-line error guard;
:mod:`~cueshift.cli._commands` registers the commands, in the order ``cueshift --help`` lists them.
Importing this package changes no process state and loads no command: :func:`main`, the console
script (and ``python -m cueshift.cli``), installs the start-up signal handlers, then loads the
commands; ``cueshift.cli.app`` loads them on first access. Loading them loads no data library
(DuckDB, polars, pandera; D86): each command imports its machinery when it runs, so ``--help`` and
a refused option cost a fraction of a second. Optional features (report, view, models, ray,
croissant) import their extras only when they run (:mod:`cueshift.extras`).
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import typer


def _stop_while_starting(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C or SIGTERM while the commands load (typer, rich): nothing is done yet."""
    how = "stopped by SIGTERM" if signum == signal.SIGTERM else "interrupted"
    sys.stderr.write(f"{how} while starting: nothing was done\n")
    sys.stderr.flush()
    os._exit(128 + signum)


def _load_app() -> typer.Typer:
    """The app with every command registered (importing the commands the first time)."""
    commands = importlib.import_module("cueshift.cli._commands")
    app: typer.Typer = commands.app
    return app


def main() -> None:
    """Run the command line (the ``cueshift`` console script and ``python -m cueshift.cli``).

    While the commands load, Ctrl-C or SIGTERM prints one line instead of a traceback; the
    handlers before are put back before the command runs (it installs its own where it needs them).
    """
    starting = (
        {signum: signal.signal(signum, _stop_while_starting) for signum in (signal.SIGINT, signal.SIGTERM)}
        if threading.current_thread() is threading.main_thread()
        else {}
    )
    try:
        app = _load_app()
    finally:
        for signum, handler in starting.items():
            if handler is not None:  # None: a handler not set from Python, left as it is
                signal.signal(signum, handler)
    app()


def __getattr__(name: str) -> Any:
    if name == "app":
        return _load_app()
    raise AttributeError(f"module 'cueshift.cli' has no attribute {name!r}")


__all__ = ["app", "main"]
