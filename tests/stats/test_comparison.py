"""Paired model differences with error bars (Miller 2024): standard errors against statsmodels,
estimates against a hand-computed per-face mean, bootstrap coverage and design effect on planted
data, BH false positives under no difference, and invariance to the row order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pytest
import statsmodels.api as sm

from cueshift.designs.stylisticbias.stats import model_differences
from cueshift.stats import Resampling, clustered_standard_error, design_effect, naive_standard_error
from tests.stats.frames import delta_rows


def planted_pair(
    difference: dict[str, float],
    *,
    n_faces: int = 40,
    n_scenarios: int = 3,
    face_sd: float = 0.05,
    row_sd: float = 0.05,
    seed: int = 0,
) -> pl.DataFrame:
    """Δ rows of models m1 and m2 on the same faces: per variation value v, m1 − m2 = ``difference[v]``
    plus a face × value effect shared by the face's ``n_scenarios`` rows (sd ``face_sd``, the
    clustering) plus row noise (sd ``row_sd``). Intra-face correlation of the row differences:
    ρ = face_sd² / (face_sd² + row_sd²); design effect 1 + (n_scenarios − 1) ρ."""
    rng = np.random.default_rng(seed)
    values = list(difference)
    faces = [f"f{i:03d}" for i in range(n_faces)]
    scenarios = [f"s{j}" for j in range(n_scenarios)]
    shared = rng.normal(0.0, 0.1, size=(len(values), n_scenarios))  # both models' common Δ
    face_effect = rng.normal(0.0, face_sd, size=(n_faces, len(values)))
    rows = []
    for vi, value in enumerate(values):
        for fi, face in enumerate(faces):
            for si, scenario in enumerate(scenarios):
                base = shared[vi, si]
                d = difference[value] + face_effect[fi, vi] + rng.normal(0.0, row_sd)
                common = {"face_id": face, "variation_value": value, "scenario_id": scenario}
                rows.append({**common, "model_id": "m1", "delta": base + d / 2})
                rows.append({**common, "model_id": "m2", "delta": base - d / 2})
    return delta_rows(rows)


def test_standard_errors_match_statsmodels_ols_cluster_and_nonrobust() -> None:
    data = planted_pair({"v1": 0.05, "v2": 0.0}, n_faces=30, n_scenarios=4)
    out = model_differences(data, resampling=Resampling(resamples=200)).filter(
        pl.col("level") == "variation_value"
    )
    wide = data.to_pandas().pivot_table(
        index=["face_id", "variation_value", "scenario_id"], columns="model_id", values="delta"
    )
    wide["d"] = wide["m1"] - wide["m2"]
    rows = wide.reset_index()
    for row in out.iter_rows(named=True):
        part = rows[rows["variation_value"] == row["variation_value"]]
        ones = np.ones(len(part))
        clustered = sm.OLS(part["d"].to_numpy(), ones).fit(
            cov_type="cluster", cov_kwds={"groups": pd.factorize(part["face_id"])[0]}
        )
        naive = sm.OLS(part["d"].to_numpy(), ones).fit()
        assert row["estimate"] == pytest.approx(clustered.params[0], abs=1e-11)
        assert row["se_clustered"] == pytest.approx(clustered.bse[0], rel=1e-9)
        assert row["se_naive"] == pytest.approx(naive.bse[0], rel=1e-9)
        assert row["design_effect"] == pytest.approx((clustered.bse[0] / naive.bse[0]) ** 2, rel=1e-8)
        assert row["n"] == 30 and row["n_obs"] == 120


def test_unbalanced_clustered_se_is_weighted_cluster_robust_se() -> None:
    # faces with 1 to 5 rows: the face-weighted mean is WLS with weights 1/N_f; its CR1 SE
    rng = np.random.default_rng(3)
    sizes = rng.integers(1, 6, size=25)
    face_means = []
    y, groups, weights = [], [], []
    for f, m in enumerate(sizes):
        rows = 0.1 + rng.normal(0, 0.2) + rng.normal(0, 0.1, size=m)
        y.extend(rows)
        groups.extend([f] * m)
        weights.extend([1.0 / m] * m)
        face_means.append(rows.mean())
    fit = sm.WLS(np.array(y), np.ones(len(y)), weights=np.array(weights)).fit(
        cov_type="cluster", cov_kwds={"groups": np.array(groups)}
    )
    assert fit.params[0] == pytest.approx(np.mean(face_means))
    assert clustered_standard_error(np.array(face_means))[0] == pytest.approx(fit.bse[0], rel=1e-10)


def test_standard_errors_by_hand() -> None:
    # two faces with rows (0, 2) and (4, 6): face means 1, 5; mean 3
    # clustered: sd(1, 5) / sqrt(2) = 2.828.../1.414... = 2; naive: sd(0, 2, 4, 6) / 2 = 2.582.../2
    assert clustered_standard_error(np.array([[1.0], [5.0]]))[0] == pytest.approx(2.0)
    naive = naive_standard_error(np.array([4.0]), np.array([3.0]), np.array([(0 + 4 + 16 + 36) / 4]))
    assert naive[0] == pytest.approx(np.std([0, 2, 4, 6], ddof=1) / 2)
    assert design_effect(np.array([2.0]), naive)[0] == pytest.approx(4.0 / naive[0] ** 2)
    assert np.isnan(clustered_standard_error(np.array([[1.0], [np.nan]]))[0])  # one face: no SE


def test_estimate_is_the_paired_difference_of_per_face_means() -> None:
    data = planted_pair({"v1": 0.08, "v2": -0.03}, n_faces=12)
    out = model_differences(data, resampling=Resampling(resamples=200))
    frame = data.to_pandas()
    face = frame.groupby(["model_id", "face_id", "variation_value"])["delta"].mean().unstack("model_id")
    by_value = (face["m1"] - face["m2"]).groupby("variation_value").mean()
    rows = out.filter(pl.col("level") == "variation_value")
    for row in rows.iter_rows(named=True):
        assert row["estimate"] == pytest.approx(by_value[row["variation_value"]], abs=1e-11)
        assert row["sbs_a"] - row["sbs_b"] == pytest.approx(row["estimate"], abs=1e-11)
    overall = out.filter(pl.col("level") == "model").row(0, named=True)
    per_face = frame.groupby(["model_id", "face_id"])["delta"].mean().unstack("model_id")
    assert overall["estimate"] == pytest.approx((per_face["m1"] - per_face["m2"]).mean(), abs=1e-11)
    assert overall["model_a"] == "m1" and overall["model_b"] == "m2"


def test_bootstrap_covers_planted_differences_and_design_effect_is_recovered() -> None:
    # 300 variation values with independent face effects: 300 intervals of independent data per
    # study (given the shared face draws). Coverage 0.95: binomial 99.9 % region at n = 300 is
    # [0.914, 0.977]; the percentile face bootstrap at 60 faces undercovers by ~0.005.
    rng = np.random.default_rng(11)
    planted = {f"v{i:03d}": float(rng.uniform(-0.1, 0.1)) for i in range(300)}
    data = planted_pair(planted, n_faces=60, n_scenarios=4, face_sd=0.05, row_sd=0.05, seed=5)
    out = model_differences(data, resampling=Resampling(resamples=1000, ci_method="percentile")).filter(
        pl.col("level") == "variation_value"
    )
    truth = out["variation_value"].replace_strict(planted).to_numpy()
    covered = (out["ci_low"].to_numpy() <= truth) & (truth <= out["ci_high"].to_numpy())
    assert 0.91 <= covered.mean() <= 0.98
    # face_sd = row_sd: rho = 1/2, deff = 1 + 3 * 0.5 = 2.5 (mean over values; Monte Carlo ~0.05)
    assert out["design_effect"].mean() == pytest.approx(2.5, abs=0.15)
    # the clustered SE is the sd of the bootstrap distribution's scale: CI width ~ 2 * 1.96 * SE
    width = (out["ci_high"] - out["ci_low"]).to_numpy()
    assert np.median(width / (2 * 1.96 * out["se_clustered"].to_numpy())) == pytest.approx(1.0, abs=0.08)


def test_bh_controls_false_positives_without_true_differences() -> None:
    null = {f"v{i:02d}": 0.0 for i in range(40)}
    out = model_differences(planted_pair(null, n_faces=30, seed=2), resampling=Resampling(resamples=200))
    assert out.filter(pl.col("p_adj") < 0.05).height <= 1  # BH at 0.05 under the complete null
    mixed = {**null, **{f"w{i:02d}": 0.06 for i in range(10)}}
    rows = model_differences(
        planted_pair(mixed, n_faces=30, seed=4), resampling=Resampling(resamples=200)
    ).filter(pl.col("level") == "variation_value")
    discoveries = rows.filter(pl.col("p_adj") < 0.05)["variation_value"].to_list()
    assert sum(v.startswith("w") for v in discoveries) >= 9  # the planted differences are found
    assert sum(v.startswith("v") for v in discoveries) <= 2  # FDR 0.05 of ~10 discoveries


def test_row_order_does_not_change_any_number() -> None:
    data = planted_pair({"v1": 0.02, "v2": 0.0, "v3": -0.04}, n_faces=15)
    first = model_differences(data, resampling=Resampling(resamples=300, seed=1))
    shuffled = model_differences(
        data.sample(fraction=1.0, shuffle=True, seed=9), resampling=Resampling(resamples=300, seed=1)
    )
    assert first.equals(shuffled)


def test_one_model_gives_an_empty_table() -> None:
    data = planted_pair({"v1": 0.0}, n_faces=5).filter(pl.col("model_id") == "m1")
    out = model_differences(data, resampling=Resampling(resamples=100))
    assert out.height == 0 and "design_effect" in out.columns


def test_cells_two_models_do_not_share_are_left_out() -> None:
    data = planted_pair({"v1": 0.05, "v2": 0.0}, n_faces=8)
    third = data.filter(
        (pl.col("model_id") == "m1") & (pl.col("face_id") != "f000") & (pl.col("scenario_id") != "s2")
    ).with_columns(model_id=pl.lit("m3"))
    out = model_differences(
        pl.concat([data, third]), resampling=Resampling(resamples=100), levels=("scenario",)
    )
    pairs = out.group_by("model_a", "model_b").agg(pl.col("scenario_id").sort(), pl.col("n").max())
    rows = {(r["model_a"], r["model_b"]): r for r in pairs.iter_rows(named=True)}
    assert rows[("m1", "m2")]["scenario_id"] == ["s0", "s1", "s2"] and rows[("m1", "m2")]["n"] == 8
    assert rows[("m1", "m3")]["scenario_id"] == ["s0", "s1"] and rows[("m1", "m3")]["n"] == 7
    assert (
        out.filter((pl.col("model_b") == "m3") & (pl.col("model_a") == "m1"))["estimate"].abs().max() == 0.0
    )
