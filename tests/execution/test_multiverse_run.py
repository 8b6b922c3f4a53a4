"""``cueshift multiverse``'s checks: one line, exit code 2, nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cueshift.designs import load_study
from cueshift.errors import ConfigError, CueshiftError
from cueshift.execution.multiverse_run import multiverse_study

STUDIES = Path(__file__).resolve().parents[2] / "studies"


def test_another_design_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"^cueshift multiverse: study 'paired-001' has design 'paired'"):
        multiverse_study(tmp_path / "none.duckdb", load_study(STUDIES / "paired-001.toml"))


def test_too_few_resamples_and_a_missing_database_are_one_line(tmp_path: Path) -> None:
    study = load_study("default")
    with pytest.raises(ConfigError, match=r"^--resamples 10: use at least 100$"):
        multiverse_study(tmp_path / "none.duckdb", study, resamples=10)
    with pytest.raises(CueshiftError, match=r"none\.duckdb: no such study database"):
        multiverse_study(tmp_path / "none.duckdb", study)
    assert not (tmp_path / "none.duckdb").exists()


def test_the_command_exits_2_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "multiverse", "--db", str(tmp_path / "x.duckdb")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "no such study database" in done.stderr
    assert "Traceback" not in done.stderr
