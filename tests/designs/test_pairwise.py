"""Seed 002 pairwise design: Tables 3/4 reproduced from the published counts, parsers,
pair generation, planted preferences and position bias end to end with the simulated judge."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.designs import analyze_design, load_study, parse_study
from cueshift.designs.pairwise.ratings import assign_bins
from cueshift.designs.pairwise.workload import plan_pairs
from cueshift.errors import CueshiftError
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.images.human_ratings import read_long_ratings, read_stimuli
from cueshift.inference.parser_pairwise import parse_pairwise_answer, parse_rating
from cueshift.inference.stand_ins.simulated_design_latents import pairwise_win_probability
from cueshift.inference.stand_ins.simulated_design_settings import PairwiseJudgeSettings

STUDY = Path(__file__).resolve().parents[2] / "studies" / "pairwise-002.toml"


def test_parsers_are_strict() -> None:
    for text, side in [
        ("1", "left"),
        ("**2**", "right"),
        ("Image 1 (left).", "left"),
        ("Right", "right"),
        ("Answer: 2", "right"),
        ("the left one", "left"),
    ]:
        assert parse_pairwise_answer(text)[0] == side, text
    for text in ["1 or 2", "Both are equally attractive.", "1 (right)", "I choose 1", "12", ""]:
        assert parse_pairwise_answer(text)[0] is None, text
    for text, value in [
        ("7", 7.0),
        ("Rating: 7/10", 7.0),
        ("8 out of 10", 8.0),
        ("**6.5**", 6.5),
        ("0", 0.0),
    ]:
        assert parse_rating(text)[0] == value, text
    for text in ["11", "-1", "6-7", "Between 5 and 7.", "7 or 8", "N/A", "seven"]:
        assert parse_rating(text)[0] is None, text


def test_bins_follow_their_closed_ends() -> None:
    bins = [("low", 0, 4, "left"), ("moderate", 4, 6, "both"), ("high", 6, 10, "right")]
    assert assign_bins([0, 3.9, 4, 6, 6.5, 10, None, 11], bins) == [
        "low",
        "low",
        "moderate",
        "moderate",
        "high",
        "high",
        None,
        None,
    ]


def test_pairs_are_crossed_within_cohorts_with_swapped_repeats() -> None:
    stimuli = pl.DataFrame(
        {
            "image_id": [f"w{i}" for i in range(4)] + [f"l{i}" for i in range(10)] + ["x-w", "x-l"],
            "cohort": ["A"] * 14 + ["B"] * 2,
            "stimulus_group": ["western"] * 4 + ["local"] * 10 + ["western", "local"],
        }
    )
    both = plan_pairs(stimuli, target="western", other="local", swap_repeats=True, seeds=[0])
    assert (
        both.filter(pl.col("cohort") == "A").height == 80 and both.filter(pl.col("cohort") == "B").height == 2
    )
    assert (both["left_group"] != both["right_group"]).all()
    one = plan_pairs(stimuli, target="western", other="local", swap_repeats=False, seeds=[0, 1])
    assert one.filter(pl.col("cohort") == "A").height == 80
    assert 20 < one.filter((pl.col("cohort") == "A") & (pl.col("left_group") == "western")).height < 60


def test_csv_inputs_fail_with_file_row_field(tmp_path: Path) -> None:
    path = tmp_path / "humans.csv"
    path.write_text("stimulus,attribute,rater,rating\na,x,r1,5\nb,x,r1,five\n")
    with pytest.raises(CueshiftError, match=r"humans.csv: row 2: field 'rating': 'five' is not a number"):
        read_long_ratings(path, stimuli={"a", "b"})
    path.write_text("stimulus,attribute,rater,rating\na,x,r1,5\nzz,x,r1,4\n")
    with pytest.raises(CueshiftError, match=r"row 2: field 'stimulus': unknown stimulus"):
        read_long_ratings(path, stimuli={"a", "b"})
    path.write_text("stimulus,attribute,rater,rating\na,x,r1,5\na,x,r1,4\n")
    with pytest.raises(CueshiftError, match=r"row 2: rater 'r1' rates 'a' on 'x' twice \(first in row 1\)"):
        read_long_ratings(path, stimuli={"a"})
    path.write_text("stimulus,attribute,rater,rating\na,x,r1,12\n")
    with pytest.raises(CueshiftError, match=r"row 1: field 'rating': 12 is outside 0-10"):
        read_long_ratings(path, stimuli={"a"}, low=0, high=10)
    path.write_text("stimulus,attribute,rater,score\n")
    with pytest.raises(CueshiftError, match=r"field 'rating': required column is missing"):
        read_long_ratings(path, stimuli={"a"})
    stim = tmp_path / "stimuli.csv"
    stim.write_text("image_id,cohort,stimulus_group\na,A,western\na,A,local\n")
    with pytest.raises(CueshiftError, match=r"stimuli.csv: row 2: field 'image_id': 'a' repeats row 1"):
        read_stimuli(stim, images={"a"})


def _small(tmp_path: Path, seeds: list[int]) -> dict[str, Any]:
    data = tomllib.loads(STUDY.read_text())
    data["database"] = str(tmp_path / "pairwise.duckdb")
    data["seeds"] = seeds
    data["pairwise"]["synthetic"] = {
        "races": ["East Asian", "White"],
        "genders": ["female"],
        "per_group": {"western": 4, "local": 10},
        "cache_dir": str(tmp_path / "img"),
    }
    data["pairwise"]["synthetic_humans"]["n_raters"] = 12
    data["models"] = data["models"][:1]  # sim-strong: western +1.6, position +0.3
    return data


def test_pairwise_end_to_end_recovers_planted_preference_and_position(tmp_path: Path) -> None:
    assert load_study(STUDY).design == "pairwise"
    study = parse_study(_small(tmp_path, seeds=[0, 1, 2, 3, 4]), "test")
    summary = run_study(study, RunOptions(progress=False))
    assert summary.n_written == 2 * 80 * 5 + 28 * 5  # trials (2 cohorts x 80 x 5 seeds) + model ratings
    assert run_study(study, RunOptions(progress=False)).n_written == 0
    con = store.open_study(study.database_path)
    try:
        results = analyze_design(con, study)
        trials = store.query(
            con,
            "SELECT t.*, sl.cohort, sl.stimulus_group AS left_group, sr.stimulus_group AS "
            "right_group FROM pairwise_trial t JOIN stimulus sl ON sl.image_id = t.left_image_id "
            "JOIN stimulus sr ON sr.image_id = t.right_image_id",
        )
        tables = {r[0] for r in con.sql("SHOW TABLES").fetchall()}
    finally:
        con.close()
    assert {f"result_{name}" for name in results} <= tables
    settings = PairwiseJudgeSettings.model_validate(study.models[0].settings["pairwise"])
    p_left = pairwise_win_probability(
        settings,
        trials["left_image_id"].to_list(),
        trials["right_image_id"].to_list(),
        trials["left_group"].to_list(),
        trials["right_group"].to_list(),
        trials["cohort"].to_list(),
    )
    truth = trials.with_columns(
        pl.Series("p_target", np.where(trials["left_group"] == "western", p_left, 1 - p_left))
    )
    for row in results["pairwise_cohort"].iter_rows(named=True):
        expected = truth.filter(pl.col("cohort") == row["cohort"])["p_target"].mean()
        assert row["ci_low"] <= expected <= row["ci_high"], row["cohort"]
        assert row["estimate"] > 0.65 and row["p_adj"] < 1e-6
    position = results["pairwise_position"].row(0, named=True)
    assert position["ci_low"] <= float(np.mean(p_left)) <= position["ci_high"]
    bt_position = results["pairwise_bradley_terry"].filter(pl.col("term") == "position")
    assert ((bt_position["estimate"] - 0.3).abs() < 3.3 * bt_position["se"]).all()  # planted h = 0.3 (99.9%)
    effect = results["pairwise_group_effect"]
    # planted western +1.6 (marginal logit, slightly attenuated by the 0.5 sd of stimulus strengths)
    assert ((effect["estimate"] - 1.6).abs() < 0.5).all() and (effect["ci_low"] > 0.8).all()
    bins = results["pairwise_rating_bins"].group_by(["rater", "cohort"]).agg(pl.col("estimate").sum())
    assert bins["estimate"].to_numpy() == pytest.approx(1.0)
    agreement = results["pairwise_rating_model_human"].row(0, named=True)
    assert agreement["estimate"] > 0.5 and agreement["p"] < 1e-3  # model and humans share the latent
    from cueshift.designs import design_named
    from cueshift.render import Report, TableOutput

    catalog = design_named("pairwise").report()
    report = Report.open(study.database_path, None, catalog)
    try:
        for key in [t.key for t in catalog.tables]:
            assert isinstance(report.table(key), TableOutput), key
    finally:
        report.close()
