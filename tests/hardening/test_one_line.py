"""Every failure is one clear line with exit code 2, no traceback (docs/decisions.md#d16).

Before the fix each case below ended in a traceback (rc 1), hid its cause behind
`cannot rollback - no transaction is active`, tried to download a DuckDB extension, or (CSV
against Parquet) applied two different cell limits.
"""

from __future__ import annotations

import csv
import os
import signal
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pytest

from tests.hardening.failing import one_line, run, study_file, tmpfs
from tests.hardening.study_db import build_study_db, error_lines, tiny_study

HEADER = [
    "image_id", "face_id", "path", "role", "base_image_id", "feature_key", "variation_value",
    "age", "gender", "ethnicity", "body_type",
]  # fmt: skip


@pytest.fixture(scope="module")
def study_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_study_db(tmp_path_factory.mktemp("one-line"))


def _manifest_study(tmp: Path, study_db: Path, rows: list[list[str]], suffix: str = ".csv") -> Path:
    """A manifest study over two demo images (a base and its sunglasses variation)."""
    images = sorted((study_db.parent / "cache").rglob("demo-0001/*.png"))
    base = next(p for p in images if "--" not in p.name)
    variation = next(p for p in images if p.name.startswith("eyewear--"))
    for source, name in ((base, "b1.png"), (variation, "v1.png")):
        (tmp / name).write_bytes(source.read_bytes())
    manifest = tmp / f"images{suffix}"
    if suffix == ".csv":
        with manifest.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle).writerows([HEADER, *rows])
    else:
        pl.DataFrame(rows, schema=HEADER, orient="row").write_parquet(manifest)
    study = tmp / "m.toml"
    study.write_text(
        f'name = "m"\ndatabase = "{(tmp / "m.duckdb").as_posix()}"\n'
        f'[image_set]\nkind = "manifest"\nmanifest = "{manifest.as_posix()}"\n'
        '[[models]]\nmodel_id = "sim"\n',
        encoding="utf-8",
    )
    return study


BASE = ["b1", "p1", "b1.png", "base", "", "", "", "young adult", "female", "White", "average"]
SUNGLASSES = ["v1", "p1", "v1.png", "variation", "b1", "eyewear", "Sunglasses", "young adult", "female"]
SUNGLASSES += ["White", "average"]


def test_a_nul_byte_in_a_manifest_path(study_db: Path, tmp_path: Path) -> None:
    bad = [*SUNGLASSES[:2], "v1\x00.png", *SUNGLASSES[3:]]
    study = _manifest_study(tmp_path, study_db, [BASE, bad])
    line = one_line(run("infer", "--study", str(study), "--no-progress"))
    assert "row 2" in line and "'path'" in line
    assert not (tmp_path / "m.duckdb").exists()


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_one_cell_limit_for_csv_and_parquet(study_db: Path, tmp_path: Path, suffix: str) -> None:
    long = [*SUNGLASSES[:6], "x" * 200_000, *SUNGLASSES[7:]]
    study = _manifest_study(tmp_path, study_db, [BASE, long], suffix)
    line = one_line(run("infer", "--study", str(study), "--no-progress"))
    assert "row 2" in line and "131,072 characters" in line
    assert not (tmp_path / "m.duckdb").exists()


def test_analyze_skips_table4_without_fashion_styles(study_db: Path, tmp_path: Path) -> None:
    study = _manifest_study(tmp_path, study_db, [BASE, SUNGLASSES])
    assert run("infer", "--study", str(study), "--no-progress").exit_code == 0
    result = run("analyze", "--study", str(study), "--resamples", "100", "--no-progress")
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert "table4 skipped" in result.stderr and "Fashion" in result.stderr
    with duckdb.connect(str(tmp_path / "m.duckdb"), read_only=True) as con:
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        listed = {r[0] for r in con.execute("SELECT name FROM result_manifest").fetchall()}
    assert "result_table4" not in tables and "table4" not in listed
    assert {"result_sbs", "result_table5"} <= tables


@pytest.mark.parametrize("where", ["file", "under a file", "read-only"])
def test_report_out_that_cannot_be_written(study_db: Path, tmp_path: Path, where: str) -> None:
    (tmp_path / "taken").write_text("x")
    with tmpfs(tmp_path / "ro", "ro", "size=1m") as read_only:
        if where == "read-only" and read_only is None:
            pytest.skip("cannot mount a read-only tmpfs here")
        out = {
            "file": tmp_path / "taken",
            "under a file": tmp_path / "taken" / "report",
            "read-only": (read_only or tmp_path) / "report",
        }[where]
        line = one_line(run("report", "--db", str(study_db), "--out", str(out), "--format", "html"))
    assert "--out" in line
    assert (tmp_path / "taken").read_text() == "x"


def test_sql_csv_of_a_list(study_db: Path) -> None:
    result = run("sql", "--db", str(study_db), "--csv", "select [1,2]")
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert "[1,2]" in result.stdout


