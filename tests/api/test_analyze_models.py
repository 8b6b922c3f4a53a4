"""``cueshift analyze --models`` prints the chosen models only (issue 30): the first-cut overview
and the headlines of the default study's two judges restricted to the one chosen."""

from __future__ import annotations

import duckdb
import polars as pl
from polars.testing import assert_frame_equal

import cueshift as cs
from cueshift.designs.stylisticbias.overview import overview
from tests.api.conftest import RESAMPLES, SEED, SmallDefault, cli, copy_of


def test_the_overview_and_headlines_name_only_the_chosen_model(small_default: SmallDefault) -> None:
    database = copy_of(small_default.database, "one-model")
    assert cs.open_study(database).models() == ["sim-judge", "sim-judge-b"]
    done = cli(
        "analyze", "--study", str(small_default.study_file), "--db", str(database), "--no-progress",
        "--models", "sim-judge-b", "--resamples", str(RESAMPLES), "--seed", str(SEED),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    printed = done.stdout.replace("sim-judge-b", "CHOSEN")
    assert "CHOSEN" in printed
    assert "sim-judge" not in printed, [line for line in printed.splitlines() if "sim-judge" in line]


def test_the_overview_of_chosen_models_is_their_part_of_every_models(
    small_default: SmallDefault,
) -> None:
    with duckdb.connect(str(small_default.database), read_only=True) as con:
        every, chosen = overview(con), overview(con, models=("sim-judge",))
    for every_table, chosen_table in zip(
        (every.judgments, every.phi_by_category, every.top_variations, every.noise_floor),
        (chosen.judgments, chosen.phi_by_category, chosen.top_variations, chosen.noise_floor),
        strict=True,
    ):
        assert set(every_table["model_id"]) == {"sim-judge", "sim-judge-b"}
        assert_frame_equal(chosen_table, every_table.filter(pl.col("model_id") == "sim-judge"))
