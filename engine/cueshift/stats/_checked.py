"""Every public statistic returns a frame checked against its schema in ``schemas/results.py``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec

import pandera.errors as pa_errors
import polars as pl

from cueshift.errors import SchemaViolation
from cueshift.schemas.results import RESULT_SCHEMAS

P = ParamSpec("P")


def validate_result(name: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Check ``frame`` against the result schema ``name``; raise :class:`SchemaViolation`."""
    try:
        return RESULT_SCHEMAS[name].validate(frame, lazy=True)
    except (pa_errors.SchemaErrors, pa_errors.SchemaError) as exc:
        first = str(exc).splitlines()
        raise SchemaViolation(f"result_{name}: {' '.join(first[:6])}") from None


def returns(name: str) -> Callable[[Callable[P, pl.DataFrame]], Callable[P, pl.DataFrame]]:
    """Decorate a statistic so its output frame passes ``RESULT_SCHEMAS[name]``."""

    def wrap(fn: Callable[P, pl.DataFrame]) -> Callable[P, pl.DataFrame]:
        @functools.wraps(fn)
        def checked(*args: P.args, **kwargs: P.kwargs) -> pl.DataFrame:
            return validate_result(name, fn(*args, **kwargs))

        return checked

    return wrap
