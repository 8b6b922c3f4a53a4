"""Plans of the other designs: pairwise (binomial power, Wilson half-width, position bias), paired
(Kruskal-Wallis and paired Wilcoxon) and probe (images for a target interval on Spearman's rho),
with and without a pilot; their methods agree and their tables pass the schemas."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from cueshift.designs import parse_study
from cueshift.designs.probe.planner import spearman_half_width
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.plan import PlanRequest, Targets, plan_study
from cueshift.stats import spearman_with_ci
from tests.power.conftest import assert_agree

STUDIES = Path(__file__).resolve().parents[2] / "studies"


def _study(name: str, tmp: Path, **changes: Any) -> Any:
    data = tomllib.loads((STUDIES / f"{name}.toml").read_text())
    data["database"] = str(tmp / f"{name}.duckdb")
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            data.setdefault(section, {})[field] = value
        else:
            data[section] = value
    return parse_study(data, name)


def test_pairwise_plan_with_and_without_a_pilot(tmp_path: Path) -> None:
    synthetic = {
        "races": ["White", "Arab"],
        "genders": ["female", "male"],
        "per_group": {"western": 4, "local": 6},
    }
    study = _study(
        "pairwise-002", tmp_path, pairwise__synthetic={**synthetic, "cache_dir": str(tmp_path / "c")}
    )
    defaults = plan_study(PlanRequest(study, targets=Targets(effect=0.1), simulations=300))
    cohort = defaults.power.filter(pl.col("test") == "cohort_preference")
    assert cohort.height == 2 * 4 and (cohort["n_tests"] == 8).all()  # BH over every model x cohort
    assert_agree(defaults.power)
    assert cohort["units_planned"][0] == int(np.floor(4 * 6 * 2 * (1 - 0.02)))  # W x L x both orders
    run_study(study, RunOptions(progress=False))
    piloted = plan_study(PlanRequest(study, pilot=study.database_path, simulations=100))
    assert "pilot" in piloted.source
    strong = piloted.power.filter(
        (pl.col("model_id") == "sim-strong") & (pl.col("test") == "cohort_preference")
    )
    assert (strong["effect"] > 0.15).all()  # the planted Western preference, measured in the pilot
    assert_agree(piloted.power)


def test_paired_plan_tests_each_scenario_twice(tmp_path: Path) -> None:
    study = _study("paired-001", tmp_path, paired__synthetic={"cfd_per_cell": 1, "faces_per_cell": 1})
    result = plan_study(PlanRequest(study, targets=Targets(effect=0.08), faces=60, simulations=200))
    assert set(result.power["test"]) == {"paired_wilcoxon", "paired_kruskal"}
    assert (result.power["n_tests"] == 91).all() and (result.power["alpha_level"] == 0.05).all()  # no BH
    wilcoxon = result.power.filter(pl.col("test") == "paired_wilcoxon")
    kruskal = result.power.filter(pl.col("test") == "paired_kruskal")
    assert (wilcoxon["power"] > kruskal["power"]).all()  # pairing removes the individual's intercept
    assert_agree(result.power)


def test_probe_half_width_matches_the_analysis_interval() -> None:
    rng = np.random.default_rng(2)
    rho_s, n = 0.45, 150
    r = 2 * np.sin(np.pi * rho_s / 6)
    widths = []
    for _ in range(300):
        x = rng.standard_normal(n)
        y = r * x + np.sqrt(1 - r**2) * rng.standard_normal(n)
        _, low, high, _, _ = spearman_with_ci(x, y)
        widths.append((high - low) / 2)
    assert float(spearman_half_width(rho_s, n)) == pytest.approx(np.mean(widths), rel=0.05)


def test_probe_plan_gives_the_images_for_a_target_half_width(tmp_path: Path) -> None:
    study = _study("probe-004", tmp_path)
    result = plan_study(PlanRequest(study, targets=Targets(effect=0.08), simulations=100))
    rows = result.power
    assert set(rows["test"]) == {"similarity_ci"}
    needed = rows["units_for_target"].to_numpy()
    rho = rows["effect"].to_numpy()
    assert np.all(spearman_half_width(rho, needed) <= 0.08 + 1e-9)
    assert np.all(spearman_half_width(rho, needed - 1) > 0.08)
    assert_agree(rows)


def test_probe_plan_from_a_pilot_reads_reliability_and_rho(tmp_path: Path) -> None:
    study = _study(
        "probe-004",
        tmp_path,
        image_set={"kind": "demo", "size": 20, "cache_dir": str(tmp_path / "demo")},
        scenarios={"set": "omi-34", "only": ["happy", "age", "trustworthy", "attractive"]},
    )
    run_study(study, RunOptions(progress=False))
    result = plan_study(
        PlanRequest(study, pilot=study.database_path, targets=Targets(effect=0.1), simulations=50)
    )
    assert "pilot" in result.source
    reliability = result.components.filter(pl.col("component").str.starts_with("reliability"))
    assert reliability.height == 4 * 4 and reliability["estimate"].is_between(0, 1).all()
    assert result.power.height == 4 * 4  # 4 models x 4 attributes
