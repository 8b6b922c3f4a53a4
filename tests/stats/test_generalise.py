"""``--generalise faces+scenarios``: the crossed (product) bootstrap of faces and scenarios.

Checked against the closed form of the product bootstrap's variance, against the face-level
bootstrap when no scenario is redrawn, and on planted crossed data whose per-scenario effects
vary (coverage of the planted population mean); end to end, the SBS table and the manifest.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm

import cueshift
from cueshift import store
from cueshift.designs import AnalysisRequest
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.console import generalise_line
from cueshift.designs.stylisticbias.design import StylisticBiasDesign
from cueshift.designs.stylisticbias.stats import category_demographic_table, model_differences, sbs_levels
from cueshift.errors import ConfigError
from cueshift.render import Report
from cueshift.stats import (
    Resampling,
    RunChoices,
    cluster_bootstrap,
    crossed_bootstrap,
    face_multiplicities,
    scenario_multiplicities,
)
from cueshift.stats._crossed_variance import crossed_jackknife
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study


def planted(rng: np.random.Generator, n_faces: int, n_scen: int, tau: float, sd_face: float, sd_noise: float):
    """``y[f, s] = mu + a_f + b_s + e_fs`` with ``mu = 0.1``: one row, as (sums, counts, scale)."""
    y = (
        0.1
        + rng.normal(0, sd_face, (n_faces, 1))
        + rng.normal(0, tau, (1, n_scen))
        + rng.normal(0, sd_noise, (n_faces, n_scen))
    )
    return y[:, None, :].copy(), np.ones((n_faces, 1, n_scen)), 1.0


def _estimate(sums: np.ndarray, counts: np.ndarray) -> float:
    """The statistic by its definition: the mean over faces with data of each face's mean."""
    face_n = counts.sum(axis=1)
    return float((sums.sum(axis=1)[face_n > 0] / face_n[face_n > 0]).mean())


def test_the_crossed_variance_is_the_two_way_anova_estimator():
    # balanced: V = (MS_face + MS_scenario - MS_resid) / (F S), Satterthwaite df, from statsmodels
    rng = np.random.default_rng(3)
    sums, counts, scale = planted(rng, 30, 9, tau=0.3, sd_face=0.2, sd_noise=0.25)
    f, s = 30, 9
    frame = pd.DataFrame(
        {"y": sums[:, 0, :].ravel(), "face": np.repeat(np.arange(f), s), "scen": np.tile(np.arange(s), f)}
    )
    table = anova_lm(ols("y ~ C(face) + C(scen)", data=frame).fit())
    ms = table["mean_sq"].to_numpy() / (f * s)  # face, scenario, residual
    dfs = table["df"].to_numpy()
    variance = ms[0] + ms[1] - ms[2]
    jack = crossed_jackknife(sums, counts, scale)
    assert jack.variance[0] == pytest.approx(variance, rel=1e-9)
    assert jack.df[0] == pytest.approx(variance**2 / np.sum(ms**2 / dfs), rel=1e-9)


def test_the_jackknife_terms_delete_faces_and_scenarios_on_unbalanced_cells():
    # brute force: the statistic recomputed without each face, scenario and (face, scenario)
    rng = np.random.default_rng(9)
    f, s = 12, 5
    counts = rng.integers(0, 3, (f, s)).astype(np.float64)
    counts[0] = 0.0  # a face without data in the row
    counts[1] = [0, 0, 2, 0, 0]  # a face seen in one scenario only
    sums = counts * (rng.exponential(1.0, (f, s)) + rng.exponential(2.0, s))  # skewed, scenario effects
    theta = _estimate(sums, counts)
    faces = [i for i in range(f) if counts[i].sum() > 0]
    scens = [j for j in range(s) if counts[:, j].sum() > 0]

    def without(rows: list[int], cols: list[int]) -> float:
        keep_c = counts.copy()
        keep_c[rows] = 0.0
        keep_c[:, cols] = 0.0
        return _estimate(np.where(keep_c > 0, sums, 0.0), keep_c)

    t_f = np.array([without([i], []) for i in faces])
    t_s = np.array([without([], [j]) for j in scens])
    inter = np.array([[without([i], [j]) for j in scens] for i in faces]) - t_f[:, None] - t_s[None] + theta
    nf, ns = len(faces), len(scens)
    a = (nf - 1) / nf * np.sum((t_f - t_f.mean()) ** 2)
    b = (ns - 1) / ns * np.sum((t_s - t_s.mean()) ** 2)
    c = (nf - 1) * (ns - 1) / (nf * ns) * np.sum(inter**2)
    u_f, u_s = t_f.mean() - t_f, t_s.mean() - t_s
    accel = (np.sum(u_f**3) + np.sum(u_s**3)) / (6 * (np.sum(u_f**2) + np.sum(u_s**2)) ** 1.5)
    jack = crossed_jackknife(sums[:, None, :], counts[:, None, :], 1.0)
    assert a >= c and b >= c  # all three terms kept
    assert jack.variance[0] == pytest.approx(a + b - c, rel=1e-9)
    assert jack.accel[0] == pytest.approx(accel, rel=1e-9) and abs(accel) > 1e-3


