"""The small simulated StylisticBias study the report-presentation tests read (two models, five
scenarios and variation values, placebos, an equivalence margin), and a read-only query on it."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.stats import CIMethod, Resampling, TestMethod
from cueshift.study.equivalence import EquivalenceConfig
from tests.shared_builds import built_once
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study


def build_analysed_study(
    path: Path, confidence_level: float = 0.95, *, test: TestMethod = "rank", ci_method: CIMethod = "bca"
) -> Path:
    """Simulate the study into ``path`` and run every StylisticBias analysis on it (60 resamples,
    intervals at ``confidence_level``; ``test`` and ``ci_method`` as ``cueshift analyze --test``
    and ``--ci``)."""
    spec = SimulationSpec(
        n_faces=30,
        models=("m1", "m2"),
        scenario_ids=("independent", "obedient", "wealthy", "stylish", "honest"),
        variation_values=("Acne", "Freckles", "Smart casual", "Worn / Distressed clothing", "Beanie"),
        placebos=True,
        effect_scale=0.15,
        seed=5,
    )
    con = store.open_study(path)
    try:
        write_study(con, simulate_study(spec))
        run_analyses(
            con,
            Resampling(
                resamples=60, seed=1, confidence_level=confidence_level, test=test, ci_method=ci_method
            ),
            equivalence=EquivalenceConfig(delta=0.05, vs=0.05, model_difference=0.05),
            progress=False,
        )
    finally:
        con.close()
    return path


def query(path: Path, sql: str) -> pl.DataFrame:
    """``sql`` on the database at ``path``, read-only."""
    with duckdb.connect(str(path), read_only=True) as con:
        frame: pl.DataFrame = con.sql(sql).pl()
    return frame


def shared_analysed_study(
    tmp_path_factory: pytest.TempPathFactory,
    confidence_level: float = 0.95,
    *,
    test: TestMethod = "rank",
    ci_method: CIMethod = "bca",
) -> Path:
    """A copy of :func:`build_analysed_study` with these arguments (``study.duckdb`` in a folder of
    its own), built once per test session (tests/shared_builds.py): the caller may write it."""

    def build(folder: Path) -> None:
        build_analysed_study(folder / "study.duckdb", confidence_level, test=test, ci_method=ci_method)

    key = f"simulated-study-level{confidence_level}-{test}-{ci_method}"
    return built_once(key, build, tmp_path_factory) / "study.duckdb"
