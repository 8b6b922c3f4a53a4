"""The analysed databases the report-review tests of the paired (001), pairwise (002) and probe (004)
reports read: each design's seed study file with the simulated judges, inferred and analysed."""

from __future__ import annotations

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
    """An analysed database per design (``paired``, ``pairwise``, ``probe``)."""
    return {
        design: inferred_and_analysed(
            load_study(STUDIES / study_file), tmp_path_factory.mktemp(design), design
        )
        for design, study_file in STUDY_FILES.items()
    }


def rows(db: Path, sql: str) -> list[dict[str, object]]:
    """``sql`` on ``db`` (read-only) as one dict per row."""
    with duckdb.connect(str(db), read_only=True) as con:
        frame = con.sql(sql).pl()
    return list(frame.iter_rows(named=True))


def styled_table(db: Path, catalog: Catalog, key: str) -> Styled:
    """The table ``key`` of ``catalog`` as the report styles it from ``db``."""
    with Report.open(db, None, catalog) as report:
        return report.styled(key)
