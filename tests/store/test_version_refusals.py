"""Every command that opens a study database refuses an older schema version in one line that
names `cueshift upgrade`, and leaves the file as it was: status, report, view, merge (and the
commands that write, tested in test_upgrade.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from cueshift.errors import CueshiftError
from cueshift.viewer.source import open_source
from tests.hardening.failing import one_line, run
from tests.store.old_study import build_old_study


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(params=[3, 4])
def old_db(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    path = tmp_path / f"old_v{request.param}.duckdb"
    build_old_study(path, request.param)
    return path


def _stamp(path: Path) -> str:
    """The schema version ``old_db`` was built with (its name says it)."""
    return path.stem.removeprefix("old_v")


@pytest.mark.parametrize(
    "args",
    [
        ("status", "--db", "{db}"),
        ("report", "--db", "{db}", "--format", "html", "--out", "{out}"),
        ("merge", "{out}/merged.duckdb", "{db}"),
    ],
    ids=["status", "report", "merge"],
)
def test_commands_name_the_upgrade(old_db: Path, tmp_path: Path, args: tuple[str, ...]) -> None:
    before = _digest(old_db)
    out = tmp_path / "out"
    out.mkdir()
    result = run(*(a.format(db=old_db, out=out) for a in args))
    line = one_line(result)
    assert f"schema version {_stamp(old_db)}" in line and f"cueshift upgrade --db {old_db}" in line, line
    assert _digest(old_db) == before
    assert list(out.iterdir()) == []


def test_view_names_the_upgrade(old_db: Path) -> None:
    with pytest.raises(CueshiftError, match=rf"schema version {_stamp(old_db)}.*cueshift upgrade --db"):
        open_source(old_db)


def test_an_upgraded_database_opens_everywhere(old_db: Path) -> None:
    assert run("upgrade", "--db", str(old_db)).exit_code == 0
    open_source(old_db).close()
    assert run("status", "--db", str(old_db)).exit_code == 0
