"""The compiled schema checks (:mod:`cueshift.store.compiled`) agree with pandera, the schema of record.

Property-tested (hypothesis): valid frames of several tables, changed at random (a null, a value
from each column's edge cases, another dtype, a column dropped or added, a row duplicated),
are accepted by the compiled check exactly when ``schema.validate`` accepts them; and the
errors users see are still pandera's.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from typing import Any

import pandera.errors as pa_errors
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cueshift.errors import SchemaViolation
from cueshift.schemas import TABLE_SCHEMAS
from cueshift.store import validate
from cueshift.store.compiled import CompiledSchema, compiled
from tests.dbrows import NOW, faces, images, judgments

#: edge values tried in every column, whatever its dtype (a value of another type casts to null)
EDGES: list[Any] = [
    "",
    "x",
    "invalid",
    "a",
    "b",
    "base",
    "model",
    "1/1",
    "{}",
    "0" * 64,
    -1,
    0,
    1,
    3,
    2.5,
    -0.5,
]
FLOAT_EDGES = [float("nan"), float("inf"), -1e-9, 1.0000001, 0.0, 1.0, -2.5]


def _valid_frames() -> dict[str, pl.DataFrame]:
    rows = [("i1", "s1", 1, 0, "favorable"), ("i1", "s1", 3, 0, "invalid"), ("i2", "s2", 2, 1, "unfavorable")]
    judged = judgments("m", rows).with_columns(
        p_favorable=pl.Series([0.2, None, 1.0]),
        association=pl.Series([0.5, -1.0, None]),
        logit_scale=pl.Series([100.0, 1.0, None]),
    )
    return {
        "judgment": judged,
        "face": faces(("p1", "f", "young"), ("p2", "m", "old")),
        "image": images(("i1", "p1", None, None), ("i2", "p1", "i1", "Glasses")),
        "pairwise_trial": pl.DataFrame(
            {
                "model_id": ["m", "m"],
                "left_image_id": ["i1", "i2"],
                "right_image_id": ["i2", "i1"],
                "scenario_id": ["s", "s"],
                "seed": pl.Series([0, 0], dtype=pl.Int32),
                "response_text": ["left", "?"],
                "winner_image_id": pl.Series(["i1", None], dtype=pl.String),
                "latency_ms": [1.0, 0.0],
                "created_at": pl.Series([NOW, NOW], dtype=pl.Datetime("us")),
                "run_id": ["r", "r"],
            }
        ),
        "request_failure": pl.DataFrame(
            {
                "model_id": ["m"],
                "unit_table": ["judgment"],
                "unit_key": ['{"seed": 0}'],
                "run_id": ["r"],
                "attempts": pl.Series([2], dtype=pl.Int32),
                "error": ["timeout"],
                "failed_at": pl.Series([dt.datetime(2026, 1, 1)], dtype=pl.Datetime("us")),
            }
        ),
        "embedding": pl.DataFrame(
            {
                "encoder": ["clip", "clip"],
                "kind": ["image", "text"],
                "item_key": ["a", "b"],
                "vector": pl.Series([[0.1, 0.2], [1.0]], dtype=pl.List(pl.Float32)),
            }
        ),
    }


VALID = _valid_frames()


def _pandera_accepts(table: str, frame: pl.DataFrame) -> bool:
    try:
        TABLE_SCHEMAS[table].validate(frame, lazy=True)
    except (pa_errors.SchemaErrors, pa_errors.SchemaError):
        return False
    return True


def _set(frame: pl.DataFrame, column: str, row: int, value: Any) -> pl.DataFrame:
    values = frame[column].to_list()
    values[row] = value
    try:
        series = pl.Series(column, values, dtype=frame.schema[column], strict=False)
    except (TypeError, pl.exceptions.PolarsError):
        series = pl.Series(column, [None] * frame.height, dtype=frame.schema[column])
    return frame.with_columns(series)


@st.composite
def changed(draw: st.DrawFn) -> tuple[str, pl.DataFrame]:
    table = draw(st.sampled_from(sorted(VALID)))
    frame = VALID[table]
    for _ in range(draw(st.integers(0, 3))):
        column = draw(st.sampled_from(frame.columns))
        row = draw(st.integers(0, frame.height - 1))
        kind = draw(st.sampled_from(["null", "edge", "float", "copy", "cast", "drop", "extra", "dup"]))
        if kind == "null":
            frame = _set(frame, column, row, None)
        elif kind == "edge":
            frame = _set(frame, column, row, draw(st.sampled_from(EDGES)))
        elif kind == "float" and frame.schema[column].is_float():
            frame = _set(frame, column, row, draw(st.sampled_from(FLOAT_EDGES)))
        elif kind == "copy":  # another column's value (e.g. left = right, an id as a winner)
            other = draw(st.sampled_from(frame.columns))
            if frame.schema[other] == frame.schema[column]:
                frame = _set(frame, column, row, frame[other][row])
        elif kind == "cast":
            dtype = draw(
                st.sampled_from([pl.Int64(), pl.Int32(), pl.Float32(), pl.String(), pl.Datetime("ns")])
            )
            with contextlib.suppress(pl.exceptions.PolarsError):
                frame = frame.with_columns(pl.col(column).cast(dtype, strict=False))
        elif kind == "drop" and frame.width > 1:
            frame = frame.drop(column)
        elif kind == "extra":
            frame = frame.with_columns(pl.lit(1).alias("extra_column"))
        elif kind == "dup":
            frame = pl.concat([frame, frame.slice(row, 1)])
    return table, frame


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(changed())
def test_compiled_checks_accept_exactly_what_pandera_accepts(case: tuple[str, pl.DataFrame]) -> None:
    table, frame = case
    check = compiled(table)
    assert check is not None
    assert check.passes(frame) == _pandera_accepts(table, frame), (table, frame)


@pytest.mark.parametrize("table", sorted(TABLE_SCHEMAS))
def test_every_table_schema_compiles(table: str) -> None:
    assert compiled(table) is not None


def test_the_valid_frames_pass() -> None:
    for table, frame in VALID.items():
        assert _pandera_accepts(table, frame), table
        check = compiled(table)
        assert check is not None and check.passes(frame), table


def test_features_not_reproduced_fall_back_to_pandera() -> None:
    import pandera.polars as pa

    coerced = pa.DataFrameSchema({"a": pa.Column(int)}, coerce=True)
    assert CompiledSchema.of(coerced) is None
    element_wise = pa.DataFrameSchema({"a": pa.Column(int, pa.Check(lambda v: v > 0, element_wise=True))})
    assert CompiledSchema.of(element_wise) is None
    regex = pa.DataFrameSchema({"a_.*": pa.Column(int, regex=True)})
    assert CompiledSchema.of(regex) is None


def test_failures_are_still_reported_by_pandera() -> None:
    bad = _set(VALID["judgment"], "outcome", 1, "maybe")
    with pytest.raises(SchemaViolation, match=r"judgment: row 1, field 'outcome'.*isin.*'maybe'"):
        validate("judgment", bad)
    assert validate("judgment", VALID["judgment"]) is VALID["judgment"]
