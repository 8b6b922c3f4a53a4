"""Properties of partial pooling (:func:`cueshift.stats.shrink`, :func:`cueshift.stats.eb_shrink`)
under hypothesis.

For random cells (1-5 parents of 1-6 cells, raw estimates on a 1/16 grid, standard errors on a
1/64 grid): each pooled estimate lies between its raw estimate and its parent's mean and inside
its interval; cells whose between-cell spread dwarfs their standard errors keep their raw
estimates; permuting the cells permutes the output and relabelling the parents changes nothing;
a constant added to every estimate moves estimates, intervals and parents by it, and a scale
factor scales them (τ² by its square); the frame API gives per ``tau_by`` group what separate
calls give. Checked to a relative 1e-7: τ² is a root found numerically (the scaling property
found Paule–Mandel's root solved to an absolute 1e-14, 8 times off for estimates of order 1e-6).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from cueshift.stats import eb_shrink, shrink
from cueshift.stats._shrinkage import ShrinkageResult
from tests.scalars import Tolerance

PROPS = settings(max_examples=60, deadline=None)
TOL: Tolerance = {"rtol": 1e-7, "atol": 1e-9}


@st.composite
def cells(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(estimate, se, parent) of 1-5 parents × 1-6 cells with at least 3 more cells than parents."""
    sizes = draw(st.lists(st.integers(1, 6), min_size=1, max_size=5))
    assume(sum(sizes) - len(sizes) >= 3)
    n = sum(sizes)
    y = np.array(draw(st.lists(st.integers(-32, 32), min_size=n, max_size=n)), dtype=np.float64) / 16
    se = np.array(draw(st.lists(st.integers(1, 32), min_size=n, max_size=n)), dtype=np.float64) / 64
    parent = np.repeat(np.arange(len(sizes)), sizes)
    return y, se, parent


def _columns(fit: ShrinkageResult) -> np.ndarray:
    return np.vstack([fit.estimate, fit.ci_low, fit.ci_high, fit.weight, fit.shrinkage, fit.parent])


@PROPS
@given(cells())
def test_the_pooled_estimate_lies_between_its_raw_estimate_and_its_parent(data) -> None:
    y, se, parent = data
    fit = eb_shrink(y, se, parent)
    low, high = np.minimum(y, fit.parent), np.maximum(y, fit.parent)
    slack = 1e-12 * (1 + np.abs(y))
    assert np.all((low - slack <= fit.estimate) & (fit.estimate <= high + slack))
    assert np.all((fit.shrinkage >= 0) & (fit.shrinkage < 1)) and fit.tau2 >= 0
    np.testing.assert_allclose(fit.weight, 1 - fit.shrinkage)
    # the estimate moved by exactly B_i of the way to the parent
    np.testing.assert_allclose(fit.estimate, y + fit.shrinkage * (fit.parent - y), **TOL)


@PROPS
@given(cells())
def test_the_interval_holds_the_pooled_estimate(data) -> None:
    y, se, parent = data
    fit = eb_shrink(y, se, parent, se_df=np.full(y.size, 4.0))
    alone = np.bincount(parent)[parent] == 1
    pooled = ~alone
    assert np.all(fit.ci_low[pooled] < fit.estimate[pooled])
    assert np.all(fit.estimate[pooled] < fit.ci_high[pooled])
    # a parent of one cell keeps its raw estimate and has no pooled interval
    np.testing.assert_array_equal(fit.estimate[alone], y[alone])
    assert np.isnan(fit.ci_low[alone]).all() and (fit.shrinkage[alone] == 0).all()


@PROPS
@given(cells())
def test_cells_far_apart_keep_their_raw_estimates(data) -> None:
    y, se, parent = data
    spread = y * 1e4 + np.arange(y.size) * 50.0  # between-cell sd in the hundreds, se at most 0.5
    fit = eb_shrink(spread, se, parent)
    assert fit.tau2 > 1e3
    assert np.all(fit.shrinkage <= se**2 / fit.tau2)  # B_i <= s_i² / (s_i² + τ²)
    assert np.all(np.abs(fit.estimate - spread) <= 1e-3 * np.abs(spread - fit.parent) + 1e-9)


