"""Category codes of a column against a Python dictionary lookup, for strings (enum cast) and other
types (join), with nulls and values outside the categories."""

from __future__ import annotations

import polars as pl
import pytest

from cueshift.stats._cell_codes import cell_codes, encode_categories


@pytest.mark.parametrize(
    ("values", "categories"),
    [
        (["b", "x", None, "a", "b", "é"], ["a", "b", "é"]),
        (["b", None], []),
        ([3, 1, None, 7], [1, 3]),
    ],
)
def test_encode_categories_is_the_index_in_categories(values, categories):
    index = {c: i for i, c in enumerate(categories)}
    assert encode_categories(pl.Series(values), categories).tolist() == [index.get(v, -1) for v in values]


def test_cell_codes_number_the_sorted_key_combinations_nulls_last():
    frame = pl.DataFrame({"a": ["y", "x", "y", None, "x"], "b": [2, 1, 1, 1, 1]})
    codes, cells = cell_codes(frame, ["a", "b"])
    assert cells.rows() == [("x", 1), ("y", 1), ("y", 2), (None, 1)]
    assert codes.tolist() == [2, 0, 1, 3, 0]
