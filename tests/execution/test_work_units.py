"""Image-grouped work units (:mod:`cueshift.execution.work_units`): whole groups, in order, once."""

from __future__ import annotations

import polars as pl
import pytest

from cueshift.designs.work import UnitKind
from cueshift.execution.work_units import UnitCutter, group_column


def _pending() -> pl.DataFrame:
    # images of 3, 1, 4 and 2 rows, in the design's order
    images = ["a"] * 3 + ["b"] + ["c"] * 4 + ["d"] * 2
    return pl.DataFrame({"image_id": images, "seed": list(range(len(images)))})


def _cut(cutter: UnitCutter, sizes: list[int]) -> list[list[str]]:
    out = []
    for size in sizes:
        out.append(cutter.next(size)["image_id"].to_list())
    assert cutter.done
    return out


def test_units_hold_whole_images_and_at_least_the_rows_asked() -> None:
    cutter = UnitCutter(_pending(), "image_id", budget=100)
    assert _cut(cutter, [1, 2, 4]) == [["a"] * 3, ["b", "c", "c", "c", "c"], ["d", "d"]]


def test_every_row_comes_once_in_order() -> None:
    pending = _pending()
    cutter = UnitCutter(pending, "image_id", budget=100)
    rows: list[int] = []
    while not cutter.done:
        rows += cutter.next(2)["seed"].to_list()
    assert rows == pending["seed"].to_list()
    with pytest.raises(StopIteration):
        cutter.next(1)


def test_the_budget_ends_the_last_unit_inside_an_image() -> None:
    cutter = UnitCutter(_pending(), "image_id", budget=5)
    assert _cut(cutter, [4, 4]) == [["a", "a", "a", "b"], ["c"]]
    assert UnitCutter(_pending(), "image_id", budget=0).done


def test_without_a_group_column_rows_are_cut_anywhere() -> None:
    cutter = UnitCutter(_pending(), None, budget=100)
    assert [len(u) for u in _cut(cutter, [4, 4, 4])] == [4, 4, 2]


def test_the_group_column_is_an_image_column_or_the_shard_column() -> None:
    kind = UnitKind(
        "trials",
        "t",
        ("model_id",),
        "model_id",
        "judge_pairs",
        lambda m, b: pl.DataFrame(),
        lambda b, a, m, r: pl.DataFrame(),
        shard_by="pair",
    )
    assert group_column(kind, pl.DataFrame({"left_image_id": ["x"], "pair": ["p"]})) == "left_image_id"
    assert group_column(kind, pl.DataFrame({"pair": ["p"]})) == "pair"
    assert group_column(kind, pl.DataFrame({"seed": [1]})) is None
