"""The compiled checks record each check's expression once per frame schema
(:mod:`cueshift.store.compiled`); checks that do more than one ``select`` run through pandera's
backend. Either way the verdict is pandera's: ``schema.validate`` is the reference."""

from __future__ import annotations

import pandera.errors as pa_errors
import pandera.polars as pa
import polars as pl
import pytest

from cueshift.store.compiled import CompiledSchema


def _pandera_accepts(schema: pa.DataFrameSchema, frame: pl.DataFrame) -> bool:
    try:
        schema.validate(frame, lazy=True)
    except (pa_errors.SchemaErrors, pa_errors.SchemaError):
        return False
    return True


def _collects(data: pa.PolarsData) -> pl.LazyFrame:  # more than a select: the backend runs it
    small = bool(data.lazyframe.select(pl.col("a").sum() < 100).collect().item())
    return data.lazyframe.select(pl.lit(small))


def _two_columns(data: pa.PolarsData) -> pl.LazyFrame:  # pandera ands the columns
    return data.lazyframe.select(pl.col("a") > 0, pl.col("b") < 5)


def _chained(data: pa.PolarsData) -> pl.LazyFrame:  # two selects: the backend runs it
    return data.lazyframe.select((pl.col("a") * 2).alias("x")).select(pl.col("x") < 20)


def _by_schema(data: pa.PolarsData) -> pl.LazyFrame:  # reads the frame's columns
    if "c" not in data.lazyframe.collect_schema().names():
        return data.lazyframe.select(pl.lit(True))
    return data.lazyframe.select(pl.col("c").is_not_null() == (pl.col("a") > 1))


SCHEMA = pa.DataFrameSchema(
    {
        "a": pa.Column(pl.Int64, pa.Check.ge(0)),
        "b": pa.Column(pl.Float64, pa.Check.le(4.5), nullable=True),
        "c": pa.Column(pl.String, nullable=True, required=False),
    },
    checks=[pa.Check(_collects), pa.Check(_two_columns), pa.Check(_chained), pa.Check(_by_schema)],
    strict=True,
)

FRAMES = [
    pl.DataFrame({"a": [1, 2, 3], "b": [0.5, None, 4.5]}),
    pl.DataFrame({"a": [1, 2, 3], "b": [0.5, None, 4.5], "c": [None, "x", "y"]}),
    pl.DataFrame({"a": [1, 2, 3], "b": [0.5, None, 4.5], "c": ["x", "x", "y"]}),  # _by_schema fails
    pl.DataFrame({"a": [0, 2, 3], "b": [0.5, 1.0, 2.0]}),  # _two_columns fails on a
    pl.DataFrame({"a": [1, 2, 3], "b": [0.5, 1.0, float("nan")]}),  # _two_columns: NaN < 5 is False
    pl.DataFrame({"a": [1, 2, 12], "b": [0.5, 1.0, 2.0]}),  # _chained fails
    pl.DataFrame({"a": [1, 2, 99], "b": [0.5, 1.0, 2.0]}),  # _collects fails
    pl.DataFrame({"a": [1, -2, 3], "b": [0.5, 1.0, 2.0]}),  # ge(0) fails
    pl.DataFrame({"a": [1, 2, 3], "b": [0.5, 1.0, 4.6]}),  # le(4.5) fails
]


@pytest.mark.parametrize("index", range(len(FRAMES)))
def test_the_verdict_is_pandera_s(index: int) -> None:
    compiled = CompiledSchema.of(SCHEMA)
    assert compiled is not None
    for _ in range(2):  # the second call uses the recorded plan
        assert compiled.passes(FRAMES[index]) == _pandera_accepts(SCHEMA, FRAMES[index])


def test_only_checks_beyond_one_select_go_through_the_backend() -> None:
    compiled = CompiledSchema.of(SCHEMA)
    assert compiled is not None
    exprs, by_backend = compiled._plan(FRAMES[1].schema)
    assert sorted(check.name for _, check in by_backend) == ["_chained", "_collects"]
    assert len(exprs) == 1 + 4  # a not null; ge(0), le(4.5), _two_columns, _by_schema
