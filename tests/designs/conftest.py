"""Fixtures of the design tests: the analysed studies the report tests read (each built once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.designs.report_db import shared_analysed_study
from tests.designs.review_dbs import analysed_dbs, reanalysed_at


@pytest.fixture(scope="session")
def report_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated two-model study with every StylisticBias result table."""
    return shared_analysed_study(tmp_path_factory)


@pytest.fixture(scope="session")
def design_dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An analysed database per other design (paired, pairwise, probe): its seed study file with
    the simulated judges (a copy of the session's build). Shared by this folder's tests: a test
    that writes copies the file first."""
    return analysed_dbs(tmp_path_factory)


@pytest.fixture(scope="session")
def design_dbs_at_90(
    design_dbs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Path]:
    """The same databases analysed again at 90 % (``[<design>] confidence = 0.9``)."""
    return {
        design: reanalysed_at(db, 0.9, tmp_path_factory.mktemp(f"{design}-90"))
        for design, db in design_dbs.items()
    }
