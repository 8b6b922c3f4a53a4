"""The Δ rows summed once per run (``summed_delta``) give SBS and Tables 3 and 11 (pooled, per model,
crossed) bit for bit what those tables compute from the rows; the face draws of a seed are shared.

References: each table computed from the rows (its own path, checked against scipy in
``test_subgroups.py``, ``test_metrics.py`` and ``test_row_order.py``); per-face means recomputed
with ``Fraction`` sums; ``numpy.random.default_rng`` for the face draws.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from cueshift.designs.stylisticbias.stats import (
    category_demographic_table,
    category_table_by_model,
    crossed_category_table,
    crossed_variation_table,
    cumulative_abs_sbs,
    demographic_variation_table,
    sbs_levels,
    summed_delta,
    variation_table_by_model,
)
from cueshift.stats import Resampling, coarsen, face_multiplicities, regroup
from tests.simulate.outputs import delta_frame
from tests.simulate.study import SimulationSpec, simulate_study

BOOT = {"resampling": Resampling(resamples=400, seed=3)}


@pytest.fixture(scope="module")
def delta() -> pl.DataFrame:
    spec = SimulationSpec(
        n_faces=24,
        models=("m1", "m2"),
        scenario_ids=("independent", "obedient", "peaceful"),
        variation_values=("Beanie", "Cap", "Freckles", "Moles", "Facial tattoo"),
        seed=11,
    )
    rows = delta_frame(simulate_study(spec))
    # a few rows without a Δ (no valid answer) and rows in a shuffled order
    rows = rows.with_columns(
        delta=pl.when(pl.int_range(pl.len()) % 37 == 0).then(None).otherwise(pl.col("delta"))
    )
    return rows.sample(fraction=1.0, shuffle=True, seed=5)


TABLES = [
    sbs_levels,
    demographic_variation_table,
    category_demographic_table,
    variation_table_by_model,
    category_table_by_model,
    crossed_variation_table,
    crossed_category_table,
    cumulative_abs_sbs,
]


@pytest.mark.parametrize("table", TABLES, ids=lambda f: f.__name__)
def test_summed_rows_give_the_same_table(delta: pl.DataFrame, table) -> None:
    settings = {} if table is cumulative_abs_sbs else BOOT  # no interval: nothing to resample
    from_rows = table(delta, **settings)
    from_sums = table(delta, summed=summed_delta(delta), **settings)
    assert from_rows.height > 0
    assert_frame_equal(from_sums, from_rows, check_exact=True)


def test_regrouped_sums_are_the_per_face_means(delta: pl.DataFrame) -> None:
    summed = summed_delta(delta)
    valid = delta.filter(pl.col("delta").is_not_null())
    fm = coarsen(regroup(summed.fine, ["variation_value"]), ["variation_value"])
    for face, value in [(summed.faces[0], "Cap"), (summed.faces[7], "Moles")]:
        rows = valid.filter((pl.col("face_id") == face) & (pl.col("variation_value") == value))
        exact = sum(Fraction(d).limit_denominator(10**6) for d in rows["delta"]) / rows.height
        column = fm.cells["variation_value"].to_list().index(value)
        assert fm.values[summed.faces.index(face), column] == float(exact)
    assert int(fm.cells["n_obs"].sum()) == valid.height


def test_face_draws_of_a_seed_are_drawn_once_and_read_only() -> None:
    first = face_multiplicities(30, 200, 7)
    again = face_multiplicities(30, 200, 7)
    assert again is first and not first.flags.writeable
    draws = np.random.default_rng(7).integers(0, 30, size=(200, 30), dtype=np.int32)
    expected = np.stack([np.bincount(row, minlength=30) for row in draws]).astype(np.float64)
    np.testing.assert_array_equal(first, expected)
    fresh = face_multiplicities(30, 200, np.random.default_rng(7))  # a generator: drawn anew
    assert fresh is not first and fresh.flags.writeable
    np.testing.assert_array_equal(fresh, expected)


def test_bootstrap_columns_do_not_depend_on_their_neighbours() -> None:
    """A cell's interval is the same whether its block holds only complete cells, only cells some
    faces lack, or both (the in-place and the gathered divisions)."""
    from cueshift.stats import cluster_bootstrap

    x = np.random.default_rng(2).normal(size=(40, 12))
    x[:9, 6:] = np.nan  # the last six cells: 31 of 40 faces
    x[30:, 9:] = np.nan  # the last three: 21 faces
    mixed, _ = cluster_bootstrap(x, n_resamples=500, seed=4)
    complete, _ = cluster_bootstrap(x[:, :6], n_resamples=500, seed=4)
    partial, _ = cluster_bootstrap(x[:, 6:], n_resamples=500, seed=4)
    for got, part in (
        (mixed.ci_low, (complete.ci_low, partial.ci_low)),
        (mixed.ci_high, (complete.ci_high, partial.ci_high)),
    ):
        np.testing.assert_array_equal(got, np.concatenate(part))
    assert np.isfinite(mixed.ci_low).all()
