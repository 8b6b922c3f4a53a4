"""Building blocks of the result-table schemas: the strict base model, the invariants every result
table keeps, and field helpers.

Invariants (checked wherever the columns exist): p-values lie in [0, 1]; ``p_adj >= p_value``
(a multiplicity correction never lowers a p-value); ``ci_low <= ci_high``; counts are
non-negative. The first two are field checks (:func:`pvalue`, :func:`count`); the others are
the frame checks of :class:`ResultModel`, named in :data:`CHECK_FIELDS` by the field they guard.
"""

from __future__ import annotations

from typing import Any, Final

import pandera.polars as pa
import polars as pl

#: Tolerance of the ordering checks (``p_adj >= p_value``, ``ci_low <= ci_high``).
TOLERANCE: Final = 1e-12

#: The field a frame-level check guards (error messages name it).
CHECK_FIELDS: Final = {"adjusted_not_below_raw": "p_adj", "ordered_interval": "ci_low"}


def _where_present(data: pa.PolarsData, columns: tuple[str, ...], ok: pl.Expr) -> pl.LazyFrame:
    """``ok`` per row when every one of ``columns`` exists, else a single passing row."""
    if not set(columns) <= set(data.lazyframe.collect_schema().names()):
        return data.lazyframe.select(pl.lit(True).alias("ok")).head(1)
    return data.lazyframe.select(ok.alias("ok"))


class ResultModel(pa.DataFrameModel):
    """A result table: exactly its declared columns with their exact dtypes, and the invariants."""

    class Config:
        strict = True
        coerce = False

    @pa.dataframe_check
    @classmethod
    def adjusted_not_below_raw(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """``p_adj >= p_value`` where both exist: a multiplicity correction never lowers a p-value."""
        ok = pl.col("p_adj").is_null() | pl.col("p_value").is_null()
        return _where_present(
            data, ("p_adj", "p_value"), ok | (pl.col("p_adj") >= pl.col("p_value") - TOLERANCE)
        )

    @pa.dataframe_check
    @classmethod
    def ordered_interval(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """``ci_low <= ci_high`` where both exist."""
        ok = pl.col("ci_low").is_null() | pl.col("ci_high").is_null()
        return _where_present(
            data, ("ci_low", "ci_high"), ok | (pl.col("ci_low") <= pl.col("ci_high") + TOLERANCE)
        )


def pvalue(**kwargs: Any) -> Any:
    """A nullable p-value column: in [0, 1]."""
    return pa.Field(nullable=True, ge=0.0, le=1.0, **kwargs)


def share(**kwargs: Any) -> Any:
    """A nullable proportion or probability column: in [0, 1]."""
    return pa.Field(nullable=True, ge=0.0, le=1.0, **kwargs)


def count(**kwargs: Any) -> Any:
    """A count column: non-negative."""
    return pa.Field(ge=0, **kwargs)


def nullable(**kwargs: Any) -> Any:
    """A nullable column without further checks (an estimate, a statistic, a bound)."""
    return pa.Field(nullable=True, **kwargs)


def one_of(*values: str) -> Any:
    """A text column restricted to ``values`` (a test name, a level)."""
    return pa.Field(isin=list(values))
