"""The one output shape of the statistics on any frame (:mod:`cueshift.stats`, "Statistics on a
frame"): the caller's ``by`` columns, then ``estimate, ci_low, ci_high, statistic, p, p_adj, n,
method`` — null where a column does not apply to the statistic.

The ``by`` columns are the caller's (any names, any dtypes), so the model is not strict about
extra columns; :func:`validate_frame_stat` checks that they come first and that the fixed columns
follow in this order, then the invariants: p-values in [0, 1], ``p_adj >= p``,
``ci_low <= estimate <= ci_high`` where all three exist, ``n >= 0``.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandera.errors as pa_errors
import pandera.polars as pa
import polars as pl

from cueshift.errors import SchemaViolation
from cueshift.schemas._result_base import TOLERANCE, ResultModel, nullable, pvalue

#: The fixed columns, in order, after the ``by`` columns.
FRAME_STAT_COLUMNS = ("estimate", "ci_low", "ci_high", "statistic", "p", "p_adj", "n", "method")


class FrameStatSchema(ResultModel):
    """A statistic per group of ``by``: estimate and interval, test statistic and p-values, the
    subjects (or observations) used and the method that made the row."""

    estimate: float | None = nullable()
    ci_low: float | None = nullable()
    ci_high: float | None = nullable()
    statistic: float | None = nullable()
    p: float | None = pvalue()
    p_adj: float | None = pvalue()
    n: pl.Int64 = pa.Field(ge=0)
    method: str

    class Config:
        strict = False  # the caller's ``by`` columns come first
        coerce = False

    @pa.dataframe_check
    @classmethod
    def adjusted_not_below_p(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """``p_adj >= p`` where both exist: a multiplicity correction never lowers a p-value."""
        ok = pl.col("p_adj").is_null() | pl.col("p").is_null()
        return data.lazyframe.select((ok | (pl.col("p_adj") >= pl.col("p") - TOLERANCE)).alias("ok"))


def validate_frame_stat(frame: pl.DataFrame, by: Sequence[str], name: str) -> pl.DataFrame:
    """Check a frame statistic's output (NaN stored as null first) and return it.

    Raises
    ------
    SchemaViolation
        One line naming the function, the broken check and its first failing value.
    """
    floats = [c for c, t in frame.schema.items() if t in (pl.Float64, pl.Float32)]
    stored = frame.with_columns([pl.col(c).fill_nan(None) for c in floats])
    expected = [*by, *FRAME_STAT_COLUMNS]
    if stored.columns != expected:
        raise SchemaViolation(f"{name}: columns {stored.columns} are not {expected}")
    try:
        return FrameStatSchema.validate(stored, lazy=True)
    except pa_errors.SchemaErrors as exc:
        first = exc.failure_cases.row(0, named=True)
        raise SchemaViolation(
            f"{name}: {first['check']} fails on '{first['column']}' (found {first['failure_case']})"
        ) from None
