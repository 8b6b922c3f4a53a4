"""The one exception type users see: a one-line message naming the file/row/field."""

from __future__ import annotations

import sys


class CueshiftError(Exception):
    """An error caused by the user's input or environment; the CLI prints it on one line and exits 2."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(message.split()))


class ConfigError(CueshiftError):
    """A study file or option is invalid."""


class ImageSetError(CueshiftError):
    """An image set, manifest or metadata file is invalid."""


class SchemaViolation(CueshiftError):
    """A frame failed its pandera schema; nothing of the batch was written."""


class MissingExtra(CueshiftError):
    """An optional feature's dependencies are not installed (see :mod:`cueshift.extras`)."""

    def __init__(self, feature: str, extra: str, module: str) -> None:
        install = f"pip install 'cueshift[{extra}]'"
        super().__init__(f"{feature} needs the '{extra}' extra ({module} is not installed): {install}")
        self.extra = extra
        self.module = module


def loaded_database_errors() -> tuple[type[Exception], ...]:
    """DuckDB's error class once DuckDB is loaded; none before, when no DuckDB error can have been
    raised. Catching these never loads DuckDB, so a study file's error stays light (D86, D93)."""
    duckdb = sys.modules.get("duckdb")
    return (duckdb.Error,) if duckdb is not None else ()
