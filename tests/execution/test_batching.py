"""Batch sizes that follow throughput, bounded by time (:mod:`cueshift.execution.batching`)."""

from __future__ import annotations

import functools
from collections.abc import Callable

import polars as pl
import pytest

from cueshift.execution.batching import START_ROWS, TARGET_SECONDS, BatchSizer
from cueshift.store.writes import ROW_GROUP_ROWS


def _drive(sizer: BatchSizer, seconds_for: Callable[[int], float], steps: int) -> list[tuple[int, float]]:
    """Feed ``steps`` batches whose time is ``seconds_for(rows)``; returns (rows, seconds) per batch."""
    out = []
    for _ in range(steps):
        rows = sizer.size
        seconds = seconds_for(rows)
        sizer.record(rows, seconds)
        out.append((rows, seconds))
    return out


def test_a_fast_backend_grows_by_at_most_the_step_until_the_cap() -> None:
    sizer = BatchSizer(max_rows=250_000)
    history = _drive(sizer, lambda rows: 0.002 + rows / 1_000_000, 12)  # 1 M rows/s + 2 ms per batch
    sizes = [rows for rows, _ in history]
    assert sizes[0] == START_ROWS
    assert all(b <= 4 * a for a, b in zip(sizes, sizes[1:], strict=False))
    # 2 s of work would be 2 M rows: the cap holds, rounded down to whole DuckDB row groups
    assert sizes[-1] == 2 * ROW_GROUP_ROWS < 250_000


def _linear(rows: int, rate: float) -> float:
    """Seconds for ``rows`` at ``rate`` rows/s plus 50 ms per batch."""
    return 0.05 + rows / rate


def test_batches_settle_at_the_target_time_whatever_the_rate() -> None:
    for rows_per_second in (3.0, 40.0, 5_000.0, 200_000.0):
        sizer = BatchSizer(max_rows=10_000_000)
        history = _drive(sizer, functools.partial(_linear, rate=rows_per_second), 25)
        rows, seconds = history[-1]
        assert seconds <= 1.25 * TARGET_SECONDS, rows_per_second
        if rows_per_second * TARGET_SECONDS > 10:  # not floored at one row
            assert seconds >= 0.6 * TARGET_SECONDS, rows_per_second


def test_a_slowdown_shrinks_the_next_batches() -> None:
    sizer = BatchSizer(max_rows=1_000_000)
    _drive(sizer, lambda rows: rows / 100_000, 12)
    before = sizer.size
    _drive(sizer, lambda rows: rows / 1_000, 10)  # the backend becomes 100x slower
    assert sizer.size <= before / 50
    assert sizer.size / 1_000 <= 1.25 * TARGET_SECONDS


def test_a_small_batch_size_caps_every_batch() -> None:
    sizer = BatchSizer(max_rows=10)
    assert sizer.size == 10
    _drive(sizer, lambda rows: 1e-6, 5)
    assert sizer.size == 10


def test_batches_cover_the_plan_once_in_order_within_the_budget() -> None:
    plan = pl.DataFrame({"i": range(1_000)})
    sizer = BatchSizer(max_rows=300, initial=7)
    seen = []
    for batch in sizer.batches(plan, budget=950):
        seen.extend(batch["i"].to_list())
        sizer.record(batch.height, batch.height / 100.0)  # 100 rows/s: about 200 per batch
    assert seen == list(range(950))
    assert sizer.size == 200


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_rows": 0},
        {"max_rows": 10, "initial": 11},
        {"max_rows": 10, "min_rows": 11},
        {"max_rows": 10, "target_seconds": 0},
        {"max_rows": 10, "step": 1.0},
        {"max_rows": 10, "memory": 1.0},
    ],
)
def test_bad_parameters_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        BatchSizer(**kwargs)  # type: ignore[arg-type]  # floats where ints are typed: bad input on purpose


def test_slices_end_between_groups_unless_a_group_or_the_budget_is_in_the_way() -> None:
    # runs of 3, 3, 9 and 2 rows of one image each
    images = ["a"] * 3 + ["b"] * 3 + ["c"] * 9 + ["d"] * 2
    plan = pl.DataFrame({"image_id": images, "i": range(len(images))})

    def cut(budget: int, group: str | None) -> list[list[str]]:
        sizer = BatchSizer(max_rows=5, align=1)
        return [b["image_id"].to_list() for b in sizer.batches(plan, budget, group=group)]

    assert cut(100, "image_id") == [
        ["a"] * 3,  # 5 rows would split b: the slice ends before it
        ["b"] * 3,
        ["c"] * 5,  # c alone is longer than a slice
        ["c"] * 4,
        ["d"] * 2,
    ]
    assert cut(4, "image_id") == [["a", "a", "a", "b"]]  # the budget (limit) ends a slice where it falls
    assert cut(9, "image_id") == [["a"] * 3, ["b"] * 3, ["c"] * 3]
    assert [len(b) for b in cut(100, None)] == [5, 5, 5, 2]  # no group: slices of the size
    assert [len(b) for b in cut(100, "no such column")] == [5, 5, 5, 2]
    # a slice of whole row groups stays whole (DuckDB writes it compressed): only fast backends
    aligned = BatchSizer(max_rows=4, align=4).batches(plan, 100, group="image_id")
    assert [b.height for b in aligned] == [4, 4, 4, 4, 1]