def test_the_crossed_interval_has_the_t_width_of_the_crossed_variance():
    rng = np.random.default_rng(3)
    sums, counts, scale = planted(rng, 50, 12, tau=0.3, sd_face=0.2, sd_noise=0.25)
    n_rep = 20_000
    w, v = face_multiplicities(50, n_rep, 1), scenario_multiplicities(12, n_rep, 1)
    boot = crossed_bootstrap(sums, counts, scale, w, v, method="percentile")
    jack = crossed_jackknife(sums, counts, scale)
    half = sps.t.ppf(0.975, jack.df[0]) * np.sqrt(jack.variance[0])
    assert boot.estimate[0] == pytest.approx(sums.mean())
    assert 11 < jack.df[0] < 49  # between the scenarios' and the faces' degrees of freedom
    assert (boot.ci_high[0] - boot.ci_low[0]) / 2 == pytest.approx(half, rel=0.03)


def test_without_redrawn_scenarios_it_is_the_face_level_bootstrap():
    rng = np.random.default_rng(4)
    sums, counts, scale = planted(rng, 40, 8, tau=0.3, sd_face=0.2, sd_noise=0.25)
    w = face_multiplicities(40, 2_000, 7)
    fixed = np.ones((2_000, 8))
    crossed = crossed_bootstrap(sums, counts, scale, w, fixed, method="bca")
    faces, _ = cluster_bootstrap(sums.mean(axis=2), multiplicities=w, method="bca")
    np.testing.assert_allclose([crossed.ci_low, crossed.ci_high], [faces.ci_low, faces.ci_high], atol=1e-12)


def _coverage(tau: float, n_sims: int, seed: int) -> tuple[float, float, float]:
    """Shares of the faces-only and crossed 95 % intervals covering the planted mean, and their
    mean width ratio (crossed / faces-only)."""
    rng = np.random.default_rng(seed)
    n_faces, n_scen, n_rep = 60, 20, 600
    hits = np.zeros(2)
    ratio = 0.0
    for i in range(n_sims):
        sums, counts, scale = planted(rng, n_faces, n_scen, tau, sd_face=0.3, sd_noise=0.3)
        w = face_multiplicities(n_faces, n_rep, i)
        widths = []
        for k, v in enumerate((np.ones((n_rep, n_scen)), scenario_multiplicities(n_scen, n_rep, i))):
            boot = crossed_bootstrap(sums, counts, scale, w, v, method="percentile")
            hits[k] += boot.ci_low[0] <= 0.1 <= boot.ci_high[0]
            widths.append(boot.ci_high[0] - boot.ci_low[0])
        ratio += widths[1] / widths[0] / n_sims
    return hits[0] / n_sims, hits[1] / n_sims, ratio


def test_on_planted_scenario_effects_only_the_crossed_interval_covers_the_population_mean():
    faces_only, crossed, _ = _coverage(tau=0.3, n_sims=120, seed=11)
    assert crossed >= 0.88  # nominal 0.95 (full figures: benchmarks/bench_generalise.py)
    # the scenario variance tau^2/S is missing: sd ratio ~0.6, expected coverage ~0.75
    assert faces_only <= 0.8 and crossed - faces_only >= 0.15


def test_with_few_scenarios_that_dominate_the_crossed_interval_still_covers():
    # 6 scenarios, scenario variance ~95 % of the estimate's: the untreated product bootstrap
    # covers ~87 % here (variance (S-1)/S too small, z in place of t with ~5 df)
    rng = np.random.default_rng(21)
    n_faces, n_scen, n_rep, n_sims = 40, 6, 400, 300
    hits = 0
    for i in range(n_sims):
        sums, counts, scale = planted(rng, n_faces, n_scen, 0.3, sd_face=0.2, sd_noise=0.2)
        w, v = face_multiplicities(n_faces, n_rep, i), scenario_multiplicities(n_scen, n_rep, i)
        boot = crossed_bootstrap(sums, counts, scale, w, v, method="bca")
        hits += boot.ci_low[0] <= 0.1 <= boot.ci_high[0]
    assert 0.915 <= hits / n_sims <= 0.985  # nominal 0.95; SE 0.013


