"""``cueshift status``/``upgrade`` and ``cs.status``/``cs.upgrade`` resolve ``--study``/``--db`` alike
(D84): ``db`` when given, the study not read; else a study file's (or ``"default"``'s) database; else
the ``study`` named, a database itself. Same arguments: the same database printed, or the same line."""

from __future__ import annotations

from pathlib import Path

import pytest

import cueshift as cs
from cueshift.api import write_demo_study
from cueshift.store import SCHEMA_VERSION
from tests.api.conftest import cli


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``own.toml`` (its database ``own.duckdb``: 300 answers), ``other.duckdb`` (500 answers of the
    same study) and ``bad.toml``, a study file that is not TOML."""
    folder = tmp_path_factory.mktemp("resolution")
    study_file = write_demo_study(folder, name="own")
    cs.infer(study_file, limit=300, progress=False)
    cs.infer(study_file, db=folder / "other.duckdb", limit=500, progress=False)
    (folder / "bad.toml").write_text("name = [\n", encoding="utf-8")
    return folder


def _both(command: str, study: Path, db: Path | None, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    """What the command printed (it exited 0) and what the function printed (``quiet=False``)."""
    done = cli(command, "--study", str(study), *(["--db", str(db)] if db is not None else []))
    assert done.returncode == 0, f"{study.name}: {done.stderr}"
    capsys.readouterr()
    (cs.status if command == "status" else cs.upgrade)(study, db=db, quiet=False)
    return done.stdout, capsys.readouterr().out


def _reached(command: str, printed: str, database: Path) -> bool:
    """Whether ``printed`` is ``command``'s output on ``other.duckdb`` (500 answers)."""
    first = printed.splitlines()[0]
    if command == "status":
        return first.startswith(f"{database}: latest run") and "stored in all 500" in first
    return first == f"{database}: schema version {SCHEMA_VERSION} already; nothing to upgrade"


@pytest.mark.parametrize("command", ["status", "upgrade"])
def test_with_db_the_study_is_not_read(
    command: str, folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")  # the command's width and the function's alike
    other = folder / "other.duckdb"
    for study in (folder / "missing.toml", folder / "bad.toml", folder / "own.duckdb"):
        by_command, by_function = _both(command, study, other, capsys)
        assert by_command == by_function, study.name  # before D84: the function refused each
        assert _reached(command, by_function, other), by_function


@pytest.mark.parametrize("command", ["status", "upgrade"])
def test_a_database_as_study_is_that_database(
    command: str, folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "120")
    other = folder / "other.duckdb"
    by_command, by_function = _both(command, other, None, capsys)  # before: the command's traceback
    assert by_command == by_function
    assert _reached(command, by_function, other), by_function


@pytest.mark.parametrize("command", ["status", "upgrade"])
def test_refusals_are_the_same_line(command: str, folder: Path) -> None:
    function = cs.status if command == "status" else cs.upgrade
    cases = {
        folder / "missing.toml": "missing.toml: no such study file",
        folder
        / "gone.duckdb": "gone.duckdb: no such study database",  # before: the command said 'study file'
    }
    for study, line in cases.items():
        done = cli(command, "--study", str(study))
        with pytest.raises(cs.CueshiftError) as raised:
            function(study)
        assert done.returncode == 2 and done.stderr.strip() == f"error: {raised.value}"
        assert line in str(raised.value)
    assert not (folder / "gone.duckdb").exists()
