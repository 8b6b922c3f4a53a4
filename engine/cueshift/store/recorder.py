"""The expression a pandera polars check computes, recorded once (:mod:`cueshift.store.compiled`).

A polars check function gets a :class:`~pandera.api.polars.types.PolarsData` and, for every
builtin check and most custom ones, returns ``data.lazyframe.select(<boolean expression>)``.
Given a stand-in for the LazyFrame, the function hands over that expression, which then runs
on any frame of the same schema without calling the function again.
"""

from __future__ import annotations

from typing import Any

import polars as pl
from pandera.api.polars.types import PolarsData


class _Recorder:
    """Stands in for the LazyFrame a check function is given: records the one ``select`` it makes."""

    def __init__(self, schema: pl.Schema) -> None:
        self._schema = schema
        self.selected: list[pl.Expr] | None = None

    def collect_schema(self) -> pl.Schema:
        return self._schema

    def select(self, *exprs: pl.Expr | str) -> _Recorder:
        if self.selected is not None or not exprs:
            raise TypeError("not one select")
        self.selected = [pl.col(e) if isinstance(e, str) else e for e in exprs]
        if not all(isinstance(e, pl.Expr) for e in self.selected):
            raise TypeError("not expressions")
        return self


def recorded_check(check: Any, key: str, schema: pl.Schema) -> pl.Expr | None:
    """The boolean column ``check`` computes on frames of ``schema``, or None when it does more
    than select expressions; several selected columns are and-ed, as pandera's backend does."""
    recorder = _Recorder(schema)
    try:
        out = check._check_fn(PolarsData(recorder, key), **check._check_kwargs)  # type: ignore[arg-type]
    except Exception:  # noqa: BLE001 - anything but one select: the backend runs it
        return None
    if out is not recorder or not recorder.selected:
        return None
    return pl.all_horizontal(recorder.selected) if len(recorder.selected) > 1 else recorder.selected[0]


__all__ = ["recorded_check"]
