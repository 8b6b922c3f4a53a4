"""``--generalise faces+scenarios``: the crossed (product) bootstrap of faces and scenarios.

Checked against the closed form of the product bootstrap's variance, against the face-level
bootstrap when no scenario is redrawn, and on planted crossed data whose per-scenario effects
vary (coverage of the planted population mean); end to end, the SBS table and the manifest.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

import cueshift
from cueshift import store
from cueshift.designs import AnalysisRequest
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.console import generalise_line
from cueshift.designs.stylisticbias.design import StylisticBiasDesign
from cueshift.designs.stylisticbias.stats import category_demographic_table, model_differences, sbs_levels
from cueshift.errors import ConfigError
from cueshift.render import Report
from cueshift.stats.kernels import (
    cluster_bootstrap,
    crossed_bootstrap,
    face_multiplicities,
    scenario_multiplicities,
)
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


def test_the_product_bootstrap_variance_is_its_closed_form():
    # Var*(mean) = sum(a^2)/F^2 + sum(b^2)/S^2 + sum(e^2)/(FS)^2 with the sample's
    # double-centred effects (multinomial face and scenario weights, drawn independently)
    rng = np.random.default_rng(3)
    sums, counts, scale = planted(rng, 50, 12, tau=0.3, sd_face=0.2, sd_noise=0.25)
    y = sums[:, 0, :]
    a = y.mean(axis=1) - y.mean()
    b = y.mean(axis=0) - y.mean()
    e = y - y.mean(axis=1, keepdims=True) - y.mean(axis=0, keepdims=True) + y.mean()
    f, s = y.shape
    sd = np.sqrt((a**2).sum() / f**2 + (b**2).sum() / s**2 + (e**2).sum() / (f * s) ** 2)
    n_rep = 40_000
    boot = crossed_bootstrap(
        sums,
        counts,
        scale,
        face_multiplicities(f, n_rep, 1),
        scenario_multiplicities(s, n_rep, 1),
        method="percentile",
    )
    z = sps.norm.ppf(0.975)
    assert boot.estimate[0] == pytest.approx(y.mean())
    assert (boot.ci_high[0] - boot.ci_low[0]) / (2 * z) == pytest.approx(sd, rel=0.04)


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
    common = {"n_resamples": 1_000, "seed": 2, "dimensions": ("gender",)}
    faces = sbs_levels(delta, **common)
    crossed = sbs_levels(delta, generalise="faces+scenarios", **common)
    assert faces["estimate"].equals(crossed["estimate"]) and faces["p_value"].equals(crossed["p_value"])
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
    common = {"n_resamples": 1_000, "seed": 2, "dimensions": ("gender",)}
    faces = category_demographic_table(delta, **common)
    crossed = category_demographic_table(delta, generalise="faces+scenarios", **common)
    assert faces["estimate"].equals(crossed["estimate"]) and faces["p_value"].equals(crossed["p_value"])
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
    common = {"n_resamples": 1_000, "seed": 2}
    faces = model_differences(delta, **common)
    crossed = model_differences(delta, generalise="faces+scenarios", **common)
    assert faces["estimate"].equals(crossed["estimate"]) and faces["p_value"].equals(crossed["p_value"])
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
        run_analyses(con, n_resamples=200, only=["sbs"], progress=False, generalise="faces+scenarios")
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
