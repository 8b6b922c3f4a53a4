"""`cueshift merge` trusts no input (docs/decisions.md#d13).

Before the fix merge checked only the schema version: a shard whose judgment columns were filled
in the wrong order merged with rc 0, a shard of another study merged silently, a legitimate
re-run (other run_id, created_at, latency) was refused as a conflict, and a junk shard failed
with `cannot rollback` and left an empty output database behind.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from cueshift.cli import app
from tests.hardening.study_db import error_lines, sha256, tiny_study

RUNNER = CliRunner()
FACES = 4  # identities crc32-hash to both shards
KEY = ["model_id", "image_id", "scenario_id", "ordering", "seed"]
CONTENT = [*KEY, "response_text", "outcome", "chosen_letter", "p_favorable"]


def infer(study: Path, *args: str) -> None:
    result = RUNNER.invoke(app, ["infer", "--study", str(study), "--no-progress", *args])
    assert result.exit_code == 0, (result.stderr, result.exception)


def merge(output: Path, *inputs: Path) -> tuple[int, str]:
    result = RUNNER.invoke(app, ["merge", str(output), *map(str, inputs)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stderr


def one_line(stderr: str) -> str:
    lines = error_lines(stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


def judgments(path: Path) -> pl.DataFrame:
    with duckdb.connect(str(path), read_only=True) as con:
        frame: pl.DataFrame = con.sql(
            f"SELECT {', '.join(CONTENT)} FROM judgment ORDER BY {', '.join(KEY)}"
        ).pl()
        return frame


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Shards 1/2 and 2/2 of the tiny study, and the unsharded run as the reference."""
    tmp = tmp_path_factory.mktemp("merge")
    study = tiny_study(tmp, faces=FACES)
    infer(study, "--shard", "1/2")
    infer(study, "--shard", "2/2")
    infer(study)
    first, second = tmp / "tiny.shard-1-of-2.duckdb", tmp / "tiny.shard-2-of-2.duckdb"
    assert judgments(first).height and judgments(second).height  # both shards hold answers
    return first, second, tmp / "tiny.duckdb"


@pytest.fixture
def copies(shards: tuple[Path, Path, Path], tmp_path: Path) -> tuple[Path, Path]:
    """Private copies of the two shards."""
    first, second = tmp_path / "a.duckdb", tmp_path / "b.duckdb"
    shutil.copy(shards[0], first)
    shutil.copy(shards[1], second)
    return first, second


def _rebuild_judgment(path: Path, positional: bool) -> None:
    """Recreate the judgment table with image_id and scenario_id swapped in the DDL; fill it by
    name (a harmless reorder) or by position (image ids land in scenario_id: corrupt)."""
    with duckdb.connect(str(path)) as con:
        ddl = con.execute("SELECT sql FROM duckdb_tables() WHERE table_name = 'judgment'").fetchall()[0][0]
        swapped = (
            ddl.replace("image_id", "__tmp__")
            .replace("scenario_id", "image_id")
            .replace("__tmp__", "scenario_id")
        )
        con.execute("ALTER TABLE judgment RENAME TO judgment_old")
        con.execute(swapped)
        if positional:
            con.execute("INSERT INTO judgment SELECT * FROM judgment_old")
        else:
            con.execute("INSERT INTO judgment BY NAME SELECT * FROM judgment_old")
        con.execute("DROP TABLE judgment_old")


def test_shards_merge_to_the_unsharded_run(shards: tuple[Path, Path, Path], tmp_path: Path) -> None:
    code, stderr = merge(tmp_path / "m.duckdb", shards[0], shards[1])
    assert code == 0, stderr
    assert judgments(tmp_path / "m.duckdb").equals(judgments(shards[2]))


