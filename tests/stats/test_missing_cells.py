"""The face × cell counts behind missing_rates and missing_shift, against hand-planted rows."""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.stats import missing_shift
from cueshift.designs.stylisticbias.stats._missing_cells import face_counts, sorted_cells
from tests.stats.test_missing import BOOT, hand_counts

LABELS = {"f0": ("young", "male"), "f1": ("young", None), "f2": ("old", "female")}


def _rows() -> pl.DataFrame:
    # (model, face, value, n_answers): f2 has no rows of value "W"; model m2 has no face f0
    planted = [("m1", "f0", "V", 3), ("m1", "f0", "V", 4), ("m1", "f1", "V", 5), ("m1", "f2", "V", 6),
               ("m1", "f0", "W", 7), ("m1", "f1", "W", 8), ("m2", "f1", "V", 9),
               ("m2", "f2", "V", 10)]  # fmt: skip
    return pl.DataFrame(
        [
            {
                "model_id": m,
                "face_id": f,
                "variation_category": "Cat",
                "variation_value": v,
                "age": LABELS[f][0],
                "gender": LABELS[f][1],
                "ethnicity": None,
                "body_type": None,
                "n": n,
            }
            for m, f, v, n in planted
        ],  # fmt: skip
        schema_overrides={"ethnicity": pl.String, "body_type": pl.String},
    )


def _cells(fc_cells: pl.DataFrame) -> set[tuple[str, str, str, str]]:
    return {(m, d, g, v) for m, d, g, _, v in fc_cells.iter_rows()}


def test_counts_are_summed_per_model_value_face_and_pooled() -> None:
    fc = face_counts(_rows(), ["n"])
    assert fc.faces == ["f0", "f1", "f2"]
    counts = fc.counts["n"]  # models m1, m2, pooled x values V, W x faces
    np.testing.assert_array_equal(counts[0], [[7, 5, 6], [7, 8, 0]])
    np.testing.assert_array_equal(counts[1], [[0, 9, 10], [0, 0, 0]])
    np.testing.assert_array_equal(counts[2], [[7, 14, 16], [7, 8, 0]])
    np.testing.assert_array_equal(fc.observed[1], [[False, True, True], [False, False, False]])


def test_cells_follow_the_face_labels() -> None:
    fc = face_counts(_rows(), ["n"])
    cells = _cells(fc.cells)
    # a group's cell exists where one of its faces has rows; faces without a label leave the dimension
    assert ("m1", "gender", "male", "W") in cells
    assert ("m1", "gender", "female", "W") not in cells  # f2 has no W rows
    assert ("m2", "gender", "male", "V") not in cells  # m2 has no f0
    assert not any(d == "ethnicity" for _, d, _, _ in cells)
    assert ("(pooled)", "age", "young", "V") in cells
    totals = dict(zip(fc.cells.iter_rows(), fc.total("n"), strict=True))
    assert totals[("(pooled)", "age", "young", "Cat", "V")] == 7 + 14
    assert totals[("(pooled)", "(all)", "(all)", "Cat", "V")] == 7 + 14 + 16
    assert totals[("m1", "gender", "male", "Cat", "W")] == 7
    young = fc.per_face(fc.counts["n"].astype(np.float64))[
        fc.cells.with_row_index().filter(model_id="m2", dimension="age", group="young")["index"][0]
    ]
    np.testing.assert_array_equal(young, [np.nan, 9.0, np.nan])


def test_sorted_cells_order_the_keys_and_their_columns() -> None:
    keys = pl.DataFrame({"model_id": ["b", "a", "a"], "rate": [None, "y", "x"]})
    per_face = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])  # (cells, faces)
    cells, order, (values,) = sorted_cells(keys, per_face)
    assert cells.rows() == [("a", "x"), ("a", "y"), ("b", None)]
    np.testing.assert_array_equal(order, [2, 1, 0])
    np.testing.assert_array_equal(values, [[5.0, 3.0, 1.0], [6.0, 4.0, 2.0]])
    assert values.flags.c_contiguous


def test_shift_without_base_rows_is_empty() -> None:
    counts = hand_counts().filter(pl.col("role") != "base")
    assert missing_shift(counts, resampling=BOOT).height == 0
