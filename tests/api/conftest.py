"""Fixtures of the API tests: the demo study (two faces, the simulated judge) judged once through
``cs.infer``, and copies of its database analysed through ``cs.analyze`` and through the CLI; the
default study's two judges on two demo faces, analysed (``small_default``, for the docs' examples)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

import cueshift as cs
from cueshift.api import write_demo_study

#: The analysis options both routes get (small, fixed: the tables are compared exactly).
RESAMPLES, SEED = 100, 1


@dataclass(frozen=True)
class Demo:
    """The demo study file, its judged database (no results) and the folder holding them."""

    folder: Path
    study_file: Path
    raw: Path


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``cueshift <args>`` in a new process."""
    return subprocess.run(
        [sys.executable, "-m", "cueshift.cli", *args], capture_output=True, text=True, timeout=300
    )


def copy_of(database: Path, name: str) -> Path:
    """A copy of ``database`` beside it, as ``<name>.duckdb``."""
    target = database.with_name(f"{name}.duckdb")
    shutil.copyfile(database, target)
    return target


def judged_demo(folder: Path) -> Demo:
    """The demo study written into ``folder`` and judged once; a copy of its database kept unanalysed."""
    study_file = write_demo_study(folder)
    summary = cs.infer(study_file, progress=False)
    assert summary.n_written > 0
    raw = copy_of(summary.database, "raw")  # kept without results
    return Demo(folder, study_file, raw)


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    return judged_demo(tmp_path_factory.mktemp("api-demo"))


@pytest.fixture(scope="session")
def api_db(demo: Demo) -> Path:
    """The demo database analysed through ``cs.analyze``."""
    database = copy_of(demo.raw, "api")
    cs.analyze(demo.study_file, db=database, resamples=RESAMPLES, seed=SEED)
    return database


@pytest.fixture(scope="session")
def cli_db(demo: Demo) -> Path:
    """The demo database analysed through ``cueshift analyze``."""
    database = copy_of(demo.raw, "cli")
    done = cli(
        "analyze", "--study", str(demo.study_file), "--db", str(database), "--no-progress",
        "--resamples", str(RESAMPLES), "--seed", str(SEED),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return database


@dataclass(frozen=True)
class SmallDefault:
    """The default study's two simulated judges on two demo faces, judged and analysed."""

    study_file: Path
    database: Path


@pytest.fixture(scope="session")
def small_default(tmp_path_factory: pytest.TempPathFactory) -> SmallDefault:
    """The embedded default study's models on two demo faces: its study file and analysed database."""
    folder = tmp_path_factory.mktemp("small-default")
    study_file = write_demo_study(folder, name="default")
    default = (Path(__file__).resolve().parents[2] / "studies" / "default.toml").read_text("utf-8")
    text = study_file.read_text(encoding="utf-8")
    models = default[default.index("[[models]]") :]
    study_file.write_text(text[: text.index("[[models]]")] + models, encoding="utf-8")
    summary = cs.infer(study_file, progress=False)
    cs.analyze(study_file, db=summary.database, resamples=RESAMPLES, seed=SEED)
    return SmallDefault(study_file, summary.database)
