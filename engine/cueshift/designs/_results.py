"""Shared plumbing of the design statistics: checks, p-value adjustment, storing ``result_*`` tables.

Result frames follow the project's column names (``estimate, ci_low, ci_high, statistic, df,
p_value, p_adj, n`` plus grouping columns). :func:`check_result` enforces the invariants every
such table must satisfy before :func:`write_results` stores it as ``result_<design>_<name>``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

import duckdb
import numpy as np
import polars as pl

from cueshift.errors import SchemaViolation
from cueshift.stats import bh_adjust

Correction = Literal["none", "bh"]


def adjust_by_family(
    frame: pl.DataFrame, family: Sequence[str], correction: Correction = "bh", *, p_col: str = "p_value"
) -> pl.DataFrame:
    """Add ``p_adj``: BH within each family (rows sharing ``family`` columns; all rows when empty),
    or ``p_adj = p_value`` when ``correction`` is ``'none'``."""
    if correction == "none" or frame.height == 0:
        return frame.with_columns(pl.col(p_col).alias("p_adj"))
    indexed = frame.with_row_index("__row")
    parts = []
    groups = indexed.group_by(list(family), maintain_order=True) if family else [((), indexed)]
    for _, part in groups:
        adjusted = bh_adjust(part[p_col].cast(pl.Float64).fill_null(np.nan).to_numpy())
        parts.append(part.select("__row").with_columns(pl.Series("p_adj", adjusted)))
    joined = indexed.join(pl.concat(parts), on="__row", how="left").sort("__row").drop("__row")
    return joined.with_columns(pl.col("p_adj").fill_nan(None))


def stars(p: float | None) -> str:
    """The seed papers' star notation: ``***`` p < 0.001, ``**`` p < 0.01, ``*`` p < 0.05."""
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return ""
    return "***" if p < 0.001 else "**" if p < 0.01 else "*" if p < 0.05 else ""


def nan_to_null(frame: pl.DataFrame) -> pl.DataFrame:
    """Float NaN (undefined statistics) stored as SQL NULL."""
    floats = [c for c, t in frame.schema.items() if t in (pl.Float64, pl.Float32)]
    return frame.with_columns([pl.col(c).fill_nan(None) for c in floats])


def check_result(name: str, frame: pl.DataFrame) -> pl.DataFrame:
    """Enforce the invariants of a result table; raise :class:`SchemaViolation` naming the first bad row.

    p-values lie in [0, 1]; ``p_adj >= p_value``; ``ci_low <= ci_high``; counts are non-negative.
    """
    frame = nan_to_null(frame)
    checks: list[tuple[str, pl.Expr]] = []
    for col in ("p_value", "p_adj"):
        if col in frame.columns:
            checks.append((col, pl.col(col).is_null() | pl.col(col).is_between(0.0, 1.0)))
    if {"p_value", "p_adj"} <= set(frame.columns):
        checks.append(
            (
                "p_adj",
                pl.col("p_adj").is_null()
                | pl.col("p_value").is_null()
                | (pl.col("p_adj") >= pl.col("p_value") - 1e-12),
            )
        )
    if {"ci_low", "ci_high"} <= set(frame.columns):
        checks.append(
            (
                "ci_low",
                pl.col("ci_low").is_null()
                | pl.col("ci_high").is_null()
                | (pl.col("ci_low") <= pl.col("ci_high") + 1e-12),
            )
        )
    for col in ("n", "n_significant"):
        if col in frame.columns:
            checks.append((col, pl.col(col).is_null() | (pl.col(col) >= 0)))
    for col, expr in checks:
        bad = frame.with_row_index("__row").filter(~expr.fill_null(False))
        if bad.height:
            row = bad.row(0, named=True)
            raise SchemaViolation(
                f"result_{name}: row {row['__row']}, field '{col}': value {row[col]!r} "
                f"breaks the result contract (+{bad.height - 1} more)"
            )
    return frame


def write_results(
    con: duckdb.DuckDBPyConnection, design: str, frames: Mapping[str, pl.DataFrame]
) -> list[str]:
    """Replace ``result_<design>_<name>`` by each frame, all in one transaction; returns the table names."""
    tables = []
    con.execute("BEGIN TRANSACTION")
    try:
        for name, frame in frames.items():
            checked = check_result(f"{design}_{name}", frame)
            arrow = checked.to_arrow()  # noqa: F841  (read by name in SQL)
            table = f"result_{design}_{name}"
            con.execute(f'CREATE OR REPLACE TABLE "{table}" AS SELECT * FROM arrow')
            tables.append(table)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return tables
