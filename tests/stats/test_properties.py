"""Properties of the public statistics under hypothesis (docs/decisions.md).

For small random panels (2-9 subjects, 1-3 groups, values on a 1/8 grid so sums are exact):
an interval holds its estimate and stays in the statistic's range; results do not depend on the
order of the rows nor on how subjects and groups are labelled; a constant added to the outcome
moves a mean-type estimate and its interval by that constant; Benjamini-Hochberg p-values are
monotone in the raw p, at least the raw p and at most 1. The bootstrap interval is a Monte Carlo
draw keyed to the subjects' sorted order (the seed's replicate b draws subject indices), so a
relabelling that reorders subjects keeps the estimate, statistic, p and n but not the interval
bit for bit; a relabelling that keeps their order keeps everything. On gappy panels (cells
missing, null answers, so a group may lack an arm) the rank tests equal scipy per group or are null.
Degenerate inputs (empty, one subject, all tied) are in ``test_degenerate.py``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal
from scipy.stats import kruskal as scipy_kruskal
from scipy.stats import mannwhitneyu
from statsmodels.stats.multitest import multipletests

from cueshift import stats
from cueshift.errors import CueshiftError

FAST = settings(max_examples=15, deadline=None)
SLOW = settings(max_examples=8, deadline=None)  # every statistic, several times per example
N_RESAMPLES = 199
ESTIMATES = ["estimate", "statistic", "p", "p_adj", "n"]


@st.composite
def panels(draw: st.DrawFn, min_subjects: int = 2) -> pl.DataFrame:
    """Subjects ``s*`` × groups ``g*`` (1-2 rows each), outcome ``y`` on a 1/8 grid in [-2, 2],
    a subject-level two-valued ``arm`` and a model ``m`` (A/B) per row."""
    n_subjects = draw(st.integers(min_subjects, 9))
    n_groups = draw(st.integers(1, 3))
    reps = draw(st.integers(1, 2))
    size = n_subjects * n_groups * reps
    values = draw(st.lists(st.integers(-16, 16), min_size=size, max_size=size))
    arms = draw(st.lists(st.sampled_from(["x", "y"]), min_size=n_subjects, max_size=n_subjects))
    rows = [
        (f"s{s}", f"g{g}", arms[s], "AB"[r % 2], values[(s * n_groups + g) * reps + r] / 8)
        for s in range(n_subjects)
        for g in range(n_groups)
        for r in range(reps)
    ]
    return pl.DataFrame(rows, schema=["s", "g", "arm", "m", "y"], orient="row")


@st.composite
def gappy_panels(draw: st.DrawFn) -> pl.DataFrame:
    """:func:`panels` as a study leaves them: rows missing, invalid answers (null ``y``), so a
    group of ``g`` may lack an arm or hold one subject; values on a 1/4 grid (ties everywhere)."""
    n_subjects, n_groups = draw(st.integers(1, 7)), draw(st.integers(1, 3))
    arms = draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=n_subjects, max_size=n_subjects))
    rows = [
        (f"s{s}", f"g{g}", arms[s], draw(st.one_of(st.none(), st.integers(-4, 4).map(lambda v: v / 4))))
        for s in range(n_subjects)
        for g in range(n_groups)
        if draw(st.integers(0, 3))  # a quarter of the cells missing
    ]
    return pl.DataFrame(
        rows, schema={"s": pl.String, "g": pl.String, "arm": pl.String, "y": pl.Float64}, orient="row"
    )


@contextmanager
def _unchecked() -> Iterator[None]:
    """Skip the output schema check (pandera: 2/3 of the time) where results are compared to
    results; the range tests keep it, and it is what caught ``vs`` excluding its estimate."""
    with mock.patch("cueshift.stats._frame_input.validate_frame_stat", lambda frame, by, name: frame):
        yield


def _shuffled(frame: pl.DataFrame, seed: int) -> pl.DataFrame:
    shuffled: pl.DataFrame = frame[np.random.default_rng(seed).permutation(frame.height).tolist()]
    return shuffled


def _bootstrapped(frame: pl.DataFrame, method: str = "bca") -> dict[str, pl.DataFrame | None]:
    """The subject-clustered interval statistics of ``frame`` (by group ``g``)."""
    kw: dict[str, Any] = {"n_resamples": N_RESAMPLES, "seed": 3, "method": method}
    return {
        "mean_shift": stats.mean_shift(frame, "y", "s", by="g", **kw),
        "sbs": stats.sbs(frame, "y", "s", by="g", **kw),
        "model_difference": stats.model_difference(frame, "y", "s", "m", "A", "B", by="g", **kw)
        if frame["m"].n_unique() == 2
        else None,
    }


def _all(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """Every statistic on a frame, on ``frame`` (the bootstrapped ones with few replicates)."""
    out = {k: v for k, v in _bootstrapped(frame).items() if v is not None}
    out["wilcoxon"] = stats.wilcoxon(frame, "y", "s", by="g")
    out["wilcoxon_rows"] = stats.wilcoxon(frame, "y", by="g")
    out["kruskal"] = stats.kruskal(frame, "y", "arm", by="g")
    if frame["arm"].n_unique() == 2:
        out["mann_whitney"] = stats.mann_whitney(frame, "y", "arm", by="g")
    binary = frame.with_columns(hit=(pl.col("y") > 0).cast(pl.Int64))
    out["wilson"] = stats.wilson(binary, "hit", by="g")
    out["binomial"] = stats.binomial(binary, "hit", by="g")
    out["vs"] = stats.vs(frame, "y", "s", "arm", by=None, over="g")
    first = frame.unique(["s", "g", "m"], keep="first", maintain_order=True)
    out["split_half"] = stats.split_half(first, "y", "g", "s", n_splits=5)
    out["krippendorff"] = stats.krippendorff(first.filter(pl.col("m") == "A"), "y", "g", "s")
    out["bh"] = stats.bh(out["wilcoxon"].drop("p_adj"))
    return out


@FAST
@given(panels(), st.sampled_from(["bca", "percentile"]))
def test_bootstrap_interval_holds_its_estimate_within_the_range(frame, method):
    lo, hi = frame["y"].min(), frame["y"].max()
    for name, out in _bootstrapped(frame, method).items():
        if out is None:
            continue
        rows = out.filter(pl.col("ci_low").is_not_null())
        span = (lo - hi, hi - lo) if name == "model_difference" else (lo, hi)
        assert (rows["ci_low"] <= rows["estimate"] + 1e-12).all(), (name, rows)
        assert (rows["estimate"] <= rows["ci_high"] + 1e-12).all(), (name, rows)
        assert (rows["ci_low"] >= span[0] - 1e-12).all() and (rows["ci_high"] <= span[1] + 1e-12).all()


@FAST
@given(st.integers(0, 60).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))), st.floats(0.5, 0.999))
def test_wilson_interval_holds_the_share_within_zero_one(kn, confidence):
    k, n = kn
    low, high = stats.wilson_interval(k, n, confidence)
    if n == 0:
        assert np.isnan(low) and np.isnan(high)  # documented: no interval without trials
        return
    assert 0.0 <= low <= k / n <= high <= 1.0


@SLOW
@given(panels())
def test_variation_strength_and_rank_effects_stay_in_range(frame):
    out = _all(frame)
    vs = out["vs"].row(0, named=True)
    if vs["estimate"] is not None:  # documented: null without two groups of two subjects
        assert 0.0 <= vs["ci_low"] <= vs["estimate"] <= vs["ci_high"]
    for name in ("wilcoxon", "wilcoxon_rows", "mann_whitney"):
        if name in out:
            effect = out[name]["estimate"].drop_nulls()
            assert ((effect >= -1.0) & (effect <= 1.0)).all(), name
    for name, frame_out in out.items():
        p = frame_out["p"].drop_nulls()
        assert ((p >= 0.0) & (p <= 1.0)).all(), name


@SLOW
@given(panels(), st.integers(0, 2**31))
def test_row_order_changes_nothing(frame, seed):
    with _unchecked():
        before, after = _all(frame), _all(_shuffled(frame, seed))
    for name in before:
        assert_frame_equal(before[name], after[name], check_exact=True)


@SLOW
@given(panels(), st.integers(0, 2**31))
def test_relabelling_subjects_keeps_estimates_and_tests(frame, seed):
    ids = sorted(frame["s"].unique().to_list())
    shuffled = np.random.default_rng(seed).permutation(len(ids))
    renamed = {old: f"t{shuffled[i]}" for i, old in enumerate(ids)}
    with _unchecked():
        before, after = _all(frame), _all(frame.with_columns(pl.col("s").replace_strict(renamed)))
        # a relabelling that keeps the subjects' order keeps the intervals too
        kept = _all(frame.with_columns(pl.concat_str(pl.lit("z_"), pl.col("s")).alias("s")))
    for name in before:
        # split_half draws random rater splits keyed to the raters' (here: subjects') order
        cols = [c for c in ESTIMATES if c in before[name].columns] if name != "split_half" else ["n"]
        assert_frame_equal(before[name].select(cols), after[name].select(cols), rel_tol=1e-12)
    for name in before:
        assert_frame_equal(before[name], kept[name], check_exact=True)


@SLOW
@given(panels(), st.integers(0, 2**31))
def test_relabelling_groups_permutes_the_rows(frame, seed):
    groups = sorted(frame["g"].unique().to_list())
    order = np.random.default_rng(seed).permutation(len(groups))
    renamed = {g: f"h{order[i]}" for i, g in enumerate(groups)}
    back = {v: k for k, v in renamed.items()}
    with _unchecked():
        before = _all(frame)
        after = _all(frame.with_columns(pl.col("g").replace_strict(renamed)))
    for name in ("mean_shift", "sbs", "model_difference", "wilcoxon", "kruskal", "wilson", "binomial"):
        if name not in before:
            continue
        restored = after[name].with_columns(pl.col("g").replace_strict(back)).sort("g")
        assert_frame_equal(before[name], restored, check_exact=True)


@FAST
@given(panels(min_subjects=4))
def test_swapping_the_two_arms_mirrors_mann_whitney(frame):
    if frame["arm"].n_unique() < 2:
        return
    swapped = frame.with_columns(pl.col("arm").replace_strict({"x": "y", "y": "x"}))
    a = stats.mann_whitney(frame, "y", "arm", by="g")
    b = stats.mann_whitney(swapped, "y", "arm", by="g")
    n1n2 = frame.group_by("g", "arm").len().group_by("g").agg(pl.col("len").product()).sort("g")["len"]
    assert np.allclose(a["estimate"], -b["estimate"])
    assert np.allclose(a["statistic"] + b["statistic"], n1n2.cast(pl.Float64))
    assert np.allclose(a["p"], b["p"], equal_nan=True)
    assert_frame_equal(stats.kruskal(frame, "y", "arm", by="g"), stats.kruskal(swapped, "y", "arm", by="g"))


@FAST
@given(panels(), st.integers(-24, 24), st.sampled_from(["bca", "percentile"]))
def test_a_constant_shift_moves_means_and_their_intervals(frame, eighths, method):
    shift = eighths / 8
    before = _bootstrapped(frame, method)
    after = _bootstrapped(frame.with_columns(pl.col("y") + shift), method)
    for name in ("mean_shift", "sbs"):
        moved_all, unmoved = after[name], before[name]
        assert moved_all is not None and unmoved is not None
        for col in ("estimate", "ci_low", "ci_high"):
            assert np.allclose(moved_all[col] - unmoved[col], shift, atol=1e-9, equal_nan=True), (
                name,
                col,
            )
    # a paired difference ignores a shift of both models and moves with a shift of one
    if before["model_difference"] is not None:
        one = frame.with_columns(pl.when(pl.col("m") == "A").then(pl.col("y") + shift).otherwise(pl.col("y")))
        both = _bootstrapped(frame.with_columns(pl.col("y") + shift), method)["model_difference"]
        moved = _bootstrapped(one, method)["model_difference"]
        assert both is not None and moved is not None
        assert np.allclose(
            both["estimate"], before["model_difference"]["estimate"], atol=1e-9, equal_nan=True
        )
        assert np.allclose(
            moved["estimate"] - before["model_difference"]["estimate"], shift, atol=1e-9, equal_nan=True
        )


@settings(max_examples=40, deadline=None)
@given(gappy_panels())
def test_rank_tests_of_a_gappy_panel_equal_scipy_or_are_null(frame):
    """Per group: kruskal and mann_whitney equal scipy on the group's rows; where fewer than two
    arms have a value there is no test, and statistic, estimate and p are all null (D97: H was
    0 and U₁ was 0 there)."""
    rows = frame.drop_nulls("y")
    if rows.height == 0:
        return
    arms = sorted(rows["arm"].unique().to_list())
    kw = stats.kruskal(frame, "y", "arm", by="g")
    mw = stats.mann_whitney(frame, "y", "arm", by="g") if len(arms) == 2 else None
    for (group,), part in rows.group_by("g"):
        samples = [part.filter(pl.col("arm") == a)["y"].to_numpy() for a in arms]
        k, m = kw.filter(pl.col("g") == group), None if mw is None else mw.filter(pl.col("g") == group)
        present = [x for x in samples if x.size]
        if len(present) < 2 or np.ptp(part["y"].to_numpy()) == 0:  # one arm or all tied: no test
            assert k.select("statistic", "estimate", "p").row(0) == (None, None, None), k
        else:
            ref = scipy_kruskal(*present)
            assert k["statistic"][0] == pytest.approx(ref.statistic, rel=1e-9, abs=1e-12)
            assert k["p"][0] == pytest.approx(ref.pvalue, rel=1e-9)
        if m is None:
            continue
        if len(present) < 2:
            assert m.select("statistic", "estimate", "p").row(0) == (None, None, None), m
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # scipy: small samples
                ref_u = mannwhitneyu(*samples)
            assert m["statistic"][0] == ref_u.statistic
            assert m["p"][0] == pytest.approx(ref_u.pvalue, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(gappy_panels())
def test_variation_strength_of_a_gappy_panel_holds_its_estimate(frame):
    """φ of one answer a face (0 or 1, so VS is capped at ``vs_max``) where a cell of ``g`` may
    lack an arm: the interval holds the estimate. The cap was ``vs_max`` of all arms (0.471 for
    three), below the VS of two arms at 0 and 1 (0.5), and the schema check raised (D97)."""
    shares = frame.with_columns((pl.col("y") > 0).cast(pl.Float64))
    if shares["y"].drop_nulls().len() == 0:
        return
    for ddof in (0, 1):
        row = stats.vs(shares, "y", "s", "arm", by=None, over="g", ddof=ddof).row(0, named=True)
        if row["estimate"] is not None:
            assert row["ci_low"] <= row["estimate"] <= row["ci_high"], row


p_values = st.lists(st.one_of(st.floats(0.0, 1.0), st.just(float("nan"))), min_size=0, max_size=40)


@settings(max_examples=200, deadline=None)
@given(p_values)
def test_bh_is_monotone_at_least_raw_and_at_most_one(raw):
    p = np.array(raw, dtype=np.float64)
    adj = stats.bh_adjust(p)
    ok = ~np.isnan(p)
    assert np.array_equal(np.isnan(adj), ~ok)  # NaN is not part of the family and stays NaN
    pv, av = p[ok], adj[ok]
    assert (av >= pv).all() and (av <= 1.0).all()
    order = np.argsort(pv, kind="stable")
    assert (np.diff(av[order]) >= 0).all()
    if pv.size:
        # atol: below the smallest normal double (2.2e-308) p * m / rank is rounded to the few bits
        # a subnormal has, differently by order of operations (5e-324 * 5 / 1: 2e-323 vs 2.5e-323)
        assert np.allclose(av, multipletests(pv, method="fdr_bh")[1], rtol=1e-12, atol=1e-300)


@settings(max_examples=50, deadline=None)
@given(p_values, st.integers(0, 2**31))
def test_bh_on_a_frame_adjusts_within_families(raw, seed):
    fam = np.random.default_rng(seed).integers(0, 3, size=len(raw))
    frame = pl.DataFrame({"p": pl.Series(raw, dtype=pl.Float64).fill_nan(None), "family": fam})
    out = stats.bh(frame, family="family")
    assert out["p"].to_list() == frame["p"].to_list()  # rows keep their order
    for f in range(3):
        part = out.filter(pl.col("family") == f)
        expected = stats.bh_adjust(part["p"].fill_null(np.nan).to_numpy())
        assert np.allclose(part["p_adj"].fill_null(np.nan).to_numpy(), expected, equal_nan=True)
    both = out.drop_nulls("p")
    assert (both["p_adj"] >= both["p"]).all()


@FAST
@given(panels())
def test_cluster_bootstrap_kernel_holds_its_estimate(frame):
    fm = stats.face_matrix(frame, ["g"], faces=sorted(frame["s"].unique().to_list()), value="y", subject="s")
    values = fm.values.copy()
    values[0, :] = np.nan  # a subject without data in any cell: domain estimation
    boot, _ = stats.cluster_bootstrap(values, n_resamples=N_RESAMPLES, seed=1)
    ok = ~np.isnan(boot.ci_low)
    assert (boot.ci_low[ok] <= boot.estimate[ok] + 1e-12).all()
    assert (boot.estimate[ok] <= boot.ci_high[ok] + 1e-12).all()
    assert np.array_equal(boot.n, (~np.isnan(values)).sum(axis=0))


@FAST
@given(panels())
def test_signed_rank_columns_match_scipy(frame):
    from scipy.stats import wilcoxon as scipy_wilcoxon

    fm = stats.face_matrix(frame, ["g"], faces=sorted(frame["s"].unique().to_list()), value="y", subject="s")
    res = stats.signed_rank_columns(fm.values)
    for c in range(fm.values.shape[1]):
        col = fm.values[:, c]
        col = col[~np.isnan(col)]
        if not np.any(col != 0):
            assert np.isnan(res.p_value[c])  # documented: no non-zero difference, no test
            continue
        ref = scipy_wilcoxon(col)
        assert res.statistic[c] == pytest.approx(ref.statistic)
        assert res.p_value[c] == pytest.approx(ref.pvalue, rel=1e-9)


def _calls() -> dict[str, Any]:
    """Every statistic on a frame, as a call on a frame with columns s, g, arm, m, y."""
    kw: dict[str, Any] = {"n_resamples": 50}
    return {
        "mean_shift": lambda d: stats.mean_shift(d, "y", "s", **kw),
        "sbs": lambda d: stats.sbs(d, "y", "s", by=None, **kw),
        "model_difference": lambda d: stats.model_difference(d, "y", "s", "m", "A", "B", **kw),
        "wilcoxon": lambda d: stats.wilcoxon(d, "y", "s"),
        "kruskal": lambda d: stats.kruskal(d, "y", "arm"),
        "mann_whitney": lambda d: stats.mann_whitney(d, "y", "arm"),
        "wilson": lambda d: stats.wilson(d, "y"),
        "binomial": lambda d: stats.binomial(d, "y"),
        "vs": lambda d: stats.vs(d, "y", "s", "arm", by=None, over=None),
        "split_half": lambda d: stats.split_half(d, "y", "g", "s"),
        "krippendorff": lambda d: stats.krippendorff(d, "y", "g", "s"),
    }


_SCHEMA = {"s": pl.String, "g": pl.String, "arm": pl.String, "m": pl.String, "y": pl.Float64}


@pytest.mark.parametrize("name", sorted(_calls()))
def test_an_empty_frame_is_one_clear_error(name):
    empty = pl.DataFrame(schema=_SCHEMA)
    with pytest.raises(CueshiftError, match=rf"^{name}: no row with a value of 'y'"):
        _calls()[name](empty)
    all_null = pl.DataFrame({"s": ["a"], "g": ["g"], "arm": ["x"], "m": ["A"], "y": [None]}, schema=_SCHEMA)
    with pytest.raises(CueshiftError, match=rf"^{name}: "):
        _calls()[name](all_null)


@pytest.mark.parametrize("name", sorted(_calls()))
def test_one_subject_gives_no_interval_and_no_crash(name):
    one = pl.DataFrame(
        {"s": ["a", "a"], "g": ["g1", "g2"], "arm": ["x", "x"], "m": ["A", "B"], "y": [1.0, 0.0]},
        schema=_SCHEMA,
    )
    if name == "mann_whitney":  # one arm: one clear line
        with pytest.raises(CueshiftError, match="must have exactly two values"):
            _calls()[name](one)
        return
    out = _calls()[name](one)
    assert out.height == 1
    if name in ("mean_shift", "sbs", "model_difference", "vs"):
        assert out["ci_low"][0] is None and out["ci_high"][0] is None  # documented: no interval


@pytest.mark.parametrize("name", sorted(_calls()))
@pytest.mark.parametrize("value", [0.0, 1.0])
def test_all_tied_values_give_a_result_or_a_documented_null(name, value):
    tied = pl.DataFrame(
        {
            "s": [f"s{i}" for i in range(6) for _ in range(2)],
            "g": ["g1", "g2"] * 6,
            "arm": [arm for arm in "xyxyxy" for _ in range(2)],
            "m": ["A", "B"] * 6,
            "y": [value] * 12,
        }
    )
    out = _calls()[name](tied)
    row = out.row(0, named=True)
    if name in ("mean_shift", "sbs", "model_difference"):
        expected = 0.0 if name == "model_difference" else value
        assert row["estimate"] == row["ci_low"] == row["ci_high"] == expected  # a point interval
    if name in ("kruskal", "split_half", "krippendorff"):
        assert row["estimate"] is None  # documented: no variation, no statistic
    if name == "wilcoxon" and value == 0.0:
        assert row["p"] is None  # documented: no non-zero value, no test
    if name == "vs":
        assert row["estimate"] == row["ci_low"] == row["ci_high"] == 0.0