@PROPS
@given(cells())
def test_identical_cells_in_each_parent_stay_where_they_are(data) -> None:
    y, se, parent = data
    flat = y[np.searchsorted(parent, parent)]  # every cell at its parent's first estimate
    fit = eb_shrink(flat, se, parent)
    assert fit.tau2 == 0.0
    np.testing.assert_allclose(fit.estimate, flat, **TOL)


@PROPS
@given(cells(), st.randoms(use_true_random=False))
def test_permuting_cells_permutes_the_output_and_parent_labels_do_not_matter(data, random) -> None:
    y, se, parent = data
    fit = eb_shrink(y, se, parent)
    order = np.array(random.sample(range(y.size), y.size))
    names = np.array(random.sample(range(100, 200), int(parent.max()) + 1))
    moved = eb_shrink(y[order], se[order], np.char.add("p", names[parent][order].astype(str)))
    assert moved.tau2 == pytest.approx(fit.tau2, rel=1e-7, abs=1e-12) and moved.df == fit.df
    np.testing.assert_allclose(_columns(moved), _columns(fit)[:, order], **TOL)


@PROPS
@given(cells(), st.integers(-64, 64), st.sampled_from([0.5, 2.0, -3.0, 1e3, 1e-6]))
def test_shifting_and_scaling_the_estimates_moves_the_output_with_them(data, shift, factor) -> None:
    y, se, parent = data
    fit = eb_shrink(y, se, parent)
    shifted = eb_shrink(y + shift / 8, se, parent)
    assert shifted.tau2 == pytest.approx(fit.tau2, rel=1e-7, abs=1e-12)
    moving = [0, 1, 2, 5]  # estimate, ci_low, ci_high, parent
    np.testing.assert_allclose(_columns(shifted)[moving], _columns(fit)[moving] + shift / 8, **TOL)
    np.testing.assert_allclose(shifted.shrinkage, fit.shrinkage, **TOL)
    scaled = eb_shrink(y * factor, se * abs(factor), parent)
    assert scaled.tau2 == pytest.approx(fit.tau2 * factor**2, rel=1e-7, abs=1e-12 * factor**2)
    bounds = sorted([fit.ci_low * factor, fit.ci_high * factor], key=lambda b: np.nansum(b))
    np.testing.assert_allclose(scaled.estimate, fit.estimate * factor, rtol=1e-7, atol=1e-9 * abs(factor))
    np.testing.assert_allclose([scaled.ci_low, scaled.ci_high], bounds, rtol=1e-7, atol=1e-9 * abs(factor))
    np.testing.assert_allclose(scaled.shrinkage, fit.shrinkage, **TOL)


@settings(max_examples=25, deadline=None)
@given(cells(), cells())
def test_the_frame_api_pools_each_tau_group_on_its_own(first, second) -> None:
    frames = [
        pl.DataFrame({"study": name, "parent": p, "cell": np.arange(y.size), "sbs": y, "se": s})
        for name, (y, s, p) in (("a", first), ("b", second))
    ]
    out = shrink(pl.concat(frames), "sbs", "se", ["study", "parent"], ["study", "cell"], tau_by="study")
    for name, (y, s, p) in (("a", first), ("b", second)):
        fit = eb_shrink(y, s, p)
        part = out.filter(pl.col("study") == name)
        assert part["cell"].to_list() == list(range(y.size))
        np.testing.assert_allclose(part["estimate"].to_numpy(), fit.estimate, **TOL)
        np.testing.assert_allclose(part["ci_high"].fill_null(np.nan).to_numpy(), fit.ci_high, **TOL)
        np.testing.assert_allclose(part["statistic"].to_numpy(), fit.shrinkage, **TOL)
