"""Statistics on any frame: each function against scipy / statsmodels on frames not
shaped like a study (``score``, ``patient``, ``arm``), bootstrap coverage on planted data, and
``sbs()`` equal to the design's SBS table on a small simulated study."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from cueshift import stats as cst
from cueshift.designs.stylisticbias.stats import sbs_levels
from cueshift.errors import CueshiftError
from cueshift.stats import Resampling
from tests.simulate.outputs import delta_frame
from tests.simulate.study import SimulationSpec, simulate_study

STAT_COLUMNS = ["estimate", "ci_low", "ci_high", "statistic", "p", "p_adj", "n", "method"]


@pytest.fixture(scope="module")
def trial() -> pl.DataFrame:
    """Three arms, 15 patients each, 1–3 visits per patient; scores with ties, arm c shifted."""
    rng = np.random.default_rng(11)
    rows = []
    for a, arm in enumerate("abc"):
        for i in range(15):
            level = rng.normal(0.4 * a, 1.0)
            for visit in range(int(rng.integers(1, 4))):
                score = round(level + rng.normal(0, 0.5), 1)
                rows.append({"arm": arm, "patient": f"{arm}{i}", "visit": visit, "score": score})
    return pl.DataFrame(rows)


def _patient_means(trial: pl.DataFrame) -> pl.DataFrame:
    """Per-patient means as exact rationals rounded once (scores have one decimal): a patient at
    -0.1 and 0.1 has mean 0, not the -1.4e-17 of a float sum (a spurious non-zero for the WSRT)."""
    tenths = (pl.col("score") * 10).round().cast(pl.Int64)
    return (
        trial.group_by("arm", "patient")
        .agg((tenths.sum() / (10 * pl.len())).alias("score"))
        .sort("arm", "patient")
    )


def test_wilcoxon_rows_and_subjects_match_scipy(trial: pl.DataFrame) -> None:
    rows = cst.wilcoxon(trial, "score", by="arm")
    assert rows.columns == ["arm", *STAT_COLUMNS]
    per_patient = cst.wilcoxon(trial, "score", "patient", by="arm", zero_method="pratt")
    means = _patient_means(trial)
    for arm in "abc":
        x = trial.filter(pl.col("arm") == arm)["score"].to_numpy()
        ref = sps.wilcoxon(x)
        got = rows.filter(pl.col("arm") == arm).row(0, named=True)
        assert got["statistic"] == pytest.approx(ref.statistic)
        assert got["p"] == pytest.approx(ref.pvalue, rel=1e-9)
        assert got["n"] == int(np.count_nonzero(x))
        m = means.filter(pl.col("arm") == arm)["score"].to_numpy()
        ref_m = sps.wilcoxon(m, zero_method="pratt")
        got_m = per_patient.filter(pl.col("arm") == arm).row(0, named=True)
        assert got_m["p"] == pytest.approx(ref_m.pvalue, rel=1e-9)
        assert got_m["statistic"] == pytest.approx(ref_m.statistic)
    assert rows["p_adj"].to_list() == pytest.approx(multipletests(rows["p"].to_numpy(), method="fdr_bh")[1])


def test_kruskal_and_mann_whitney_match_scipy(trial: pl.DataFrame) -> None:
    by_visit = cst.kruskal(trial, "score", "arm", by="visit")
    for visit in by_visit["visit"].to_list():
        part = trial.filter(pl.col("visit") == visit)
        ref = sps.kruskal(*[part.filter(pl.col("arm") == a)["score"].to_numpy() for a in "abc"])
        got = by_visit.filter(pl.col("visit") == visit).row(0, named=True)
        assert got["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
        assert got["p"] == pytest.approx(ref.pvalue, rel=1e-9)
        assert got["n"] == part.height
    two = trial.filter(pl.col("arm") != "b")
    mw = cst.mann_whitney(two, "score", "arm", by="visit")
    for visit in mw["visit"].to_list():
        part = two.filter(pl.col("visit") == visit)
        x, y = (part.filter(pl.col("arm") == a)["score"].to_numpy() for a in "ac")
        ref = sps.mannwhitneyu(x, y)
        got = mw.filter(pl.col("visit") == visit).row(0, named=True)
        assert got["statistic"] == pytest.approx(ref.statistic)
        assert got["p"] == pytest.approx(ref.pvalue, rel=1e-9)
        assert got["estimate"] == pytest.approx(2 * ref.statistic / (x.size * y.size) - 1)
    exact = pl.DataFrame({"score": [1.0, 2.5, 3.0, 7.0, 8.0, 9.5, 4.0], "arm": list("xxxyyyx")})
    exact_test = cst.mann_whitney(exact, "score", "arm")
    assert exact_test["p"][0] == pytest.approx(
        sps.mannwhitneyu([1, 2.5, 3, 4], [7, 8, 9.5]).pvalue, rel=1e-12
    )


def test_bh_matches_statsmodels_within_families() -> None:
    rng = np.random.default_rng(3)
    frame = pl.DataFrame({"family": np.repeat(["x", "y"], 20), "p": rng.uniform(0, 0.2, 40)})
    out = cst.bh(frame, family="family")
    for fam in ("x", "y"):
        part = out.filter(pl.col("family") == fam)
        ref = multipletests(part["p"].to_numpy(), method="fdr_bh")[1]
        assert part["p_adj"].to_numpy() == pytest.approx(ref, rel=1e-12)
    pooled = cst.bh(out)  # replaces p_adj, one family
    assert pooled["p_adj"].to_numpy() == pytest.approx(
        multipletests(frame["p"].to_numpy(), method="fdr_bh")[1]
    )


def test_wilson_and_binomial_match_statsmodels_and_scipy() -> None:
    frame = pl.DataFrame({"ward": ["n"] * 25 + ["s"] * 9, "cured": [1] * 19 + [0] * 6 + [1] * 2 + [0] * 7})
    w = cst.wilson(frame, "cured", by="ward", confidence=0.9)
    b = cst.binomial(frame, "cured", by="ward", p0=0.4)
    for ward, k, n in (("n", 19, 25), ("s", 2, 9)):
        row = w.filter(pl.col("ward") == ward).row(0, named=True)
        low, high = proportion_confint(k, n, alpha=0.1, method="wilson")
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((low, high), abs=1e-12)
        assert row["estimate"] == k / n and row["n"] == n
        row_b = b.filter(pl.col("ward") == ward).row(0, named=True)
        assert row_b["p"] == pytest.approx(sps.binomtest(k, n, 0.4).pvalue, rel=1e-9)
    with pytest.raises(CueshiftError, match="only 0 and 1"):
        cst.wilson(frame.with_columns(pl.col("cured") * 2), "cured")


def _alpha_interval(matrix: np.ndarray) -> float:
    """Krippendorff's interval alpha from all pairable value pairs (the definition, by brute force)."""
    units = [col[~np.isnan(col)] for col in matrix.T]
    units = [u for u in units if u.size >= 2]
    pooled = np.concatenate(units)
    n = pooled.size
    d_o = sum(((u[:, None] - u[None, :]) ** 2).sum() / (u.size - 1) for u in units) / n
    d_e = ((pooled[:, None] - pooled[None, :]) ** 2).sum() / (n * (n - 1))
    return float(1 - d_o / d_e)


