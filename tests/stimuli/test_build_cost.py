"""Costs before spending: the calls, images, expected retries and price of a [build], and `cueshift plan`."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

import cueshift as cs
from cueshift.cli import app
from cueshift.designs import load_study
from cueshift.stimuli.cost import cost_lines, expected_tries, generation_cost
from tests.stimuli.studies import write_study

API = '{base_url = "http://127.0.0.1:9/v1", price_per_image = 0.04}'


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("max_tries", [1, 3, 6])
def test_expected_tries_is_the_mean_of_the_truncated_geometric_law(p: float, max_tries: int) -> None:
    # tries = k < T when k - 1 failures then a success; tries = T after T - 1 failures, whatever the last
    law = {k: p ** (k - 1) * (1 - p) for k in range(1, max_tries)} | {max_tries: p ** (max_tries - 1)}
    assert sum(law.values()) == pytest.approx(1.0)
    assert expected_tries(p, max_tries) == pytest.approx(sum(k * q for k, q in law.items()))


def test_before_any_build_calls_are_a_range_and_local_rates_are_not_invented(tmp_path: Path) -> None:
    study = load_study(
        write_study(tmp_path, count=6, edit=API, edit_generator="openai-images", edit_model="m")
    )
    frame = generation_cost(study)
    base, edit = frame.row(0, named=True), frame.row(1, named=True)
    # 6 faces; 2 variations each (sunglasses and a cap, both allowed for every cell): 12 edits
    assert (base["images"], base["calls_min"], base["calls_max"]) == (6, 6, 18)
    assert (edit["images"], edit["calls_min"], edit["calls_max"]) == (12, 12, 36)
    assert base["calls_expected"] is None and edit["calls_expected"] is None
    assert (base["kind"], base["per_call"], base["cost_unit"]) == ("local", None, "GPU-seconds")
    assert base["rate_source"].startswith("no measured rate")
    assert (edit["kind"], edit["cost_unit"]) == ("api", "USD")
    assert (edit["cost_min"], edit["cost_max"]) == pytest.approx((12 * 0.04, 36 * 0.04))
    lines = cost_lines(frame)
    assert lines[0] == (
        "build base (demo-faces, local): 6 images, 6-18 calls (no build yet: calls from min to max); "
        "GPU-seconds: no measured rate (run a --limit build to measure one)"
    )
    assert lines[1] == (
        "build variation (openai-images m, api): 12 images, 12-36 calls "
        "(no build yet: calls from min to max); USD: 0.48-1.44 at 0.04 per call (price_per_image)"
    )


def test_a_trial_build_measures_the_failure_share_and_the_seconds(tmp_path: Path) -> None:
    path = write_study(
        tmp_path, count=12, base="{refuse_rate = 0.3}", edit="{fail_rate = 0.4, noop_rate = 0.2}"
    )
    summary = cs.build(path, progress=False, limit=4)
    with duckdb.connect(str(summary.database), read_only=True) as con:
        tries = con.sql("SELECT stage, outcome, seconds FROM generation").pl()
    frame = generation_cost(load_study(path))
    share, seconds = {}, {}
    for stage in ("base", "variation"):
        of = tries.filter(pl.col("stage") == stage)
        share[stage] = of.filter(pl.col("outcome") != "ok").height / of.height
        seconds[stage] = of.filter(pl.col("outcome") == "ok")["seconds"].mean()
    assert 0 < share["base"] < 1 and 0 < share["variation"] < 1  # the planted failures happened
    base, edit = frame.row(0, named=True), frame.row(1, named=True)
    assert base["fail_share"] == pytest.approx(share["base"])
    assert edit["fail_share"] == pytest.approx(share["variation"])
    # three tries at most; a variation is made only for a kept base
    e_base = sum(share["base"] ** k for k in range(3))
    e_edit = sum(share["variation"] ** k for k in range(3))
    assert base["calls_expected"] == pytest.approx(12 * e_base)
    assert edit["calls_expected"] == pytest.approx(24 * (1 - share["base"] ** 3) * e_edit)
    assert base["expected_retries"] == pytest.approx(12 * (e_base - 1))
    assert base["per_call"] == pytest.approx(seconds["base"])
    assert base["cost_expected"] == pytest.approx(12 * e_base * seconds["base"])
    assert base["rate_source"] == "measured: this study's stored ok tries"


def test_cueshift_plan_prints_and_writes_the_build_cost(tmp_path: Path) -> None:
    path = write_study(tmp_path, count=6, edit=API, edit_generator="openai-images", edit_model="m")
    out = tmp_path / "plan"
    args = ["plan", "--study", str(path), "--out", str(out), "--simulations", "0", "--curve-simulations", "0"]
    before = CliRunner().invoke(app, args)
    assert before.exit_code == 0, before.output
    assert "build variation (openai-images m, api): 12 images, 12-36 calls" in before.output
    assert "no image set yet" in before.output
    assert pl.read_csv(out / "plan_build_cost.csv")["images"].to_list() == [6, 12]
    assert sorted(p.name for p in out.iterdir()) == ["plan_build_cost.csv"]
    (tmp_path / "local").mkdir()
    local = write_study(tmp_path / "local", count=6)  # demo-faces makes both stages: a trial build
    cs.build(local, progress=False, limit=2)
    after = CliRunner().invoke(app, [*args[:2], str(local), *args[3:]])
    assert after.exit_code == 0, after.output
    assert "Cost per model" in after.output  # the judgments' plan, then the build's
    assert "build base (demo-faces, local): 6 images" in after.output
    assert "GPU-seconds: " in after.output and "measured: this study's stored ok tries" in after.output
    assert (out / "plan_cost.csv").is_file() and (out / "plan_build_cost.csv").is_file()