def test_without_scenario_effects_the_two_intervals_agree():
    faces_only, crossed, ratio = _coverage(tau=0.0, n_sims=60, seed=12)
    assert faces_only >= 0.85 and crossed >= 0.85
    # the product bootstrap counts the residual 3 times instead of once: here about +4.5 % width
    assert 1.0 <= ratio <= 1.08


def _planted_delta(tau: float) -> pl.DataFrame:
    rng = np.random.default_rng(5)
    n_faces, n_scen = 30, 8
    a, b = rng.normal(0, 0.1, n_faces), rng.normal(0, tau, n_scen)
    rows = [
        {
            "model_id": model,
            "face_id": f"f{f:02d}",
            "variation_category": "Hair",
            "variation_value": value,
            "scenario_category": f"c{s % 2}",
            "scenario_id": f"s{s}",
            "delta": 0.1 + a[f] + b[s] + rng.normal(0, 0.1),
            "phi_variation": 0.5,
            "phi_base": 0.4,
            "gender": "Male" if f % 2 else "Female",
        }
        for f in range(n_faces)
        for s in range(n_scen)
        for model in ("m1", "m2")
        for value in ("bald", "curly")
    ]
    return pl.DataFrame(rows)


def test_sbs_rows_over_scenarios_widen_and_one_scenario_rows_stay():
    delta = _planted_delta(tau=0.3)
    common: dict[str, Any] = {"resampling": Resampling(resamples=1_000, seed=2), "dimensions": ("gender",)}
    faces = sbs_levels(delta, **common)
    crossed = sbs_levels(delta, generalise="faces+scenarios", **common)
    assert faces["estimate"].equals(crossed["estimate"]) and faces["p"].equals(crossed["p"])
    width = (pl.col("ci_high") - pl.col("ci_low")).alias("width")
    joined = faces.select("level", width).with_columns(crossed.select(width.alias("crossed")))
    one_scenario = joined.filter(pl.col("level").is_in(["scenario", "cell"]))
    assert (one_scenario["width"] == one_scenario["crossed"]).all()
    pooled = joined.filter(~pl.col("level").is_in(["scenario", "cell"]))
    assert (pooled["crossed"] > 1.5 * pooled["width"]).all()
    with pytest.raises(ValueError, match="faces\\+scenarios"):
        sbs_levels(delta, generalise="scenarios", **common)


def test_table3_group_rows_widen_as_the_sbs_demographic_rows_do():
    delta = _planted_delta(tau=0.3)
    common: dict[str, Any] = {"resampling": Resampling(resamples=1_000, seed=2), "dimensions": ("gender",)}
    faces = category_demographic_table(delta, **common)
    crossed = category_demographic_table(delta, generalise="faces+scenarios", **common)
    assert faces["estimate"].equals(crossed["estimate"]) and faces["p"].equals(crossed["p"])
    groups = pl.col("group") != "(mean of groups)"
    wide = (crossed.filter(groups)["ci_high"] - crossed.filter(groups)["ci_low"]).to_numpy()
    narrow = (faces.filter(groups)["ci_high"] - faces.filter(groups)["ci_low"]).to_numpy()
    assert wide.size == 2 and (wide > 1.5 * narrow).all()
    # one attribute category: Table 3's group rows are the SBS pooled demographic rows (same draws)
    sbs = sbs_levels(delta, generalise="faces+scenarios", **common).filter(
        (pl.col("level") == "demographic_group") & (pl.col("model_id") == "(pooled)")
    )
    table3 = crossed.filter(groups).sort("group")
    np.testing.assert_allclose(table3["ci_low"], sbs.sort("group")["ci_low"], rtol=1e-9)


