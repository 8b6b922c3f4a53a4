"""Fixtures of the report tests: a raw and an analysed simulated study database (built once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.stats import Resampling
from tests.render.study_db import build_study_db


@pytest.fixture(scope="session")
def raw_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated study with judgments only (no ``result_*`` tables)."""
    return build_study_db(tmp_path_factory.mktemp("raw") / "study.duckdb", n_faces=24)


@pytest.fixture(scope="session")
def analysed_db(raw_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same study with the statistics engine's result tables."""
    path = tmp_path_factory.mktemp("analysed") / "study.duckdb"
    path.write_bytes(raw_db.read_bytes())
    con = store.open_study(path)
    try:
        run_analyses(con, Resampling(resamples=100, seed=1), progress=False)
    finally:
        con.close()
    return path
