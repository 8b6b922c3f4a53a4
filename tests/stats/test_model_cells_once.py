"""The model comparisons and Table 10's models of one run lay the Δ rows out per model × face ×
cell once (``run_reads.model_cells_once``) and give the same tables as each reading the rows."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias import run_reads
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.constants import LME_CATEGORY_MAP
from cueshift.designs.stylisticbias.stats import (
    category_ranking,
    cross_model,
    model_cells,
    model_differences,
    model_level_cells,
)
from cueshift.stats import Resampling, crossed_model, crossed_model_cells, mixed_model, mixed_model_cells
from cueshift.views import read_delta
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

SHARED = ["model_differences", "cross_model", "category_ranking", "crossed_model", "mixed_model"]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    spec = SimulationSpec(n_faces=16, models=("m1", "m2", "m3"), seed=7)  # every scenario
    con = store.open_study(tmp_path_factory.mktemp("cells") / "s.duckdb")
    write_study(con, simulate_study(spec))
    return con


def test_one_layout_per_run_and_the_same_tables(stored, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = model_cells

    def counted(delta: pl.DataFrame):
        calls.append(delta.height)
        return real(delta)

    monkeypatch.setattr(run_reads, "model_cells", counted)
    tables = run_analyses(stored, Resampling(resamples=200, seed=3), progress=False, write=False, only=SHARED)
    assert len(calls) == 1 and calls[0] > 0
    delta = read_delta(stored)
    alone = {
        "model_differences": model_differences(delta, resampling=Resampling(resamples=200, seed=3)),
        "cross_model": cross_model(delta, resampling=Resampling(resamples=200, seed=3)),
        "category_ranking": category_ranking(delta),
        "crossed_model": crossed_model(delta, category_map=LME_CATEGORY_MAP, n_resamples=200, seed=3),
        "mixed_model": mixed_model(
            delta, category_map=LME_CATEGORY_MAP, n_resamples=200, seed=3, estimator="reml"
        ),
    }
    for name, table in alone.items():
        assert table.height > 0
        assert tables[name].equals(table, null_equal=True), name


def test_model_level_cells_are_the_cells_from_the_rows(stored) -> None:
    delta = read_delta(stored)
    laid_out = model_cells(delta)
    crossed, mixed = model_level_cells(laid_out, crossed=True), model_level_cells(laid_out, crossed=False)
    assert crossed is not None and mixed is not None
    assert crossed.equals(crossed_model_cells(delta, category_map=LME_CATEGORY_MAP))
    assert mixed.equals(
        mixed_model_cells(delta, category_map=LME_CATEGORY_MAP).sort(
            "face_id", "variation_category", "scenario_category"
        )
    )
    assert crossed["variation_category"].n_unique() < delta["variation_category"].n_unique()  # merged


def test_sums_that_might_not_be_exact_are_left_to_the_rows(stored) -> None:
    delta = read_delta(stored)  # Δ that are no ratios of the counts: sums on the 2^-k grid, beyond 2^52
    noise = np.random.default_rng(5).normal(0.0, 1e-3, delta.height)
    laid_out = model_cells(delta.with_columns(pl.col("delta") + pl.Series(noise)))
    assert model_level_cells(laid_out, crossed=True) is None
