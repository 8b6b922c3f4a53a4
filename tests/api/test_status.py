"""``cs.status``, ``cs.show_study``, ``cs.merge`` and ``cs.upgrade`` against their commands on the
same database, counts checked by plain SQL; ``cs.export`` takes ``out`` as the command's required
``--out``; bad input raises the command's one line and writes nothing (D78)."""

from __future__ import annotations

import inspect
import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import cueshift as cs
from cueshift.api import write_demo_study
from tests.api.conftest import Demo, cli


@pytest.fixture(scope="module")
def partly_judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo study judged with ``limit=300`` (its latest run plans 300 of the study's answers)."""
    study_file = write_demo_study(tmp_path_factory.mktemp("status"), name="partial")
    cs.infer(study_file, limit=300, progress=False)
    return study_file


def _counts(database: Path) -> tuple[int, int, int]:
    """The latest run's planned answers, its judgments and all judgments of model 'sim', by SQL."""
    with duckdb.connect(str(database), read_only=True) as con:
        run_id, started_at, planned = con.sql(
            "SELECT run_id, started_at, n_planned FROM run ORDER BY started_at DESC LIMIT 1"
        ).fetchall()[0]
        this_run, stored = con.execute(
            "SELECT count(*) FILTER (WHERE created_at >= ?), count(*) FROM judgment WHERE model_id = 'sim'",
            [started_at],
        ).fetchall()[0]
    return int(planned), int(this_run), int(stored)


def test_status_counts_are_the_databases_and_the_commands(partly_judged: Path) -> None:
    database = partly_judged.parent / "partial.duckdb"
    planned, this_run, stored = _counts(database)
    assert (planned, this_run, stored) == (300, 300, 300)  # limit=300: the run planned 300
    frame = cs.status(partly_judged)
    assert frame.select("model_id", "stored", "this_run", "failed_this_run", "done").rows() == [
        ("sim", stored, this_run, 0, this_run)
    ]
    row = frame.row(0, named=True)
    assert (row["run_state"], row["run_kind"], row["run_planned"], row["run_done"]) == (
        "finished", "infer", planned, this_run
    )  # fmt: skip
    assert row["run_rate"] > 0 and row["run_eta_seconds"] is None  # no ETA once finished
    done = cli("status", "--study", str(partly_judged))
    assert done.returncode == 0, done.stderr
    assert f"planned {planned:,}, done {this_run:,}" in done.stdout
    assert f"stored in all {stored:,}" in done.stdout
    assert cs.status(database).equals(frame)  # a database itself


def test_status_reads_the_snapshot_while_infer_holds_the_database(
    partly_judged: Path, tmp_path: Path
) -> None:
    database = tmp_path / "held.duckdb"
    shutil.copyfile(partly_judged.parent / "partial.duckdb", database)
    shutil.copyfile(database, tmp_path / "held.duckdb.snapshot")  # what a running infer publishes
    hold = (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
        "print('held', flush=True); time.sleep(120)"
    )
    holder = subprocess.Popen([sys.executable, "-c", hold, str(database)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        row = cs.status(partly_judged, db=database).row(0, named=True)
        assert (row["run_state"], row["this_run"]) == ("running", 300)
        assert row["run_eta_seconds"] == 0.0  # running (a finished run has none), nothing left to ask
    finally:
        holder.kill()
        holder.wait()


def test_status_of_a_missing_database_raises_the_commands_line_and_creates_nothing(tmp_path: Path) -> None:
    study_file = write_demo_study(tmp_path, name="never")
    done = cli("status", "--study", str(study_file))
    with pytest.raises(cs.CueshiftError) as raised:
        cs.status(study_file)
    assert done.returncode == 2 and done.stderr.strip() == f"error: {raised.value}"
    assert str(raised.value).endswith("no such study database (run `cueshift infer` first)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["never.toml"]


def test_show_study_is_the_commands_json(demo: Demo, tmp_path: Path) -> None:
    for study in (str(demo.study_file), "default"):
        done = cli("show-study", "--study", study)
        assert done.returncode == 0, done.stderr
        assert cs.show_study(study) == json.loads(done.stdout)
    missing = tmp_path / "nope.toml"
    done = cli("show-study", "--study", str(missing))
    with pytest.raises(cs.CueshiftError) as raised:
        cs.show_study(missing)
    assert done.returncode == 2 and done.stderr.strip() == f"error: {raised.value}"


def test_merge_adds_the_shards_rows_as_the_command_does(tmp_path: Path) -> None:
    study_file = write_demo_study(tmp_path, name="sharded")
    shards = [cs.infer(study_file, shard=f"{k}/2", progress=False).database for k in (1, 2)]
    with_api, with_cli = tmp_path / "api.duckdb", tmp_path / "cli.duckdb"
    added = cs.merge(with_api, shards)
    done = cli("merge", str(with_cli), *map(str, shards))
    assert done.returncode == 0, done.stderr
    line = ", ".join(f"{table}: +{n:,}" for table, n in added.items()) + f" -> {with_cli}"
    assert done.stdout.strip() == line
    sql = "SELECT count(*) FROM judgment"
    with duckdb.connect(str(with_api), read_only=True) as api, duckdb.connect(str(with_cli)) as command:
        assert api.sql(sql).fetchall() == command.sql(sql).fetchall() == [(added["judgment"],)]
    with duckdb.connect(str(shards[0]), read_only=True) as one, duckdb.connect(str(shards[1])) as two:
        assert added["judgment"] == one.sql(sql).fetchall()[0][0] + two.sql(sql).fetchall()[0][0] > 0


def test_a_failing_merge_raises_the_commands_line_and_writes_nothing(tmp_path: Path) -> None:
    output, missing = tmp_path / "merged.duckdb", tmp_path / "gone.duckdb"
    done = cli("merge", str(output), str(missing))
    with pytest.raises(cs.CueshiftError) as raised:
        cs.merge(output, [missing])
    assert done.returncode == 2 and done.stderr.strip() == f"error: {raised.value}"
    with pytest.raises(cs.CueshiftError, match="give a list of shard databases"):
        cs.merge(output, str(missing))  # one path, not a list
    assert list(tmp_path.iterdir()) == []


def test_upgrade_of_a_current_database_says_what_the_command_says(demo: Demo, tmp_path: Path) -> None:
    database = tmp_path / "current.duckdb"
    shutil.copyfile(demo.raw, database)
    done = cli("upgrade", "--db", str(database))
    assert done.returncode == 0, done.stderr
    upgraded = cs.upgrade(demo.study_file, db=database)
    assert upgraded.backup is None and upgraded.summary() == done.stdout.strip()
    assert upgraded.summary().endswith("already; nothing to upgrade")
    with pytest.raises(cs.CueshiftError, match=r"gone.duckdb: no such study database$"):
        cs.upgrade(tmp_path / "gone.duckdb")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["current.duckdb"]


def test_export_requires_out_as_the_command_requires_out(
    api_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    done = cli("export", "--db", str(api_db))
    assert done.returncode == 2 and "Missing option '--out'" in done.stderr
    assert inspect.signature(cs.export).parameters["out"].default is inspect.Parameter.empty
    with pytest.raises(TypeError, match="out"):
        cs.export(api_db)  # type: ignore[call-arg]  # out left out on purpose
    assert list(tmp_path.iterdir()) == []  # the old default wrote exports/ here
    assert [p.name for p in cs.export(api_db, out="given", formats=["counts"])] == ["counts.parquet"]
