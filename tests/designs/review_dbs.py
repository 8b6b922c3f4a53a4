"""The analysed databases the report-review tests of the paired (001), pairwise (002) and probe (004)
reports read: each design's seed study file with the simulated judges, inferred and analysed."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from rich.console import Console

from cueshift import store
from cueshift.designs import analyze_design, load_study
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.render import Catalog, Report, Styled
from cueshift.study.config import Study
from tests.shared_builds import built_once

STUDIES = Path(__file__).parents[2] / "studies"
STUDY_FILES = {"paired": "paired-001.toml", "pairwise": "pairwise-002.toml", "probe": "probe-004.toml"}


def inferred_and_analysed(study: Study, tmp: Path, name: str = "study") -> Path:
    """``study`` with its database moved to ``tmp/<name>.duckdb``, run with its simulated judges and
    analysed; the analysis console goes to ``tmp/console.txt``."""
    study = study.model_copy(update={"database": tmp / f"{name}.duckdb"})
    run_study(study, RunOptions(progress=False))
    con = store.open_study(study.database_path)
    try:
        with (tmp / "console.txt").open("w") as sink:
            analyze_design(con, study, Console(file=sink))
    finally:
        con.close()
    return study.database_path


def analysed_dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An analysed database per design (``paired``, ``pairwise``, ``probe``), each in a folder of
    its own (``<design>.duckdb`` and ``console.txt``): a copy of the study built once per test
    session (tests/shared_builds.py), so the caller may write it."""
    return {design: analysed_db(design, tmp_path_factory) for design in STUDY_FILES}


def analysed_db(design: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``design``'s seed study, inferred and analysed (built once per test session)."""
    study_file = STUDY_FILES[design]

    def build(folder: Path) -> None:
        inferred_and_analysed(load_study(STUDIES / study_file), folder, design)

    key = f"review-{design}-{Path(study_file).stem}"
    return built_once(key, build, tmp_path_factory) / f"{design}.duckdb"


def reanalysed_at(db: Path, level: float, tmp: Path) -> Path:
    """A copy of the analysed ``db`` (a seed study of :data:`STUDY_FILES`) in ``tmp``, analysed
    again with its design section's ``confidence = level`` (``[paired|pairwise|probe] confidence``):
    every interval ``analyze`` stores is computed at ``level``. The inference is not run again."""
    copy = Path(shutil.copy(db, tmp / db.name))
    design = db.stem
    study = load_study(STUDIES / STUDY_FILES[design])
    section = getattr(study, design).model_copy(update={"confidence": level})
    study = study.model_copy(update={"database": copy, design: section})
    con = store.open_study(copy)
    try:
        with (tmp / "console.txt").open("w") as sink:
            analyze_design(con, study, Console(file=sink))
    finally:
        con.close()
    return copy


def rows(db: Path, sql: str) -> list[dict[str, object]]:
    """``sql`` on ``db`` (read-only) as one dict per row."""
    with duckdb.connect(str(db), read_only=True) as con:
        frame = con.sql(sql).pl()
    return list(frame.iter_rows(named=True))


def styled_table(db: Path, catalog: Catalog, key: str) -> Styled:
    """The table ``key`` of ``catalog`` as the report styles it from ``db``."""
    with Report.open(db, None, catalog) as report:
        return report.styled(key)
