"""Seed 002 pairwise design: Tables 3/4 reproduced from the published counts, parsers,
pair generation, planted preferences and position bias end to end with the simulated judge."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from cueshift import store
from cueshift.designs import analyze_design, run_design
from cueshift.designs.pairwise import plan_pairs
from cueshift.designs.pairwise import stats as pw
from cueshift.errors import CueshiftError
from cueshift.images.human_ratings import read_long_ratings, read_stimuli
from cueshift.infer.backends.simulated_designs import PairwiseJudgeSettings, pairwise_win_probability
from cueshift.infer.parser_pairwise import parse_pairwise_answer, parse_rating
from cueshift.study.config import load_study, parse_study

STUDY = Path(__file__).resolve().parents[1] / "studies" / "pairwise-002.toml"

# Seed 002 Table 4 (k of 40, Wilson CI in %, OR, q) and the Arab rows of Table 3 (k from the %).
TABLE4 = [
    ("East Asian F", "Gemini", 32, (65, 90), 3.82, "<1e-3"),
    ("East Asian F", "GPT-4o", 37, (80, 97), 10.71, "<1e-3"),
    ("East Asian F", "Hunyuan", 9, (12, 38), 0.30, "<1e-3"),
    ("East Asian M", "Gemini", 27, (52, 80), 2.04, 0.04),
    ("East Asian M", "GPT-4o", 38, (83, 99), 15.40, "<1e-3"),
    ("East Asian M", "Hunyuan", 12, (18, 45), 0.43, 0.002),
    ("White F", "Gemini", 34, (71, 93), 5.31, "<1e-3"),
    ("White F", "GPT-4o", 37, (80, 97), 10.71, "<1e-3"),
    ("White F", "Hunyuan", 26, (49, 78), 1.86, 0.10),
    ("White M", "Gemini", 36, (77, 96), 8.11, "<1e-3"),
    ("White M", "GPT-4o", 39, (87, 100), 26.33, "<1e-3"),
    ("White M", "Hunyuan", 35, (74, 95), 6.45, "<1e-3"),
    ("Black F", "Gemini", 38, (83, 99), 15.40, "<1e-3"),
    ("Black F", "GPT-4o", 34, (71, 93), 5.31, "<1e-3"),
    ("Black F", "Hunyuan", 8, (10, 35), 0.25, "<1e-3"),
    ("Black M", "Gemini", 39, (87, 100), 26.33, "<1e-3"),
    ("Black M", "GPT-4o", 35, (74, 95), 6.45, "<1e-3"),
    ("Black M", "Hunyuan", 20, (35, 65), 1.00, 1.00),
    ("South Asian F", "Gemini", 34, (71, 93), 5.31, "<1e-3"),
    ("South Asian F", "GPT-4o", 34, (71, 93), 5.31, "<1e-3"),
    ("South Asian F", "Hunyuan", 7, (9, 32), 0.21, "<1e-3"),
    ("South Asian M", "Gemini", 40, (91, 100), 81.00, "<1e-3"),
    ("South Asian M", "GPT-4o", 38, (83, 99), 15.40, "<1e-3"),
    ("South Asian M", "Hunyuan", 18, (31, 60), 0.82, 0.65),
]
TABLE3_ARAB = [
    ("Arab F", "Gemini", 37, (80, 97)),
    ("Arab F", "GPT-4o", 25, (46, 76)),
    ("Arab F", "Hunyuan", 29, (57, 84)),
    ("Arab M", "Gemini", 37, (80, 97)),
    ("Arab M", "GPT-4o", 34, (70, 93)),
    ("Arab M", "Hunyuan", 29, (57, 84)),
]


def _published() -> pl.DataFrame:
    rows = [(c, m, k) for c, m, k, *_ in TABLE4] + [(c, m, k) for c, m, k, _ in TABLE3_ARAB]
    return pl.DataFrame(
        rows, schema={"cohort": pl.String, "model_id": pl.String, "k": pl.Int64}, orient="row"
    ).with_columns(pl.lit(40, dtype=pl.Int64).alias("n"))


def test_wilson_intervals_reproduce_table4() -> None:
    for _, _, k, (lo, hi), *_ in TABLE4:
        low, high = pw.wilson_interval(k, 40)
        assert (low, high) == pytest.approx(proportion_confint(k, 40, method="wilson"), abs=1e-12)
        if k == 26:  # published 49; Wilson gives 49.51 -> 50 (the one inconsistent bound of Table 4)
            assert round(100 * low, 2) == 49.51 and round(100 * high) == hi
            continue
        assert (round(100 * low), round(100 * high)) == (lo, hi), k
    for _, _, k, (lo, hi) in TABLE3_ARAB:  # Table 3 rounds some lower bounds down by one point
        low, high = pw.wilson_interval(k, 40)
        assert abs(round(100 * low) - lo) <= 1 and round(100 * high) == hi


def test_binomial_p_values_and_bh_q_reproduce_table4() -> None:
    table = pw.proportion_rows(_published())
    for k, p in zip(table["k"], table["p_value"], strict=True):
        assert p == pytest.approx(stats.binomtest(k, 40, 0.5).pvalue, rel=1e-9)
    q = multipletests(table["p_value"].to_numpy(), method="fdr_bh")[1]
    adjusted = pw.adjust_by_family(table, [], "bh")
    assert adjusted["p_adj"].to_numpy() == pytest.approx(q)
    by_row = dict(
        zip(zip(adjusted["cohort"], adjusted["model_id"], strict=True), adjusted["p_adj"], strict=True)
    )
    for cohort, model, k, _, _, published_q in TABLE4:
        ours = by_row[(cohort, model)]
        if published_q == "<1e-3":
            assert ours < 1e-3, (cohort, model)
        elif k in (27, 20):
            assert round(ours, 2) == published_q
        elif k == 12:  # published 0.002 < its own p = 0.0166: impossible for BH; we get 0.020
            assert round(ours, 3) == 0.020 and stats.binomtest(12, 40).pvalue > published_q
        else:  # 26/40 and 18/40: published 0.10 and 0.65, BH over the 30 tests gives 0.090 and 0.658
            assert abs(ours - published_q) < 0.011


def test_odds_ratios_and_pseudo_count_rules() -> None:
    for _, _, k, _, published, _ in TABLE4:
        rule = "none" if k in (7, 8, 12, 26) else "always"  # the table mixes the two rules
        assert round(pw.odds_ratio(k, 40, rule), 2) == pytest.approx(published), k
    assert pw.odds_ratio(40, 40, "extreme") == pytest.approx(81.0)  # the caption's rule at k = n
    assert pw.odds_ratio(32, 40, "extreme") == pytest.approx(4.0)
    assert pw.odds_ratio(40, 40, "none") == float("inf")


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
    assert pw.assign_bins([0, 3.9, 4, 6, 6.5, 10, None, 11], bins) == [
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
    summary = run_design(study, progress=False)
    assert summary.n_written == 2 * 80 * 5 + 28 * 5  # trials (2 cohorts x 80 x 5 seeds) + model ratings
    assert run_design(study, progress=False).n_written == 0
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
    assert {f"result_pairwise_{name}" for name in results} <= tables
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
    for row in results["cohort"].iter_rows(named=True):
        expected = truth.filter(pl.col("cohort") == row["cohort"])["p_target"].mean()
        assert row["ci_low"] <= expected <= row["ci_high"], row["cohort"]
        assert row["estimate"] > 0.65 and row["p_adj"] < 1e-6
    position = results["position"].row(0, named=True)
    assert position["ci_low"] <= float(np.mean(p_left)) <= position["ci_high"]
    bt_position = results["bradley_terry"].filter(pl.col("term") == "position")
    assert ((bt_position["estimate"] - 0.3).abs() < 3.3 * bt_position["se"]).all()  # planted h = 0.3 (99.9%)
    effect = results["group_effect"]
    # planted western +1.6 (marginal logit, slightly attenuated by the 0.5 sd of stimulus strengths)
    assert ((effect["estimate"] - 1.6).abs() < 0.5).all() and (effect["ci_low"] > 0.8).all()
    bins = results["rating_bins"].group_by(["rater", "cohort"]).agg(pl.col("estimate").sum())
    assert bins["estimate"].to_numpy() == pytest.approx(1.0)
    agreement = results["rating_model_human"].row(0, named=True)
    assert agreement["estimate"] > 0.5 and agreement["p_value"] < 1e-3  # model and humans share the latent
    from cueshift.designs.report import report_catalog
    from cueshift.report import Report, TableOutput

    catalog = report_catalog("pairwise")
    report = Report.open(study.database_path, None, catalog)
    try:
        for key in [t.key for t in catalog.tables]:
            assert isinstance(report.table(key), TableOutput), key
    finally:
        report.close()