def test_columns_in_another_order_are_mapped_by_name(
    copies: tuple[Path, Path], shards: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    _rebuild_judgment(copies[1], positional=False)
    code, stderr = merge(tmp_path / "m.duckdb", *copies)
    assert code == 0, stderr
    assert judgments(tmp_path / "m.duckdb").equals(judgments(shards[2]))


def test_a_shard_with_swapped_column_contents_is_refused(copies: tuple[Path, Path], tmp_path: Path) -> None:
    _rebuild_judgment(copies[1], positional=True)
    code, stderr = merge(tmp_path / "m.duckdb", *copies)
    assert code == 2
    assert "judgment" in one_line(stderr)
    assert not (tmp_path / "m.duckdb").exists()


def test_a_legitimate_rerun_merges_as_the_same_judgments(
    shards: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    rerun = tiny_study(tmp_path, faces=FACES)  # same study, another database: new run_id, created_at, latency
    infer(rerun)
    with duckdb.connect(str(tmp_path / "tiny.duckdb"), read_only=True) as con:
        runs = {r[0] for r in con.execute("SELECT run_id FROM run").fetchall()}
    with duckdb.connect(str(shards[2]), read_only=True) as con:
        assert runs.isdisjoint(r[0] for r in con.execute("SELECT run_id FROM run").fetchall())
    output = tmp_path / "m.duckdb"
    code, stderr = merge(output, shards[2], tmp_path / "tiny.duckdb")
    assert code == 0, stderr
    assert judgments(output).equals(judgments(shards[2]))


def test_a_real_conflict_is_refused_naming_the_key(copies: tuple[Path, Path], tmp_path: Path) -> None:
    with duckdb.connect(str(copies[0])) as con:
        key = con.execute(f"SELECT {', '.join(KEY)} FROM judgment LIMIT 1").fetchall()[0]
    shutil.copy(copies[0], tmp_path / "other.duckdb")
    with duckdb.connect(str(tmp_path / "other.duckdb")) as con:
        con.execute(
            "UPDATE judgment SET outcome = "
            "CASE outcome WHEN 'favorable' THEN 'unfavorable' ELSE 'favorable' END "
            "WHERE image_id = ? AND scenario_id = ? AND ordering = ? AND seed = ?",
            list(key[1:]),
        )
    code, stderr = merge(tmp_path / "m.duckdb", copies[0], tmp_path / "other.duckdb")
    assert code == 2
    line = one_line(stderr)
    assert "judgment" in line and str(key[1]) in line and str(key[2]) in line
    assert not (tmp_path / "m.duckdb").exists()


@pytest.mark.parametrize("change", ["name", "definition"])
def test_a_shard_of_another_study_is_refused(copies: tuple[Path, Path], tmp_path: Path, change: str) -> None:
    with duckdb.connect(str(copies[1])) as con:
        if change == "name":
            con.execute("UPDATE run SET study_name = 'other'")
        else:
            con.execute('UPDATE run SET config = json_merge_patch(config, \'{"prompt": {"template": "x"}}\')')
    output = tmp_path / "m.duckdb"
    code, stderr = merge(output, *copies)
    assert code == 2
    assert "study" in one_line(stderr)
    assert not output.exists()


def test_an_existing_output_of_another_study_is_untouched(copies: tuple[Path, Path], tmp_path: Path) -> None:
    with duckdb.connect(str(copies[1])) as con:
        con.execute("UPDATE run SET study_name = 'other'")
    before = sha256(copies[1])
    code, stderr = merge(copies[1], copies[0])
    assert code == 2, stderr
    assert sha256(copies[1]) == before


@pytest.mark.parametrize("junk", ["text", "empty", "sqlite", "foreign duckdb", "truncated", "old version"])
def test_a_junk_shard_is_one_line_and_leaves_no_output(
    copies: tuple[Path, Path], tmp_path: Path, junk: str
) -> None:
    bad = tmp_path / "junk.duckdb"
    if junk == "text":
        bad.write_text("not a database\n" * 100)
    elif junk == "empty":
        bad.touch()
    elif junk == "sqlite":
        import sqlite3

        with sqlite3.connect(bad) as lite:
            lite.execute("CREATE TABLE judgment (x)")
    elif junk == "foreign duckdb":
        with duckdb.connect(str(bad)) as con:
            con.execute("CREATE TABLE judgment (x INTEGER)")
    elif junk == "truncated":
        data = copies[1].read_bytes()
        bad.write_bytes(data[: len(data) // 2])
    else:
        shutil.copy(copies[1], bad)
        with duckdb.connect(str(bad)) as con:
            con.execute("UPDATE cueshift_meta SET value = '1' WHERE key = 'schema_version'")
    before = sha256(bad)
    output = tmp_path / "out" / "m.duckdb"
    code, stderr = merge(output, copies[0], bad)
    assert code == 2
    line = one_line(stderr)
    assert "cannot rollback" not in line and str(bad) in line
    assert not output.exists() and not output.with_name("m.duckdb.wal").exists()
    assert sha256(bad) == before
