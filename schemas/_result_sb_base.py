"""Column groups shared by the StylisticBias result tables (seed 000): a test per row, an
estimate with its interval."""

from __future__ import annotations

import pandera.polars as pa

from cueshift.schemas._result_base import ResultModel


class Result(ResultModel):
    """A result table (the invariants of :class:`ResultModel` apply)."""


class Tested(ResultModel):
    """Columns shared by tables with a test per row."""

    statistic: float | None = pa.Field(nullable=True)
    p_value: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    p_adj: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)


class Interval(ResultModel):
    """An estimate with its interval."""

    estimate: float | None = pa.Field(nullable=True)
    ci_low: float | None = pa.Field(nullable=True)
    ci_high: float | None = pa.Field(nullable=True)
