"""From what a caller names (a study file, ``"default"`` or a database) to the study database file,
and DuckDB's errors as the one line the command line prints."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from cueshift.errors import ConfigError, CueshiftError, loaded_database_errors
from cueshift.execution.interrupted import after_interrupt

if TYPE_CHECKING:
    from cueshift.study.config import Study as StudySpec

P = ParamSpec("P")
R = TypeVar("R")

#: The name of the embedded default study (``--study default``).
DEFAULT = "default"


def is_study_file(name: str | Path) -> bool:
    """Whether ``name`` names a study (``"default"`` or a ``.toml`` file) rather than a database."""
    return str(name) == DEFAULT or Path(name).suffix.lower() == ".toml"


def load_spec(study: str | Path) -> StudySpec:
    """The study of a study file, or of the embedded default study (``"default"``)."""
    from cueshift.designs import load_study

    return load_study(study)


def database_of(study: str | Path, db: str | Path | None) -> tuple[Path, StudySpec | None]:
    """The study database that ``study`` and ``db`` name, as ``--study``/``--db`` do, and the study.

    ``study`` is a study file or ``"default"`` (its ``database``, e.g. ``runs/<name>.duckdb``, unless
    ``db`` is given), or a database file itself (then ``db`` must be None).

    Raises
    ------
    ConfigError
        The study file is missing or invalid, or ``db`` goes with a database path.
    """
    if not is_study_file(study):
        if db is not None:
            raise ConfigError(f"db={str(db)!r}: give db= with a study file or 'default', not with a database")
        return Path(study), None
    spec = load_spec(study)
    return Path(db) if db is not None else spec.database_path, spec


def database_named(study: str | Path, db: str | Path | None) -> Path:
    """The database alone that ``study`` and ``db`` name, for ``status`` and ``upgrade`` (D84).

    ``db`` when given, ``study`` not read (a missing or invalid study file does not matter); else
    the ``database`` of ``study``, a study file (``.toml``) or ``"default"``; else ``study`` itself,
    a database. The command and the function resolve alike: ``--study``/``--db`` are ``study``/``db``.

    Raises
    ------
    ConfigError
        Without ``db``: the study file is missing or invalid.
    """
    if db is not None:
        return Path(db)
    return load_spec(study).database_path if is_study_file(study) else Path(study)


def first_line(exc: BaseException) -> str:
    """The first line of an error's message (its type's name when it has none)."""
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _caught() -> tuple[type[Exception], ...]:
    return (CueshiftError, *loaded_database_errors())


def one_line_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Raise DuckDB's errors as the CLI's one line, ``database: <first line>``, in a
    :class:`~cueshift.errors.CueshiftError`; an interrupt (Ctrl-C, a statement it stopped) is
    raised as :class:`KeyboardInterrupt`."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except KeyboardInterrupt:
            raise
        except _caught() as exc:  # evaluated only when an error gets here
            if after_interrupt(exc):
                raise KeyboardInterrupt(first_line(exc)) from exc
            if isinstance(exc, CueshiftError):
                raise
            from cueshift.store.damage import database_error_line  # a damaged block: the file named

            raise CueshiftError(database_error_line(exc)) from exc

    return wrapper
