"""Cell codes: the index of every row's value among given categories and of every row's cell of
key columns, by integer arithmetic on per-column codes (a hash lookup, no sort or string join) —
the indexing under the face × cell arrays of :mod:`cueshift.stats._faces`."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from numpy.typing import NDArray


def encode_categories(series: pl.Series, categories: list[str]) -> NDArray[np.int64]:
    """Index of each value in ``categories`` (−1 for null or a value not among them), by a hash
    lookup (no sort): a cast to an enum of ``categories`` for strings, else a join."""
    if series.dtype == pl.String and _distinct_strings(categories):
        coded = series.cast(pl.Enum(categories), strict=False).to_physical()
    else:
        lookup = pl.DataFrame({"__v": categories}, schema={"__v": series.dtype}).with_row_index("__i")
        coded = series.to_frame("__v").join(lookup, on="__v", how="left", maintain_order="left")["__i"]
    return coded.fill_null(-1).cast(pl.Int64).to_numpy()


def _distinct_strings(values: list[str]) -> bool:
    """Whether ``values`` are strings, none repeated (what an enum's categories must be)."""
    return all(isinstance(v, str) for v in values) and len(set(values)) == len(values)


def cell_codes(frame: pl.DataFrame, keys: list[str]) -> tuple[NDArray[np.int64], pl.DataFrame]:
    """Cell index of every row and the cells (key columns, sorted; nulls last) — integer arithmetic
    on per-column codes instead of sorting or joining on strings."""
    if not keys:  # one cell; the placeholder column is dropped by the callers
        return np.zeros(frame.height, dtype=np.int64), pl.DataFrame({"__all": [0]})
    combined = np.zeros(frame.height, dtype=np.int64)
    levels: list[list[object]] = []
    for key in keys:
        values = frame[key].unique().drop_nulls().sort().to_list()
        codes = encode_categories(frame[key], values)
        codes = np.where(codes < 0, len(values), codes)  # null sorts last
        levels.append([*values, None])
        combined = combined * (len(values) + 1) + codes
    unique, inverse = _unique_codes(combined, math.prod(len(lv) for lv in levels))
    columns = {}
    rest = unique
    for key, lv in zip(reversed(keys), reversed(levels), strict=True):
        rest, code = np.divmod(rest, len(lv))
        columns[key] = pl.Series(key, [lv[i] for i in code], dtype=frame[key].dtype)
    cells = pl.DataFrame([columns[k] for k in keys])
    return inverse.astype(np.int64), cells


def _unique_codes(codes: NDArray[np.int64], space: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``np.unique(codes, return_inverse=True)`` for codes in ``[0, space)``: by a presence table
    (no sort) when the space is small, else by sorting."""
    if space > max(4 * codes.size, 1 << 20):
        unique, inverse = np.unique(codes, return_inverse=True)
        return unique, inverse.astype(np.int64)
    present = np.zeros(space, dtype=bool)
    present[codes] = True
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[codes].astype(np.int64)
