"""The suite skips the second schema check only for the very frame a ``returns`` statistic handed back."""

from __future__ import annotations

import polars as pl
import pytest

from cueshift.errors import SchemaViolation
from cueshift.stats._checked import returns, validate_once


def _share_table(estimate: float) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "model_id": ["m"],
            "dimension": ["age"],
            "estimate": [estimate],
            "n_significant": [1],
            "n": [1],
            "test": ["x"],
            "alpha": [0.05],
        }
    ).with_columns(pl.col("n", "n_significant").cast(pl.Int64))


def test_a_checked_frame_is_passed_on_as_it_is():
    checked = returns("table9")(lambda: _share_table(0.7))()
    assert validate_once("table9", checked) is checked


def test_any_other_frame_is_still_checked():
    with pytest.raises(SchemaViolation):
        validate_once("table9", _share_table(1.5))  # a share above 1, never checked before
    checked = returns("table9")(lambda: _share_table(0.7))()
    changed = checked.with_columns(estimate=pl.lit(1.5))  # a new frame made from a checked one
    with pytest.raises(SchemaViolation):
        validate_once("table9", changed)
    with pytest.raises(SchemaViolation):  # checked against another table's schema: checked again
        validate_once("table5", checked)
