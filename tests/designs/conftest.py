"""Fixtures of the design tests: the analysed study the report-presentation tests read (built once)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.designs.report_db import build_analysed_study


@pytest.fixture(scope="session")
def report_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A simulated two-model study with every StylisticBias result table."""
    return build_analysed_study(tmp_path_factory.mktemp("presentation") / "study.duckdb")