def test_krippendorff_and_split_half_on_planted_panels() -> None:
    rng = np.random.default_rng(5)
    truth = rng.normal(0, 1, 400)
    rows = [
        {"judge": j, "item": i, "rating": float(truth[i] + rng.normal(0, 1.5)), "panel": j % 2}
        for j in range(10)
        for i in range(400)
        if rng.uniform() > 0.1
    ]
    frame = pl.DataFrame(rows)
    alpha = cst.krippendorff(frame, "rating", "item", "judge", by="panel")
    for panel in (0, 1):
        part = frame.filter(pl.col("panel") == panel)
        wide = part.pivot(on="item", index="judge", values="rating").drop("judge").to_numpy().astype(float)
        assert alpha.filter(pl.col("panel") == panel)["estimate"][0] == pytest.approx(_alpha_interval(wide))
    # reliability of the mean of about 9 ratings (10 raters, 10 % missing): v / (v + 1.5² / 9)
    split = cst.split_half(frame, "rating", "item", "judge", n_splits=50)
    assert split["estimate"][0] == pytest.approx(truth.var() / (truth.var() + 2.25 / 9), abs=0.05)
    assert split["n"][0] == 400
    with pytest.raises(CueshiftError, match="more than once"):
        cst.krippendorff(pl.concat([frame, frame.head(1)]), "rating", "item", "judge")


def test_mean_shift_covers_the_planted_mean() -> None:
    """60 planted trials of 25 patients (1-4 correlated visits each): the 95 % BCa interval holds
    the true mean 0.3 in at least 85 % (binomial 95 % lower bound of 0.95 at 60 draws: 0.88)."""
    rng = np.random.default_rng(8)
    covered = 0
    for _ in range(60):
        visits = rng.integers(1, 5, 25)
        level = 0.3 + rng.standard_t(5, 25) * 0.4
        score = np.concatenate([lv + rng.normal(0, 0.3, k) for lv, k in zip(level, visits, strict=True)])
        patient = np.repeat([f"p{i}" for i in range(25)], visits)
        out = cst.mean_shift(
            pl.DataFrame({"patient": patient, "score": score}), "score", "patient", n_resamples=400
        )
        row = out.row(0, named=True)
        assert row["estimate"] == pytest.approx(
            np.mean([score[patient == f"p{i}"].mean() for i in range(25)])
        )
        covered += row["ci_low"] <= 0.3 <= row["ci_high"]
    assert covered >= 51


