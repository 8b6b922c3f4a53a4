"""What every command shares: the typer app, the consoles, the common options and :func:`guard`,
which turns user errors, I/O errors and interrupts into one line and an exit code.

Light on purpose: building the app and ``--help`` load no data library (DuckDB, polars, pandera);
each command imports its machinery when it runs (D86, ``tests/cli/test_startup.py``).
"""

from __future__ import annotations

import functools
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, NoReturn, ParamSpec, TypeVar

import typer
from rich.markup import escape

from cueshift._console import console_for
from cueshift.cli._help import HelpGroup
from cueshift.errors import CueshiftError, loaded_database_errors
from cueshift.execution.interrupted import after_interrupt

P = ParamSpec("P")
R = TypeVar("R")

app = typer.Typer(
    cls=HelpGroup,  # help as wide as the tables piped (120, COLUMNS), paragraphs not broken at source lines
    add_completion=False,
    no_args_is_help=True,
    help="cueshift: how single visual cues shift the social judgments of multimodal models.",
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    """``--version``: print ``cueshift <version>`` and exit 0."""
    if value:
        from cueshift import __version__

        typer.echo(f"cueshift {__version__}")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,  # a bool option is a flag already (typer deprecates is_flag)
            metavar="",  # typer's rich help shows a flag's type (<bool>) unless a metavar replaces it
            help="Show the version and exit.",
        ),
    ] = False,
) -> None:
    pass


# The terminal's width; COLUMNS where set (piped too); piped without it, 120 rather than rich's 80.
# Found each time they print, not here at import: each command a process runs gets its own (D94).
console = console_for()
err_console = console_for(stderr=True)

StudyOption = Annotated[
    str,
    typer.Option("--study", "-s", help="Study file (TOML), or 'default' for the embedded default study."),
]
#: ``status`` and ``upgrade`` need only the database: their --study may name it (D84).
StudyOrDbOption = Annotated[
    str,
    typer.Option(
        "--study",
        "-s",
        help="Study file (TOML), 'default' for the embedded default study, or a study database.",
    ),
]
DbOption = Annotated[
    Path | None,
    typer.Option("--db", help="Study database (default: the study's `database`, runs/<name>.duckdb)."),
]


def fail(message: str) -> NoReturn:
    """Print ``error: <message>`` on stderr and exit 2."""
    err_console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _terminated() -> bool:
    """Whether SIGTERM stopped this command (only ``infer`` installs the handler)."""
    interrupts = sys.modules.get("cueshift.execution.interrupts")
    return interrupts is not None and bool(interrupts.terminated())


#: What an interrupted command keeps, by command (default: infer's committed batches).
_KEPT = {
    "analyze": "result tables are replaced in one transaction, so none is half-written; "
    "run the same command to analyze again",
    "sql": "the query stopped; it writes nothing",
}


def _interrupted(exc: BaseException | None = None, command: str = "") -> NoReturn:
    """One line on what is kept and how to resume; exit 143 after SIGTERM, 130 after Ctrl-C."""
    from cueshift.execution.interrupts import RunInterrupted

    terminated = _terminated()
    how = "stopped by SIGTERM" if terminated else "interrupted"
    if isinstance(exc, RunInterrupted):  # infer: what is stored (counted after the rollback)
        again = shlex.join(["cueshift", *sys.argv[1:]])
        line = f"{how}: {exc.stored_line()}, an unfinished batch rolled back; resume with: {again}"
    else:
        kept = _KEPT.get(command, "every committed batch is kept; run the same command to resume")
        line = f"{how}: {kept}"
    err_console.print(line, markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(143 if terminated else 130)


def guard(func: Callable[P, R]) -> Callable[P, R]:
    """Turn user errors, I/O errors (a full disk, an unwritable folder) and Ctrl-C into one line:
    exit code 2 (130 when interrupted), no traceback."""

    command = func.__name__.removesuffix("_command")

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except CueshiftError as exc:  # a missing extra (MissingExtra) included
            if after_interrupt(exc):  # a statement interrupted by the signal, reported as such
                _interrupted(exc, command)
            fail(str(exc))
        except loaded_database_errors() as exc:  # evaluated only when an error gets this far
            if after_interrupt(exc):  # DuckDB's "Query interrupted" and InterruptException included
                _interrupted(exc, command)
            from cueshift.store.damage import database_error_line  # a damaged block: the file named

            fail(database_error_line(exc))
        except OSError as exc:  # ENOSPC, EROFS, EACCES, ENOTDIR ... raised outside the store's checks
            where = exc.filename if exc.filename else f"cueshift {command}"
            fail(f"{where}: {exc.strerror or exc}")
        except KeyboardInterrupt as exc:
            _interrupted(exc, command)
        except RuntimeError as exc:
            if isinstance(exc, typer.Exit):
                raise
            if str(exc) != "Query interrupted" and not _terminated():  # DuckDB's word for Ctrl-C
                raise
            _interrupted(exc, command)
        except BaseException as exc:  # once SIGTERM came, whatever a library made of the interrupt
            if isinstance(exc, (SystemExit, typer.Exit)) or not _terminated():
                raise
            _interrupted(exc, command)

    return wrapper
