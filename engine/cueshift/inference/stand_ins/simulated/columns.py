"""Row columns of the simulated judge: codes of distinct values, label folding, length checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import polars as pl

from cueshift._types import I64

#: One value per row: a list, a numpy array or a polars Series (``None`` allowed).
StrColumn = Sequence[str | None] | npt.NDArray[Any] | pl.Series

_SMALL: Final = 2048  # below this many rows, factorize in Python (polars has a fixed cost)


def factorize(values: StrColumn) -> tuple[I64, list[str | None]]:
    """Codes into the list of distinct values (in order of first appearance)."""
    if not isinstance(values, pl.Series) and len(values) <= _SMALL:
        index: dict[str | None, int] = {}
        small_codes = [index.setdefault(v, len(index)) for v in values]
        return np.array(small_codes, dtype=np.int64), list(index)
    series = values if isinstance(values, pl.Series) else pl.Series(values=list(values), dtype=pl.String)
    series = series.cast(pl.String)
    uniques = series.unique(maintain_order=True)
    codes = series.replace_strict(uniques, pl.int_range(0, len(uniques), eager=True), return_dtype=pl.Int64)
    return codes.to_numpy().astype(np.int64, copy=False), uniques.to_list()


def fold_label(label: str | None) -> str | None:
    """A label for case- and space-insensitive matching (``None`` stays ``None``)."""
    return None if label is None else " ".join(label.split()).casefold()


def check_lengths(**columns: Any) -> int:
    """The common length of ``columns``; a ``ValueError`` names the lengths when they differ."""
    lengths = {name: len(column) for name, column in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"columns differ in length: {lengths}")
    return next(iter(lengths.values()), 0)


__all__ = ["I64", "StrColumn", "check_lengths", "factorize", "fold_label"]
