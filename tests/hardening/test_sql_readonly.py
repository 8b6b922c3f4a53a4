"""`cueshift sql` cannot alter, destroy or reach past the study database it opens (docs/decisions.md#d11).

Every statement of the issue runs against a real study database: each is refused with one
line and exit code 2, no traceback, and the database file's bytes are unchanged afterwards.
Both fences are tested on their own: the statement allow-list through the command, and the
locked connection by running the same statements on it directly.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from cueshift.cli import app
from cueshift.errors import CueshiftError
from cueshift.store import export, readonly
from tests.hardening.study_db import build_study_db, error_lines, sha256

RUNNER = CliRunner()


@pytest.fixture(scope="module")
def study_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_study_db(tmp_path_factory.mktemp("sql-study"))


@pytest.fixture
def db(study_db: Path, tmp_path: Path) -> Path:
    """A private copy of the study database in an otherwise empty folder."""
    copy = tmp_path / "study.duckdb"
    shutil.copyfile(study_db, copy)
    return copy


def sql(db: Path, query: str, *options: str) -> tuple[int, str, str]:
    result = RUNNER.invoke(app, ["sql", "--db", str(db), *options, "--", query])
    return result.exit_code, result.stdout, result.stderr


def refused(db: Path, query: str, *options: str) -> str:
    """Run ``query``; assert one error line, exit code 2, the database and its folder untouched."""
    before = sha256(db)
    folder = sorted(p.name for p in db.parent.iterdir())
    code, stdout, stderr = sql(db, query, *options)
    lines = error_lines(stderr)
    assert code == 2, (query, code, stdout, stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    assert "Traceback" not in stderr and stdout == ""
    assert sha256(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == folder  # nothing written beside it
    return lines[0]


# --------------------------------------------------------------------------- the issue's statements

ISSUE_STATEMENTS = [
    "COPY (SELECT 1 AS a) TO '{db}'",
    "COPY (SELECT 1 AS a) TO '{dir}/anywhere.csv'",
    "COPY judgment TO '{dir}/leak.parquet' (FORMAT parquet)",
    "ATTACH '{dir}/other.duckdb' AS h (READ_WRITE)",
    "USE h",
    "DETACH study",
    "ATTACH '{db}' AS rw (READ_WRITE)",
    "UPDATE judgment SET outcome = 'favorable'",
    "UPDATE rw.judgment SET outcome = 'favorable'",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM glob('/root/.*')",
    "SELECT * FROM '{dir}/some.csv'",
    "EXPORT DATABASE '{dir}/export'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "FORCE INSTALL sqlite",
    "SET enable_external_access = true",
    "SET GLOBAL enable_external_access = true",
    "RESET enable_external_access",
    "SET lock_configuration = false",
    "SET autoinstall_known_extensions = true",
    "PRAGMA enable_checkpoint_on_shutdown",
    "SELECT 1; DROP TABLE judgment",
    "DROP TABLE judgment",
    "DELETE FROM judgment",
    "INSERT INTO model SELECT * FROM model",
    "CREATE TABLE t AS SELECT 1 AS a",
    "CHECKPOINT",
    "EXPLAIN ANALYZE COPY (SELECT 1 AS a) TO '{dir}/via-explain.csv'",
    "EXPLAIN ANALYZE SELECT 1; COPY (SELECT 1 AS a) TO '{dir}/x.csv'",
    # the issue's whole chain, as one text
    "ATTACH '{dir}/other.duckdb' AS h (READ_WRITE); USE h; DETACH study; "
    "ATTACH '{db}' AS rw (READ_WRITE); UPDATE rw.judgment SET outcome = 'favorable'",
]


@pytest.mark.parametrize("statement", ISSUE_STATEMENTS)
def test_every_statement_of_the_issue_is_refused_and_changes_nothing(db: Path, statement: str) -> None:
    (db.parent / "some.csv").write_text("a\n1\n")
    line = refused(db, statement.format(db=db.as_posix(), dir=db.parent.as_posix()))
    assert line.startswith("error: sql: ")
    assert "read-only" in line or "Permission" in line


def test_the_stored_judgments_are_unchanged_after_the_attempts(db: Path, study_db: Path) -> None:
    for statement in ISSUE_STATEMENTS:
        sql(db, statement.format(db=db.as_posix(), dir=db.parent.as_posix()))
    with duckdb.connect(str(db), read_only=True) as con, duckdb.connect(str(study_db), read_only=True) as ref:
        mine = con.sql("SELECT * FROM judgment ORDER BY ALL").fetchall()
        assert mine == ref.sql("SELECT * FROM judgment ORDER BY ALL").fetchall()


LOCKED_ATTEMPTS = [
    "COPY (SELECT 1 AS a) TO '{db}'",
    "COPY (SELECT 1 AS a) TO '{dir}/anywhere.csv'",
    "ATTACH '{dir}/other.duckdb' AS h (READ_WRITE)",
    "ATTACH '{db}' AS rw (READ_WRITE)",
    "UPDATE judgment SET outcome = 'favorable'",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM glob('/root/.*')",
    "EXPORT DATABASE '{dir}/export'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "RESET enable_external_access",
    "SET lock_configuration = false",
    "SET autoload_known_extensions = true",
]


@pytest.mark.parametrize("statement", LOCKED_ATTEMPTS)
def test_the_locked_connection_refuses_on_its_own(db: Path, statement: str) -> None:
    """Past the allow-list (run directly), the connection itself still refuses."""
    before = sha256(db)
    con = readonly.open_locked(db)
    try:
        with pytest.raises(duckdb.Error):
            con.execute(statement.format(db=db.as_posix(), dir=db.parent.as_posix()))
    finally:
        con.close()
    assert sha256(db) == before
    assert sorted(p.name for p in db.parent.iterdir()) == ["study.duckdb"]


def test_the_refusal_runs_in_a_real_process_without_a_traceback(db: Path) -> None:
    before = sha256(db)
    for statement in ("SELECT * FROM read_csv('/etc/passwd')", "SELECT 1; DROP TABLE judgment"):
        result = subprocess.run(
            [sys.executable, "-m", "cueshift.cli", "sql", statement, "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 2 and len(error_lines(result.stderr)) == 1, result.stderr
        assert "Traceback" not in result.stderr and result.stdout == ""
    nested = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "sql", "--csv", "select [1,2]", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert nested.returncode == 0 and nested.stdout.splitlines()[1] == '"[1,2]"', nested.stderr
    assert sha256(db) == before


# --------------------------------------------------------------------------- what stays allowed

ALLOWED = [
    ("SELECT count(*) AS n FROM judgment", "n"),
    ("WITH x AS (SELECT 1 AS a) SELECT a FROM x", "a"),
    ("VALUES (1, 'a')", "col0"),
    ("FROM judgment SELECT model_id LIMIT 2", "model_id"),
    ("FROM model", "model_id"),
    ("TABLE model", "model_id"),
    ("DESCRIBE judgment", "column_name"),
    ("SHOW TABLES", "name"),
    ("SUMMARIZE judgment", "column_name"),
    ("EXPLAIN SELECT count(*) FROM judgment", "explain_key"),
    ("EXPLAIN ANALYZE SELECT count(*) FROM judgment", "explain_key"),
    ("-- a comment\nEXPLAIN (FORMAT json) SELECT 1;", "explain_key"),
    ("SELECT variation_value, avg(delta) AS sbs FROM delta GROUP BY ALL ORDER BY sbs", "sbs"),
]


@pytest.mark.parametrize(("query", "column"), ALLOWED)
def test_queries_run_and_leave_the_database_as_it_was(db: Path, query: str, column: str) -> None:
    before = sha256(db)
    code, stdout, stderr = sql(db, query, "--csv")
    assert code == 0, stderr
    assert column in next(csv.reader(io.StringIO(stdout)))
    assert sha256(db) == before


@pytest.mark.parametrize("text", ["", " ; ", "-- nothing"])
def test_no_statement_is_one_line(db: Path, text: str) -> None:
    assert "no statement" in refused(db, text)


def test_a_syntax_error_is_one_line(db: Path) -> None:
    assert "syntax error" in refused(db, "SELEC 1").lower()


# --------------------------------------------------------------------------- values without a flat form


def test_nested_values_print_as_json_text(db: Path) -> None:
    code, stdout, stderr = sql(db, "select [1,2]", "--csv")
    assert code == 0, stderr
    assert list(csv.reader(io.StringIO(stdout)))[1] == ["[1,2]"]
    query = (
        "SELECT {'a': 1, 'b': [interval 1 day]} AS s, map([1], ['x']) AS m, [1, 2]::INTEGER[2] AS arr, "
        "'\\x00'::BLOB AS b, interval 2 hour AS i, union_value(k := 3)::UNION(k INTEGER, s VARCHAR) AS u, "
        "[[1], NULL] AS nested, 2 AS plain"
    )
    code, stdout, stderr = sql(db, query, "--csv")
    assert code == 0, stderr
    header, row = list(csv.reader(io.StringIO(stdout)))
    assert dict(zip(header, row, strict=True)) == {
        "s": '{"a":1,"b":["1 day"]}',
        "m": '{"1":"x"}',
        "arr": "[1,2]",
        "b": "\\x00",
        "i": "02:00:00",
        "u": '{"k":3}',
        "nested": "[[1],null]",
        "plain": "2",
    }
    code, stdout, stderr = sql(db, query)  # the table form prints too
    assert code == 0 and '{"a":1,"b":["1 day"]}' in stdout, stderr


def test_markup_in_a_result_is_printed_as_it_is(db: Path) -> None:
    code, stdout, stderr = sql(db, "SELECT 'x[/]y [red]z[/red] [redacted]' AS t")
    assert code == 0, stderr
    assert "x[/]y [red]z[/red] [redacted]" in stdout


# --------------------------------------------------------------------------- --out


def test_out_writes_csv_and_parquet_of_the_whole_result(db: Path, tmp_path: Path) -> None:
    query = "SELECT * FROM judgment ORDER BY ALL"
    code, expected, _ = sql(db, query, "--csv")
    assert code == 0
    for name in ("all.csv", "all.parquet"):
        code, stdout, stderr = sql(db, query, "--out", str(tmp_path / name))  # --rows: refused (D69)
        assert code == 0, stderr
        assert str(tmp_path / name) in stdout
    assert (tmp_path / "all.csv").read_text() == expected
    frame = pl.read_parquet(tmp_path / "all.parquet")
    assert frame.height == len(expected.splitlines()) - 1 > 3
    assert frame.write_csv() == expected


def test_out_refuses_an_existing_file_unless_forced(db: Path, tmp_path: Path) -> None:
    target = tmp_path / "r.csv"
    target.write_text("keep me\n")
    line = refused(db, "SELECT 1 AS a", "--out", str(target))
    assert "exists" in line and "--force" in line and target.read_text() == "keep me\n"
    code, _, stderr = sql(db, "SELECT 1 AS a", "--out", str(target), "--force")
    assert code == 0, stderr
    assert target.read_text() == "a\n1\n"


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ("r.txt", ".csv or .parquet"),
        ("missing/r.csv", "no such directory"),
        ("study.duckdb/r.csv", "no such directory"),  # a file as the parent
        ("folder.csv", "is a directory"),
    ],
)
def test_out_refuses_a_place_it_cannot_write_with_one_line(db: Path, where: str, expected: str) -> None:
    (db.parent / "folder.csv").mkdir()
    target = db.parent / where
    line = refused(db, "SELECT 1 AS a", "--out", str(target))
    assert line.startswith(f"error: --out {target}: ") and expected in line


def test_out_never_writes_the_study_database(db: Path) -> None:
    named = db.with_suffix(".parquet")
    db.rename(named)
    line = refused(named, "SELECT 1 AS a", "--out", str(named), "--force")
    assert "study database" in line


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_out_refuses_a_read_only_folder(db: Path, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o555)
    try:
        assert "not writable" in refused(db, "SELECT 1 AS a", "--out", str(locked / "r.csv"))
    finally:
        locked.chmod(0o755)


def test_a_refused_statement_with_out_writes_no_file(db: Path, tmp_path: Path) -> None:
    refused(db, "DELETE FROM judgment", "--out", str(tmp_path / "r.csv"))
    assert not (tmp_path / "r.csv").exists()


def test_csv_and_parquet_take_the_same_one_megabyte_field(db: Path, tmp_path: Path) -> None:
    query = "SELECT repeat('x', 1048576) AS big, [repeat('y', 1048576)] AS nested"
    for name in ("big.csv", "big.parquet"):
        code, _, stderr = sql(db, query, "--out", str(tmp_path / name))
        assert code == 0, stderr
    from_csv = pl.read_csv(tmp_path / "big.csv", infer_schema=False)
    from_parquet = pl.read_parquet(tmp_path / "big.parquet")
    assert from_csv.equals(from_parquet)
    assert len(from_csv["big"][0]) == 1_048_576 and len(from_csv["nested"][0]) == 1_048_576 + 4


def test_export_leaves_no_partial_file_when_the_write_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = export.check_target(tmp_path / "r.parquet", force=False)

    def fail(self: pl.DataFrame, file: object, **kwargs: object) -> None:
        Path(str(file)).write_bytes(b"PAR1 half")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pl.DataFrame, "write_parquet", fail)
    with pytest.raises(CueshiftError, match="No space left on device"):
        export.write_frame(pl.DataFrame({"a": [1]}), target)
    assert list(tmp_path.iterdir()) == []


def test_a_sqlite_file_named_duckdb_is_one_line_and_loads_no_extension(tmp_path: Path) -> None:
    import sqlite3

    fake = tmp_path / "lite.duckdb"
    with sqlite3.connect(fake) as con:
        con.execute("CREATE TABLE judgment (a INTEGER)")
    con.close()
    before = sha256(fake)
    line = refused(fake, "SELECT 1")
    assert str(fake) in line and "cannot open as a DuckDB database" in line
    assert sha256(fake) == before


def test_another_schema_version_is_noted_and_the_query_runs(db: Path) -> None:
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE cueshift_meta SET value = '3' WHERE key = 'schema_version'")
    code, stdout, stderr = sql(db, "SELECT count(*) AS n FROM judgment")
    assert code == 0 and "n" in stdout
    (line,) = [x for x in stderr.splitlines() if x.strip()]
    assert line.startswith("note: ") and "schema version 3" in line and "cueshift upgrade" in line


def test_the_current_schema_version_says_nothing(db: Path) -> None:
    code, _, stderr = sql(db, "SELECT 1 AS one")
    assert code == 0 and stderr.strip() == ""


def test_the_table_is_clean_no_shape_line_and_no_dtype_row(db: Path) -> None:
    code, stdout, stderr = sql(db, "SELECT count(*) AS n, 'x' AS label FROM judgment")
    assert code == 0, stderr
    lines = stdout.splitlines()
    assert not any(line.startswith("shape:") for line in lines), stdout
    assert not any(dtype in line for line in lines for dtype in ("i64", "str", "---")), stdout
    header = next(line for line in lines if " n " in line)
    assert "label" in header and lines.index(header) + 2 < len(lines)  # the rule, then the row
