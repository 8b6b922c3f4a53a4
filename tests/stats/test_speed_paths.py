"""The faster paths of the paper-scale analysis (docs/decisions.md#d8) against their straightforward
counterparts, and the simulated study's placebos and invalid reasons (``bench_analysis.py``)."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats

from cueshift import store
from cueshift.designs.stylisticbias.inputs import Inputs
from cueshift.designs.stylisticbias.run_reads import read_once
from cueshift.inference.parser import parse_answer
from cueshift.stats import AnalysisContext
from cueshift.stats._cell_codes import _unique_codes
from cueshift.stats._face_sums import face_sums, row_means
from cueshift.stats._faces import group_means
from cueshift.views import read_delta
from tests.simulate.outputs import INVALID_TEXTS, write_study
from tests.simulate.study import SimulationSpec, simulate_study


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    spec = SimulationSpec(
        n_faces=40,
        models=("m",),
        scenario_ids=("competent", "likeable"),
        placebos=True,
        invalid_rate=0.2,
        seed=4,
    )
    con = store.open_study(tmp_path_factory.mktemp("speed") / "s.duckdb")
    write_study(con, simulate_study(spec))
    return con


def test_unique_codes_equal_numpy_unique_in_both_paths() -> None:
    codes = np.random.default_rng(1).integers(0, 300, size=5_000)
    for space in (300, 10**9):  # presence table, then sort
        unique, inverse = _unique_codes(codes, space)
        ref_unique, ref_inverse = np.unique(codes, return_inverse=True)
        np.testing.assert_array_equal(unique, ref_unique)
        np.testing.assert_array_equal(inverse, ref_inverse)


def test_row_means_of_a_face_subset_equal_group_means_of_its_rows(stored) -> None:
    delta = read_delta(stored)
    faces = sorted(delta["face_id"].unique().to_list())
    fine = face_sums(delta, ["model_id", "variation_value", "scenario_id"], faces=faces)
    keep = np.array([f in set(faces[::3]) for f in faces])
    mine = row_means(fine, ["variation_value", "scenario_id"], face_mask=keep)
    rows = delta.filter(pl.col("face_id").is_in(faces[::3]))
    ref = group_means(rows, ["variation_value", "scenario_id"], "delta")
    joined = mine.join(ref, on=["variation_value", "scenario_id"], how="full", coalesce=True)
    assert joined.height == ref.height == mine.height
    assert (joined["mean"] == joined["delta"]).all()  # the same double: exact sums
    assert (joined["n"] == joined["n_right"]).all()
    cell = rows.filter((pl.col("variation_value") == "Acne") & (pl.col("scenario_id") == "likeable"))
    acne = mine.filter((pl.col("variation_value") == "Acne") & (pl.col("scenario_id") == "likeable"))
    assert acne["mean"][0] == pytest.approx(float(np.mean(cell["delta"].to_numpy())), abs=1e-15)


def test_placebos_have_no_planted_shift_and_are_read_apart(stored) -> None:
    placebo = read_delta(stored, placebo=True)
    assert set(placebo["variation_value"].unique()) == {"Identical copy", "Lossless re-encode"}
    assert read_delta(stored)["feature_key"].ne("placebo").all()
    # the planted shift (the judge's own probability, stored per answer) is exactly 0 for a
    # placebo and not for the attribute variations; the drawn Δ is not significant
    ((placebo_max, attribute_max),) = stored.execute(
        "SELECT max(abs(delta_expected)) FILTER (WHERE feature_key = 'placebo'), "
        "max(abs(delta_expected)) FILTER (WHERE feature_key <> 'placebo') FROM delta"
    ).fetchall()
    assert placebo_max == 0.0 and attribute_max > 0.01
    per_face = placebo.group_by("face_id").agg(pl.col("delta").mean())["delta"].to_numpy()
    assert stats.wilcoxon(per_face).pvalue > 0.001


def test_invalid_answers_carry_the_reason_the_parser_gives(stored) -> None:
    rows = stored.sql(
        "SELECT DISTINCT response_text, invalid_reason FROM judgment WHERE outcome = 'invalid'"
    ).fetchall()
    assert {text for text, _ in rows} == set(INVALID_TEXTS)
    mapping = {"a": "favorable", "b": "unfavorable"}
    assert all(parse_answer(text, mapping).reason == reason for text, reason in rows)
    assert {reason for _, reason in rows} >= {"refusal", "hedge", "neither", "both"}


def test_read_once_reads_once_per_run(stored) -> None:
    calls: list[int] = []
    ctx = AnalysisContext(Inputs(pl.DataFrame(), pl.DataFrame(), con=stored))

    def counted_read() -> pl.DataFrame:
        calls.append(1)
        return pl.DataFrame({"x": [len(calls)]})

    for _ in range(3):
        frame = read_once(ctx, "k", counted_read)
    assert len(calls) == 1 and frame is not None and frame["x"][0] == 1
    other = AnalysisContext(Inputs(pl.DataFrame(), pl.DataFrame(), con=stored))
    read_once(other, "k", counted_read)
    assert len(calls) == 2  # a new run reads again
