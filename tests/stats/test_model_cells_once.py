"""The model comparisons of one run lay the Δ rows out per model × face × cell once
(``run_reads.model_cells_once``) and give the same tables as each laying them out itself."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias import run_reads
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.stats import category_ranking, cross_model, model_differences
from cueshift.views import read_delta
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

SHARED = ["model_differences", "cross_model", "category_ranking"]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    spec = SimulationSpec(
        n_faces=24, models=("m1", "m2", "m3"), scenario_ids=("competent", "likeable"), seed=7
    )
    con = store.open_study(tmp_path_factory.mktemp("cells") / "s.duckdb")
    write_study(con, simulate_study(spec))
    return con


def test_one_layout_per_run_and_the_same_tables(stored, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = run_reads.model_cells

    def counted(delta: pl.DataFrame):  # type: ignore[no-untyped-def]
        calls.append(delta.height)
        return real(delta)

    monkeypatch.setattr(run_reads, "model_cells", counted)
    tables = run_analyses(stored, n_resamples=200, seed=3, progress=False, write=False, only=SHARED)
    assert len(calls) == 1 and calls[0] > 0
    delta = read_delta(stored)
    alone = {
        "model_differences": model_differences(delta, n_resamples=200, seed=3),
        "cross_model": cross_model(delta, n_resamples=200, seed=3),
        "category_ranking": category_ranking(delta),
    }
    for name, table in alone.items():
        assert table.height > 0
        assert tables[name].equals(table, null_equal=True), name
