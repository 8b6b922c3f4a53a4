"""Fixtures of the report tests: a raw and an analysed simulated study database (each built once
per test session, tests/shared_builds.py; each fixture holds its own copy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.render.shared_dbs import analysed_study_db, raw_study_db


@pytest.fixture(scope="session")
def raw_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated study with judgments only (no ``result_*`` tables)."""
    return raw_study_db(tmp_path_factory, n_faces=24)


@pytest.fixture(scope="session")
def analysed_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same study with the statistics engine's result tables."""
    return analysed_study_db(tmp_path_factory, n_faces=24, resamples=100, seed=1)