def test_model_difference_pairs_subjects() -> None:
    rng = np.random.default_rng(2)
    rows = [
        {
            "rater": r,
            "patient": f"p{i}",
            "item": item,
            "score": float(i % 5 + (0.4 if r == "new" else 0) + rng.normal()),
        }
        for i in range(30)
        for item in range(3)
        for r in ("old", "new")
        if not (r == "old" and item == 2 and i % 3 == 0)  # unpaired rows leave the comparison
    ]
    frame = pl.DataFrame(rows)
    out = cst.model_difference(
        frame, "score", "patient", "rater", "new", "old", pair_on="item", n_resamples=500
    )
    paired = frame.pivot(on="rater", index=["patient", "item"], values="score").drop_nulls()
    d = (
        paired.group_by("patient")
        .agg((pl.col("new") - pl.col("old")).mean())
        .sort("patient")["new"]
        .to_numpy()
    )
    row = out.row(0, named=True)
    assert row["estimate"] == pytest.approx(d.mean(), abs=1e-9)
    assert row["p"] == pytest.approx(sps.wilcoxon(d).pvalue, rel=1e-6)
    assert row["n"] == 30 and row["ci_low"] < 0.4 < row["ci_high"]


def test_vs_is_the_bias_corrected_spread_of_group_means() -> None:
    rng = np.random.default_rng(4)
    frame = pl.DataFrame(
        {
            "patient": [f"p{i}" for i in range(90)],
            "site": np.repeat(["n", "s", "w"], 30),
            "score": rng.uniform(0, 1, 90),
        }
    ).with_columns(pl.when(pl.col("site") == "w").then(pl.col("score") * 0.5).otherwise(pl.col("score")))
    out = cst.vs(frame, "score", "patient", "site", by=None, over=None)
    groups = [frame.filter(pl.col("site") == s)["score"].to_numpy() for s in "nsw"]
    means = np.array([g.mean() for g in groups])
    noise = (3 - 1) / 3 * np.mean([g.var(ddof=1) / g.size for g in groups])
    assert out["estimate"][0] == pytest.approx(np.sqrt(max(means.var() - noise, 0.0)), rel=1e-9)
    assert out["ci_low"][0] <= out["estimate"][0] <= out["ci_high"][0] and out["n"][0] == 90


def test_sbs_equals_the_design_table() -> None:
    delta = delta_frame(simulate_study(SimulationSpec(n_faces=30, models=("a", "b"), seed=4)))
    design = sbs_levels(
        delta, levels=("variation_value",), resampling=Resampling(resamples=300, seed=1)
    ).filter(pl.col("level") == "variation_value", pl.col("model_id") != cst.POOLED)
    keys = ["model_id", "variation_category", "variation_value"]
    mine = cst.sbs(delta, by=keys, n_resamples=300, seed=1, family="model_id")
    joined = design.join(mine, on=keys, how="inner", suffix="_f")
    assert joined.height == design.height == mine.height > 10
    for ours, theirs in (("estimate_f", "estimate"), ("ci_low_f", "ci_low"), ("ci_high_f", "ci_high"),
                         ("statistic_f", "statistic"), ("p", "p"), ("p_adj_f", "p_adj")):  # fmt: skip
        assert joined[ours].to_numpy() == pytest.approx(joined[theirs].to_numpy(), rel=1e-12, abs=1e-14)
    assert joined["n_f"].to_list() == joined["n"].to_list()


def test_errors_are_one_line() -> None:
    frame = pl.DataFrame({"score": [1.0, 2.0, 3.0], "arm": ["a", "b", "c"], "patient": ["p", "p", "p"]})
    with pytest.raises(CueshiftError, match="column 'dose' is not in the frame"):
        cst.mean_shift(frame, "dose", "patient")
    with pytest.raises(CueshiftError, match="no row with a value"):
        cst.wilcoxon(frame.clear(), "score")
    with pytest.raises(CueshiftError, match="must be numeric"):
        cst.wilcoxon(frame, "arm")
    with pytest.raises(CueshiftError, match="exactly two values"):
        cst.mann_whitney(frame, "score", "arm")
    one = cst.mean_shift(frame, "score", "patient", n_resamples=50)  # one subject: no interval
    assert one["estimate"][0] == 2.0 and one["ci_low"][0] is None and one["n"][0] == 1
    tied = cst.kruskal(frame.with_columns(pl.lit(1.0).alias("score")), "score", "arm")
    assert tied["statistic"][0] is None and tied["p"][0] is None
    with pytest.raises(CueshiftError, match="infinite"):
        cst.mean_shift(frame.with_columns(pl.lit(np.inf).alias("score")), "score", "patient")