def test_model_differences_widen_with_model_by_scenario_effects_only_over_scenarios():
    delta = _planted_delta(tau=0.0)
    shift = dict(zip([f"s{s}" for s in range(8)], np.random.default_rng(8).normal(0, 0.3, 8), strict=True))
    delta = delta.with_columns(
        pl.when(pl.col("model_id") == "m1")
        .then(pl.col("delta") + pl.col("scenario_id").replace_strict(shift))
        .otherwise(pl.col("delta"))
        .alias("delta")
    )
    common: dict[str, Any] = {"resampling": Resampling(resamples=1_000, seed=2)}
    faces = model_differences(delta, **common)
    crossed = model_differences(delta, generalise="faces+scenarios", **common)
    assert faces["estimate"].equals(crossed["estimate"]) and faces["p"].equals(crossed["p"])
    width = (pl.col("ci_high") - pl.col("ci_low")).alias("width")
    joined = faces.select("level", width).with_columns(crossed.select(width.alias("crossed")))
    scenario = joined.filter(pl.col("level") == "scenario")
    assert scenario.height == 8 and (scenario["width"] == scenario["crossed"]).all()
    over = joined.filter(pl.col("level") != "scenario")
    assert over.height == 3 and (over["crossed"] > 3 * over["width"]).all()


def test_the_option_is_checked_and_recorded_in_the_manifest(tmp_path):
    options = StylisticBiasDesign.options
    with pytest.raises(ConfigError, match="--generalise 'everything'"):
        options.check("stylisticbias", AnalysisRequest(generalise="everything"))
    other = type(options)(tests=("rank",), ci_methods=("analytic",))
    other.check("paired", AnalysisRequest(generalise="faces"))
    with pytest.raises(ConfigError, match="no scenario resampling"):
        other.check("paired", AnalysisRequest(generalise="faces+scenarios"))
    con = store.open_study(tmp_path / "study.duckdb")
    try:
        write_study(con, simulate_study(SimulationSpec(n_faces=12, models=("m-a",), seed=3)))
        run_analyses(
            con,
            Resampling(resamples=200),
            RunChoices(generalise="faces+scenarios"),
            only=["sbs"],
            progress=False,
        )
        manifest = con.execute("SELECT name, generalise FROM result_manifest").fetchall()
        line = generalise_line(con)
        note = Report(
            con, tmp_path / "study.duckdb", ["m-a"], ["m-a"], StylisticBiasDesign().report()
        ).generalise()
    finally:
        con.close()
    assert manifest == [("sbs", "faces+scenarios")]
    assert line.startswith("intervals: --generalise faces+scenarios")
    assert "generalise over faces *and* scenarios" in note


def test_the_cli_refuses_generalise_for_a_design_without_scenario_resampling(tmp_path):
    db = tmp_path / "never.duckdb"
    study = Path(cueshift.__file__).parent / "studies" / "pairwise-002.toml"
    result = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "analyze", "--study", str(study), "--db", str(db)]
        + ["--generalise", "faces+scenarios", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--generalise faces+scenarios:" in lines[0] and "pairwise" in lines[0]
    assert not db.exists()


def test_with_two_faces_the_crossed_interval_stays_in_the_range_of_delta(tmp_path):
    """Two faces: ν is about 1, t_ν large, and the rescaled interval left [-1, 1] (a 2-face demo
    study's ``analyze --generalise faces+scenarios`` failed its schema check); it is cut there."""
    rng = np.random.default_rng(7)
    y = np.clip(-0.7 + rng.normal(0, 0.3, (2, 1)) + rng.normal(0, 0.3, (2, 25)), -1.0, 1.0)
    sums, counts = y[:, None, :].copy(), np.ones((2, 1, 25))
    w, v = face_multiplicities(2, 2000, 1), scenario_multiplicities(25, 2000, 1)
    unbounded = crossed_bootstrap(sums, counts, 1.0, w, v, method="percentile")
    bounded = crossed_bootstrap(sums, counts, 1.0, w, v, method="percentile", bounds=(-1.0, 1.0))
    assert unbounded.ci_low[0] < -1.0  # the case: the rescaled interval leaves the range
    assert bounded.ci_low[0] == -1.0 and bounded.ci_high[0] == unbounded.ci_high[0] <= 1.0
    # end to end: a 2-face demo study analyses over faces and scenarios within the schema's range
    from cueshift.api import write_demo_study

    study = write_demo_study(tmp_path, faces=2)
    cueshift.infer(study)
    analysed = cueshift.analyze(study, generalise="faces+scenarios", resamples=200)
    sbs = analysed.results("sbs")
    lowest, highest = sbs.select(pl.col("ci_low").min(), pl.col("ci_high").max()).row(0)
    assert lowest >= -1.0 and highest <= 1.0
    assert (sbs["ci_low"] <= sbs["estimate"]).all() and (sbs["estimate"] <= sbs["ci_high"]).all()
