"""Shared plumbing of the statistics on a frame: checking the caller's frame and columns (one
clear :class:`~cueshift.errors.CueshiftError` line instead of a crash), the per-group layout, and
the finished output (BH column, fixed column order, schema check)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift.errors import CueshiftError
from cueshift.schemas.results_frame import FRAME_STAT_COLUMNS, validate_frame_stat
from cueshift.stats._cell_codes import cell_codes
from cueshift.stats._multiplicity import bh_by_family

#: ``by`` as the caller may give it: a column name, several, or none.
By = str | Sequence[str] | None


def by_columns(by: By) -> list[str]:
    """``by`` as a list of column names."""
    if by is None:
        return []
    return [by] if isinstance(by, str) else list(by)


def checked_rows(
    data: pl.DataFrame, name: str, dv: str, columns: Sequence[str | None], *, numeric: bool = True
) -> pl.DataFrame:
    """The rows of ``data`` with a value of ``dv`` (null and NaN dropped), after checking that every
    named column exists, that ``dv`` is numeric and finite and that a row is left.

    Raises
    ------
    CueshiftError
        A missing column, a non-numeric or infinite ``dv``, or no row with a value.
    """
    if not isinstance(data, pl.DataFrame):
        raise CueshiftError(f"{name}: data must be a polars DataFrame, not {type(data).__name__}")
    wanted = [dv, *(c for c in columns if c is not None)]
    missing = [c for c in dict.fromkeys(wanted) if c not in data.columns]
    if missing:
        raise CueshiftError(f"{name}: column {missing[0]!r} is not in the frame (columns: {data.columns})")
    dtype = data.schema[dv]
    if numeric and not (dtype.is_numeric() or dtype == pl.Boolean):
        raise CueshiftError(f"{name}: column {dv!r} must be numeric, not {dtype}")
    rows = data.with_columns(pl.col(dv).cast(pl.Float64)) if numeric else data
    if numeric:
        rows = rows.filter(pl.col(dv).is_not_null() & pl.col(dv).is_not_nan())
        if rows[dv].is_infinite().any():
            raise CueshiftError(f"{name}: column {dv!r} holds an infinite value")
    else:
        rows = rows.filter(pl.col(dv).is_not_null())
    if rows.height == 0:
        raise CueshiftError(f"{name}: no row with a value of {dv!r} (empty frame or all null)")
    return rows


def subject_ids(rows: pl.DataFrame, name: str, subject: str) -> list[str]:
    """Sorted distinct subjects of ``rows``; null subjects are an error. (Typed as the face ids
    of the kernels; any dtype of the column works.)"""
    if rows[subject].null_count():
        raise CueshiftError(f"{name}: column {subject!r} has null subjects")
    return cast(list[str], sorted(rows[subject].unique().to_list()))


def binary_counts(rows: pl.DataFrame, name: str, dv: str, by: list[str]) -> pl.DataFrame:
    """Per group of ``by``: ``k`` (ones) and ``n`` (rows) of a 0/1 ``dv``."""
    values = rows[dv]
    if not values.is_in([0.0, 1.0]).all():
        raise CueshiftError(f"{name}: column {dv!r} must hold only 0 and 1 (or booleans)")
    idx, groups = cell_codes(rows, by)
    k = np.bincount(idx, weights=values.to_numpy(), minlength=groups.height).astype(np.int64)
    n = np.bincount(idx, minlength=groups.height).astype(np.int64)
    out = groups.drop("__all") if not by else groups
    return out.with_columns(pl.Series("k", k), pl.Series("n", n))


def groups_of(rows: pl.DataFrame, by: list[str]) -> tuple[NDArray[np.int64], pl.DataFrame]:
    """Each row's group index and the groups (``by`` columns, sorted, nulls last)."""
    idx, groups = cell_codes(rows, by)
    return idx, groups.drop("__all") if not by else groups


def finish(
    groups: pl.DataFrame,
    by: list[str],
    columns: Mapping[str, Any],  # arrays or lists of one value per group
    *,
    method: str,
    name: str,
    family: By = None,
) -> pl.DataFrame:
    """The output frame: ``groups`` (the ``by`` columns), then the statistic's ``columns`` (absent
    ones null), ``p_adj`` by Benjamini–Hochberg over all rows or within ``family``, checked."""
    families = by_columns(family)
    unknown = [c for c in families if c not in by]
    if unknown:
        raise CueshiftError(f"{name}: family column {unknown[0]!r} is not one of the by columns {by}")
    out = groups.select(by) if by else pl.DataFrame({"__rows": np.arange(groups.height)})
    for col in FRAME_STAT_COLUMNS[:-1]:
        if col == "p_adj":
            continue
        dtype = pl.Int64 if col == "n" else pl.Float64
        value = columns.get(col)
        series = pl.Series(col, value, dtype=pl.Float64) if value is not None else None
        if series is None:
            out = out.with_columns(pl.lit(None, dtype=dtype).alias(col))
        else:
            out = out.with_columns(series.cast(dtype) if col != "n" else series.fill_nan(0).cast(dtype))
    out = bh_by_family(out.with_columns(pl.col("p").fill_nan(None)), families, p_col="p")
    out = out.with_columns(pl.lit(method).alias("method")).select([*by, *FRAME_STAT_COLUMNS])
    return validate_frame_stat(out, by, name)
