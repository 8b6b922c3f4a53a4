"""Result tables an older cueshift wrote (before the p-value column was ``p``, result schema 8):
``cueshift report`` says in one line to re-run ``cueshift analyze`` (docs/decisions.md D29)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from cueshift.errors import CueshiftError
from cueshift.render._database import open_for_report
from cueshift.schemas.results import RESULT_SCHEMA_VERSION
from cueshift.store.result_version import stored_result_version
from tests.hardening.failing import one_line, run


def make_old(analysed: Path, target: Path) -> Path:
    """A copy of ``analysed`` as result schema 7 wrote it: ``p_value`` columns, version 7."""
    shutil.copy(analysed, target)
    con = duckdb.connect(str(target))
    try:
        con.execute('ALTER TABLE result_sbs RENAME COLUMN "p" TO p_value')
        con.execute("UPDATE result_manifest SET schema_version = 7")
    finally:
        con.close()
    return target


@pytest.fixture(scope="module")
def old_db(analysed_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_old(analysed_db, tmp_path_factory.mktemp("old") / "study.duckdb")


def test_the_stored_version_is_the_oldest_manifest_row(analysed_db: Path, old_db: Path, raw_db: Path) -> None:
    versions = []
    for path in (analysed_db, old_db, raw_db):
        con = duckdb.connect(str(path), read_only=True)
        try:
            versions.append(stored_result_version(con))
        finally:
            con.close()
    assert versions == [RESULT_SCHEMA_VERSION, 7, None]
    assert RESULT_SCHEMA_VERSION >= 8


def test_a_report_of_old_results_is_refused_in_one_line(old_db: Path) -> None:
    expected = r"result schema 7, this one reads \d+\); re-run `cueshift analyze`"
    with pytest.raises(CueshiftError, match=expected):
        open_for_report(old_db)
    line = one_line(run("report", "--db", str(old_db), "--tables"))
    assert line.startswith(f"error: {old_db}: its result tables were written by an older cueshift")


def test_a_report_of_current_results_opens(analysed_db: Path) -> None:
    con, _, _ = open_for_report(analysed_db)
    con.close()


@pytest.mark.parametrize(
    "table",
    ["result_invariance", "result_multiverse", "result_multiverse_summary", "result_multiverse_joint"],
)
def test_results_of_another_command_alone_are_not_old_results(
    raw_db: Path, tmp_path: Path, table: str
) -> None:
    """``check-invariance`` and ``multiverse`` run before any ``analyze``: no manifest, not stale."""
    path = tmp_path / "study.duckdb"
    shutil.copy(raw_db, path)
    with duckdb.connect(str(path)) as con:
        con.execute(f"CREATE TABLE {table} AS SELECT 1 AS model_id")
        assert stored_result_version(con) is None
    open_for_report(path)[0].close()
