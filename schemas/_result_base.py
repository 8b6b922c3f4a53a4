"""Building blocks of the result-table schemas: the strict base model, the invariants every result
table keeps, and field helpers.

Invariants (checked wherever the columns exist): p-values lie in [0, 1]; ``p_adj >= p``
(a multiplicity correction never lowers a p-value); counts are non-negative; and every interval
is coherent with its estimate: ``ci_low <= estimate <= ci_high`` (and likewise each interval
pair of :func:`interval_columns`, e.g. ``abs_ci_low <= abs_sbs <= abs_ci_high``) unless the row's
``ci_note`` says why not, with both bounds inside the estimate column's declared range (its
``ge``/``le``: a share's interval lies in [0, 1], a correlation's in [-1, 1]). The first two are
field checks (:func:`pvalue`, :func:`count`); the others are the frame checks of
:class:`ResultModel`, named in :data:`CHECK_FIELDS` by the field they guard.
"""

from __future__ import annotations

import math
from typing import Any, Final

import pandera.polars as pa
import polars as pl

#: Tolerance of the ordering checks (``p_adj >= p``, ``ci_low <= ci_high``).
TOLERANCE: Final = 1e-12

#: The field a frame-level check guards (error messages name it).
CHECK_FIELDS: Final = {
    "adjusted_not_below_raw": "p_adj",
    "ordered_interval": "ci_low",
    "ci_contains_estimate": "ci_low",
    "ci_within_range": "ci_low",
}
#: Column that explains why a row's interval does not contain its estimate (null: it does).
CI_NOTE: Final = "ci_note"


def interval_columns(columns: list[str]) -> list[tuple[str, str, str]]:
    """The ``(estimate, low, high)`` column triples of a table.

    ``<p>ci_low``/``<p>ci_high`` bound ``estimate`` when the prefix ``p`` is empty, else the first
    of ``<p>sbs``, ``<p>estimate`` and ``p`` without its trailing ``_`` that exists (``abs_ci_low``
    bounds ``abs_sbs``).

    Examples
    --------
    >>> interval_columns(["estimate", "ci_low", "ci_high", "abs_sbs", "abs_ci_low", "abs_ci_high"])
    [('estimate', 'ci_low', 'ci_high'), ('abs_sbs', 'abs_ci_low', 'abs_ci_high')]
    """
    triples = []
    for low in columns:
        if not low.endswith("ci_low") or (high := low[:-3] + "high") not in columns:
            continue
        prefix = low[: -len("ci_low")]
        names = ["estimate"] if not prefix else [f"{prefix}sbs", f"{prefix}estimate", prefix.rstrip("_")]
        estimate = next((n for n in names if n in columns), None)
        if estimate is not None:
            triples.append((estimate, low, high))
    return triples


def declared_range(model: type[pa.DataFrameModel], column: str) -> tuple[float, float]:
    """The ``(ge, le)`` bounds a schema declares on ``column`` (``-inf``/``inf`` when none)."""
    low, high = -math.inf, math.inf
    for check in model.to_schema().columns[column].checks:
        stats = check.statistics
        low = max(low, float(stats.get("min_value", -math.inf)))
        high = min(high, float(stats.get("max_value", math.inf)))
    return low, high


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
        """``p_adj >= p`` where both exist: a multiplicity correction never lowers a p-value."""
        ok = pl.col("p_adj").is_null() | pl.col("p").is_null()
        return _where_present(
            data, ("p_adj", "p"), ok | (pl.col("p_adj") >= pl.col("p") - TOLERANCE)
        )

    @pa.dataframe_check
    @classmethod
    def ordered_interval(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """``ci_low <= ci_high`` where both exist."""
        ok = pl.col("ci_low").is_null() | pl.col("ci_high").is_null()
        return _where_present(
            data, ("ci_low", "ci_high"), ok | (pl.col("ci_low") <= pl.col("ci_high") + TOLERANCE)
        )

    @pa.dataframe_check
    @classmethod
    def ci_contains_estimate(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """``low <= estimate <= high`` for every interval of :func:`interval_columns`, unless the
        row's ``ci_note`` (where the table has one) says why; null bounds or estimates pass."""
        names = data.lazyframe.collect_schema().names()
        ok = pl.lit(True)
        for est, low, high in interval_columns(names):
            inside = (pl.col(low) <= pl.col(est) + TOLERANCE) & (pl.col(est) <= pl.col(high) + TOLERANCE)
            ok = ok & inside.fill_null(True)
        if CI_NOTE in names:
            ok = ok | pl.col(CI_NOTE).is_not_null()
        return data.lazyframe.select(ok.alias("ok"))

    @pa.dataframe_check
    @classmethod
    def ci_within_range(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """Both bounds of every interval lie in the range declared on its estimate column."""
        names = data.lazyframe.collect_schema().names()
        ok = pl.lit(True)
        for est, low, high in interval_columns(names):
            lowest, highest = declared_range(cls, est)
            for bound in (low, high):
                ok = ok & pl.col(bound).is_between(lowest - TOLERANCE, highest + TOLERANCE).fill_null(True)
        return data.lazyframe.select(ok.alias("ok"))


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
