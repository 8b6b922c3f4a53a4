"""Bad input to the API: a :class:`cueshift.CueshiftError` carrying the line the CLI prints.

The CLI's line is read from the command line's own app run in this process (typer's ``CliRunner``:
the same commands, error handler and exit code, no interpreter started per case); one case runs
``python -m cueshift.cli`` in a new process, so the line a real process prints is compared too."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import cueshift as cs
from cueshift.cli import app
from tests.api.conftest import Demo, cli, copy_of

RUNNER = CliRunner()


def _error_line(exit_code: int, stderr: str) -> str:
    """The one ``error:`` line of a command that exited 2, without ``error: ``."""
    assert exit_code == 2, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0].removeprefix("error: ")


def cli_line(*args: str) -> str:
    """The one error line a failing ``cueshift`` command prints (exit code 2, no traceback), run in
    this process."""
    result = RUNNER.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return _error_line(result.exit_code, result.stderr)


def process_line(*args: str) -> str:
    """The one error line ``python -m cueshift.cli ARGS`` prints in a new process (exit code 2)."""
    done = cli(*args)
    return _error_line(done.returncode, done.stderr)


def api_line(database: Path) -> str:
    with pytest.raises(cs.CueshiftError) as caught:
        cs.open_study(database)
    return str(caught.value)


def test_a_missing_database_is_the_cli_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.duckdb"
    args = ("sql", "SELECT 1", "--db", str(missing))
    assert api_line(missing) == cli_line(*args) == process_line(*args)
    assert "no such study database (run `cueshift infer` first)" in api_line(missing)


def test_a_foreign_file_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "notes.duckdb"
    text.write_text("not a database\n" * 500, encoding="utf-8")
    sqlite = tmp_path / "sqlite.duckdb"
    sqlite3.connect(sqlite).execute("CREATE TABLE t (x INTEGER)").connection.commit()
    for path in (text, sqlite):
        assert api_line(path) == cli_line("report", "--tables", "--db", str(path))
    empty = tmp_path / "empty.duckdb"
    duckdb.connect(str(empty)).close()
    other = tmp_path / "other.duckdb"
    with duckdb.connect(str(other)) as con:
        con.execute("CREATE TABLE t (x INTEGER)")
    assert api_line(empty) == f"{empty}: not a cueshift study database (no cueshift schema version)"
    assert api_line(other) == cli_line("report", "--tables", "--db", str(other))


def test_an_old_schema_version_names_the_upgrade(demo: Demo) -> None:
    old = copy_of(demo.raw, "old")
    with duckdb.connect(str(old)) as con:
        con.execute("UPDATE cueshift_meta SET value = '3' WHERE key = 'schema_version'")
    line = api_line(old)
    assert line == cli_line("report", "--tables", "--db", str(old))
    assert "schema version 3" in line and "cueshift upgrade" in line


def test_an_unknown_result_or_model_lists_the_known_ones(api_db: Path) -> None:
    study = cs.open_study(api_db)
    with pytest.raises(cs.CueshiftError, match=r"no result 'nope'; stored results: sbs, table2_vs, "):
        study.results("nope")
    with pytest.raises(cs.CueshiftError, match="unknown model 'gpt' in .*; models: sim$"):
        study.judgments("gpt")


WRITES = (
    "DELETE FROM judgment",
    "DROP TABLE result_sbs",
    "CREATE TABLE x AS SELECT 1",
    "COPY judgment TO 'out.csv'",
    "SELECT 1; DELETE FROM judgment",
    "ATTACH 'other.duckdb'",
    "SELECT * FROM read_csv('/etc/passwd')",
)


def test_sql_refuses_any_write(api_db: Path) -> None:
    before = api_db.read_bytes()
    study = cs.open_study(api_db)
    for statement in WRITES:
        with pytest.raises(cs.CueshiftError, match="^sql: "):
            study.sql(statement)
    assert api_db.read_bytes() == before


@pytest.mark.parametrize("statement", [WRITES[0], WRITES[4]])
def test_sql_refuses_with_the_cli_line(api_db: Path, statement: str) -> None:
    with pytest.raises(cs.CueshiftError) as caught:
        cs.open_study(api_db).sql(statement)
    assert str(caught.value) == cli_line("sql", statement, "--db", str(api_db))


def test_a_database_path_with_db_is_refused(api_db: Path) -> None:
    with pytest.raises(cs.CueshiftError, match="give db= with a study file"):
        cs.open_study(api_db, db=api_db)


def test_analyze_refuses_as_the_cli_does(demo: Demo, tmp_path: Path) -> None:
    study = str(demo.study_file)
    missing = tmp_path / "missing.duckdb"
    cases = [
        ({"resamples": 10}, ["--resamples", "10"]),
        ({"test": "exact"}, ["--test", "exact"]),
        ({"phi": "hot"}, ["--phi", "hot"]),
        ({"db": missing}, ["--db", str(missing)]),
    ]
    for kwargs, args in cases:
        with pytest.raises(cs.CueshiftError) as caught:
            cs.analyze(demo.study_file, **kwargs)  # type: ignore[arg-type]  # bad input on purpose
        assert str(caught.value) == cli_line("analyze", "--study", study, *args)
    with pytest.raises(cs.CueshiftError, match="no such study file"):
        cs.analyze(tmp_path / "nope.toml")


def test_infer_and_report_refuse_as_the_cli_does(demo: Demo, api_db: Path, tmp_path: Path) -> None:
    study = str(demo.study_file)
    with pytest.raises(cs.CueshiftError) as caught:
        cs.infer(demo.study_file, shard="3/2", progress=False)
    assert str(caught.value) == cli_line("infer", "--study", study, "--shard", "3/2")
    with pytest.raises(cs.CueshiftError) as caught:
        cs.report(demo.study_file, db=api_db, models=["gpt"], out=tmp_path)
    assert str(caught.value) == cli_line(
        "report", "--study", study, "--db", str(api_db), "--models", "gpt", "--out", str(tmp_path)
    )