@pytest.mark.parametrize("command", ["infer", "analyze", "sql", "report"])
def test_a_sqlite_file_named_duckdb(study_db: Path, tmp_path: Path, command: str) -> None:
    db = tmp_path / "lite.duckdb"
    with sqlite3.connect(db) as lite:
        lite.execute("CREATE TABLE judgment (x)")
    study = tiny_study(study_db.parent)
    args = {
        "infer": ["infer", "--study", str(study), "--db", str(db), "--no-progress"],
        "analyze": ["analyze", "--study", str(study), "--db", str(db)],
        "sql": ["sql", "--db", str(db), "SELECT 1"],
        "report": ["report", "--db", str(db), "--tables"],
    }[command]
    line = one_line(run(*args))
    assert "SQLite" in line and "download" not in line and "extension" not in line


def test_ctrl_c_during_a_query(study_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGINT to this process while DuckDB runs the query stops it at once: one line, exit 130.

    The signal is sent 0.3 s after the query is handed to DuckDB (``readonly._flat`` wraps the
    relation just before it is materialized): a timer from the start could land in the command's
    imports or in opening the file on a loaded machine. Before the query ran inside
    ``prompt_interrupts``, DuckDB noticed the signal up to minutes late (242 s in 1 of 3 runs)."""
    from cueshift.store import readonly

    started = threading.Event()
    flat = readonly._flat

    def flat_then_signal(relation: Any) -> Any:
        started.set()
        return flat(relation)

    sent: list[float] = []

    def interrupt_once_started() -> None:
        if started.wait(timeout=120):
            time.sleep(0.3)
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(readonly, "_flat", flat_then_signal)
    sender = threading.Thread(target=interrupt_once_started, daemon=True)
    sender.start()
    result = run("sql", "--db", str(study_db), "SELECT count(*) FROM range(1000000000000) AS a(i)")
    stopped = time.monotonic()
    sender.join(timeout=5)
    assert started.is_set(), (result.stderr, result.exception)
    # at once: DuckDB's own check for Ctrl-C came up to minutes late (store/interrupts.py)
    assert sent and stopped - sent[0] < 20, stopped - sent[0]
    assert result.exit_code == 130, (result.stderr, result.exception)
    lines = error_lines(result.stderr)
    assert lines == ["interrupted: the query stopped; it writes nothing"], result.stderr


# -- a full disk (a 2 MB tmpfs) --------------------------------------------------------------------


def test_disk_full_while_storing_shows_the_real_cause(study_db: Path, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "full", "size=2m") as full:
        if full is None:
            pytest.skip("cannot mount a tmpfs here")
        study = tiny_study(study_db.parent)
        line = one_line(run("infer", "--study", str(study), "--db", str(full / "x.duckdb"), "--no-progress"))
    assert "No space left on device" in line and "cannot rollback" not in line


def test_disk_full_while_rendering_demo_images(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "full", "size=2m") as full:
        if full is None:
            pytest.skip("cannot mount a tmpfs here")
        study = study_file(tmp_path, "", faces=20, cache=full / "cache")
        line = one_line(run("infer", "--study", str(study), "--no-progress"))
    assert "No space left on device" in line
    assert not list(tmp_path.glob("*.duckdb*"))


def test_disk_full_while_merging_leaves_no_output(study_db: Path, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "full", "size=512k") as full:
        if full is None:
            pytest.skip("cannot mount a tmpfs here")
        line = one_line(run("merge", str(full / "m.duckdb"), str(study_db)))
        assert "No space left on device" in line and "cannot rollback" not in line
        assert not list(full.iterdir())


STUDY_COMMANDS = [
    ["infer", "--no-progress"], ["analyze"], ["multiverse"], ["audit"], ["check-invariance"],
    ["export", "--out", "exports"], ["report", "--tables"], ["show-study"], ["plan"], ["build"],
    ["prereg", "--out", "plan.toml"],
]  # fmt: skip


@pytest.mark.parametrize("command", STUDY_COMMANDS, ids=lambda command: command[0])
def test_a_database_given_as_the_study_file_is_named(
    study_db: Path, tmp_path: Path, command: list[str]
) -> None:
    before = study_db.read_bytes()
    line = one_line(run(command[0], "--study", str(study_db), *command[1:]))
    assert line == f"error: {study_db}: a DuckDB database, not a study file: give it as --db (db=)"
    assert study_db.read_bytes() == before


@pytest.mark.parametrize("command", [["analyze"], ["show-study"], ["plan"]], ids=lambda c: c[0])
def test_a_binary_file_given_as_the_study_file_is_one_line(tmp_path: Path, command: list[str]) -> None:
    picture = tmp_path / "face.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    line = one_line(run(command[0], "--study", str(picture), *command[1:]))
    assert line == f"error: {picture}: not a study file: not UTF-8 text (byte 0)"


def test_a_database_given_as_the_preregistered_plan_is_named(study_db: Path, tmp_path: Path) -> None:
    study = tiny_study(study_db.parent)
    line = one_line(run("analyze", "--study", str(study), "--db", str(study_db), "--prereg", str(study_db)))
    assert line == f"error: {study_db}: a DuckDB database, not a preregistered plan: give it as --db (db=)"
