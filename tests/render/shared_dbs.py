"""The simulated StylisticBias study of tests/render/study_db.py, raw and analysed, built once per
test session (tests/shared_builds.py); every caller gets its own copy, which it may write."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.stats import Resampling
from tests.render.study_db import build_study_db
from tests.shared_builds import built_once


def raw_study_db(tmp_path_factory: pytest.TempPathFactory, *, n_faces: int) -> Path:
    """A copy of ``build_study_db(n_faces=n_faces)`` (other arguments default): judgments only."""

    def build(folder: Path) -> None:
        build_study_db(folder / "study.duckdb", n_faces=n_faces)

    return built_once(f"render-study-faces{n_faces}-raw", build, tmp_path_factory) / "study.duckdb"


def analysed_study_db(
    tmp_path_factory: pytest.TempPathFactory, *, n_faces: int, resamples: int, seed: int
) -> Path:
    """A copy of the raw study with every StylisticBias analysis run on it
    (``Resampling(resamples=resamples, seed=seed)``)."""

    def build(folder: Path) -> None:
        path = Path(shutil.copy(raw_study_db(tmp_path_factory, n_faces=n_faces), folder / "study.duckdb"))
        con = store.open_study(path)
        try:
            run_analyses(con, Resampling(resamples=resamples, seed=seed), progress=False)
        finally:
            con.close()

    key = f"render-study-faces{n_faces}-resamples{resamples}-seed{seed}"
    return built_once(key, build, tmp_path_factory) / "study.duckdb"
