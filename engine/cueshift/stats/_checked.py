"""Every public statistic returns a frame checked against its schema in ``schemas/results.py``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec

import polars as pl

from cueshift.schemas.results import validate_result

P = ParamSpec("P")

__all__ = ["returns", "validate_result"]


def returns(name: str) -> Callable[[Callable[P, pl.DataFrame]], Callable[P, pl.DataFrame]]:
    """Decorate a statistic so its output frame passes ``RESULT_SCHEMAS[name]``
    (:func:`cueshift.schemas.results.validate_result`)."""

    def wrap(fn: Callable[P, pl.DataFrame]) -> Callable[P, pl.DataFrame]:
        @functools.wraps(fn)
        def checked(*args: P.args, **kwargs: P.kwargs) -> pl.DataFrame:
            return validate_result(name, fn(*args, **kwargs))

        return checked

    return wrap
