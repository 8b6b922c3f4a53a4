"""Column groups shared by the StylisticBias result tables (seed 000): a test per row, an
estimate with its interval."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel


class Result(ResultModel):
    """A result table (the invariants of :class:`ResultModel` apply)."""


class Tested(ResultModel):
    """Columns shared by tables with a test per row."""

    statistic: float | None = pa.Field(nullable=True)
    p: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    p_adj: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)


class Interval(ResultModel):
    """An estimate with its interval."""

    estimate: float | None = pa.Field(nullable=True)
    ci_low: float | None = pa.Field(nullable=True)
    ci_high: float | None = pa.Field(nullable=True)


class GroupCell(Tested, Interval):
    """Columns shared by the attribute × demographic-group tables (Tables 3, 4 and 11): one
    face-level estimate, interval and test per cell of ``dimension`` × ``group`` (the subclass
    adds the attribute key columns), ``n`` faces and ``n_obs`` Δ rows."""

    dimension: str
    group: str
    effect_size: float | None = pa.Field(nullable=True)
    test: str
    n: pl.Int64 = pa.Field(ge=0)
    n_obs: pl.Int64 = pa.Field(ge=0)
