"""Issue 12 items 9 and 10 with real processes: SIGTERM stops ``infer`` as Ctrl-C does, and a
running ``infer`` can be looked at (``sql``, ``status``, ``analyze``, ``report``, ``view``).

One scenario runs once per module (:func:`scenario`): ``infer`` on a small study of the default
design (the simulated judge, batches of 1 answer, a snapshot as often as its cost allows) is
started; once it has published a snapshot the readers run against its locked database, a second
``infer`` tries to write it, then SIGTERM stops it and the same command resumes it to the end.
"""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pytest

from cueshift.errors import CueshiftError
from cueshift.store.snapshot import snapshot_path
from cueshift.viewer.source import open_source
from tests.hardening.study_db import error_lines

SCENARIOS = ["competent", "wealthy", "honest", "stylish"]
#: SIGTERMs at random moments after the first, each resumed by the next
MORE_STOPS = 2
KEY = "model_id, image_id, scenario_id, ordering, seed"


def _study(tmp: Path, batch_size: int) -> Path:
    path = tmp / f"running-{batch_size}.toml"
    path.write_text(
        f'name = "running"\ndatabase = "{(tmp / "running.duckdb").as_posix()}"\nbatch_size = {batch_size}\n'
        f'[image_set]\nkind = "demo"\nsize = 4\ncache_dir = "{(tmp / "cache").as_posix()}"\n'
        f"[scenarios]\nonly = {SCENARIOS}\n"
        '[[models]]\nmodel_id = "sim"\nbackend = "simulated"\n[models.settings]\nseed = 3\n',
        encoding="utf-8",
    )
    return path


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cueshift.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    stdout, stderr = process.communicate(timeout=300)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return _finish(_start(*args))


def _count(db: Path, sql: str = "SELECT count(*) FROM judgment") -> int:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(sql).fetchall()
    return int(rows[0][0])


def _wait_for_snapshot(db: Path, process: subprocess.Popen[str]) -> None:
    """Wait until the run has stored its run record (it publishes its first snapshot then)."""
    deadline = time.monotonic() + 120
    while not snapshot_path(db).exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no snapshot published"
        time.sleep(0.02)


@dataclass
class Scenario:
    """What each step of the scenario gave (see the module docstring)."""

    db: Path
    readers: dict[str, subprocess.CompletedProcess[str]] = field(default_factory=dict)
    view_answers: int = -1
    stopped: subprocess.CompletedProcess[str] | None = None
    left_after_stop: list[str] = field(default_factory=list)
    stored_after_stop: int = -1
    #: more SIGTERMs at random moments: exit code, answers the line says, answers stored, files left, stderr
    more_stops: list[tuple[int, int, int, list[str], str]] = field(default_factory=list)
    stored_before_resume: int = -1
    resumed: subprocess.CompletedProcess[str] | None = None
    status_after: subprocess.CompletedProcess[str] | None = None


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    tmp = tmp_path_factory.mktemp("running")
    study = _study(tmp, batch_size=1)  # slow (a commit per answer): readers see it run
    db = tmp / "running.duckdb"
    result = Scenario(db)
    infer = ["infer", "--study", str(study), "--no-progress", "--snapshot-every", "0.1"]
    process = _start(*infer)
    try:
        _wait_for_snapshot(db, process)
        readers = {  # all at once, while the run goes on
            "sql": _start("sql", "--study", str(study), "SELECT count(*) AS n FROM judgment", "--csv"),
            "status": _start("status", "--study", str(study)),
            "second infer": _start(*infer),
            "analyze": _start("analyze", "--study", str(study), "--overview-only", "--no-progress"),
            "report": _start("report", "--study", str(study), "--tables"),
        }
        result.readers = {name: _finish(reader) for name, reader in readers.items()}
        source = open_source(db)
        try:
            result.view_answers = int(
                source.cursor().execute("SELECT count(*) FROM study.judgment").fetchall()[0][0]
            )
        finally:
            source.close()
        assert process.poll() is None, "the run ended before SIGTERM: make the study slower"
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    result.stopped = subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
    result.left_after_stop = sorted(p.name for p in tmp.iterdir() if p.name.startswith("running.duckdb"))
    result.stored_after_stop = _count(db)
    rng = random.Random(20261125)
    for _ in range(MORE_STOPS):
        process = _start(*infer)
        _wait_for_snapshot(db, process)
        time.sleep(rng.uniform(0.0, 1.0))
        process.send_signal(signal.SIGTERM)
        stopped = _finish(process)
        said = re.search(r"([\d,]+) answers stored", stopped.stderr)
        left = sorted(p.name for p in tmp.iterdir() if p.name.startswith("running.duckdb"))
        count = int(said.group(1).replace(",", "")) if said else -1
        result.more_stops.append((stopped.returncode, count, _count(db), left, stopped.stderr))
    result.stored_before_resume = _count(db)
    result.resumed = _cli("infer", "--study", str(_study(tmp, batch_size=500)), "--no-progress")
    result.status_after = _cli("status", "--study", str(study))
    return result


def test_sigterm_stops_infer_with_one_line_saying_what_is_stored_and_how_to_resume(
    scenario: Scenario,
) -> None:
    stopped = scenario.stopped
    assert stopped is not None
    assert stopped.returncode == 143, stopped.stderr
    lines = error_lines(stopped.stderr)
    assert len(lines) == 1 and "Traceback" not in stopped.stderr, stopped.stderr
    found = re.fullmatch(
        r"stopped by SIGTERM: ([\d,]+) answers stored in (.+) \(([\d,]+) by this run\), "
        r"an unfinished batch rolled back; resume with: cueshift infer --study .+",
        lines[0],
    )
    assert found is not None, lines[0]
    stored = int(found.group(1).replace(",", ""))
    assert stored == scenario.stored_after_stop  # the line is true to the database
    assert Path(found.group(2)) == scenario.db


def test_sigterm_leaves_no_wal_and_no_snapshot(scenario: Scenario) -> None:
    assert scenario.left_after_stop == ["running.duckdb"]  # checkpointed: no .wal, snapshot removed


def test_sigterm_at_random_moments_says_exactly_what_is_stored(scenario: Scenario) -> None:
    # a batch that commits just before the signal is counted: the line reads the database
    for returncode, said, stored, left, stderr in scenario.more_stops:
        assert (returncode, said, left) == (143, stored, ["running.duckdb"]), stderr


def test_a_rerun_resumes_to_every_answer_once(scenario: Scenario) -> None:
    resumed = scenario.resumed
    assert resumed is not None
    assert resumed.returncode == 0, resumed.stderr
    n_images = _count(scenario.db, "SELECT count(*) FROM image WHERE evaluated")
    expected = n_images * len(SCENARIOS) * 4 * 3  # orderings x seeds
    assert 0 < scenario.stored_after_stop < expected, "SIGTERM did not land mid-run"
    print(f"SIGTERM after {scenario.stored_after_stop:,} of {expected:,} answers")
    assert _count(scenario.db) == expected
    assert _count(scenario.db, f"SELECT count(*) FROM (SELECT DISTINCT {KEY} FROM judgment)") == expected


def test_sql_reads_the_snapshot_and_says_which(scenario: Scenario) -> None:
    sql = scenario.readers["sql"]
    assert sql.returncode == 0, sql.stderr
    answers = int(sql.stdout.splitlines()[1])
    note = error_lines(sql.stderr)
    assert len(note) == 1 and "reading its snapshot of" in note[0], sql.stderr
    assert f"({answers:,} answers)" in note[0]  # the note counts what the query read
    assert answers > 0


def test_status_while_running_shows_planned_stored_rate_eta_and_failures(scenario: Scenario) -> None:
    status = scenario.readers["status"]
    assert status.returncode == 0, status.stderr
    head = status.stdout.splitlines()[0]
    assert "latest run running" in head and "snapshot of" in head, status.stdout
    found = re.search(r"planned ([\d,]+)", head)
    assert found, head
    planned = int(found.group(1).replace(",", ""))
    assert planned == _count(scenario.db)  # a first run plans the whole study
    assert re.search(r"done [\d,]+ \(", head) and "rate " in head, head
    assert "failed this run" in status.stdout and "sim" in status.stdout


def test_status_after_the_run_says_finished(scenario: Scenario) -> None:
    after = scenario.status_after
    assert after is not None
    assert after.returncode == 0, after.stderr
    assert "latest run finished" in after.stdout and "read from its database" in after.stdout
    head = after.stdout.splitlines()[0]
    numbers = {
        name: int(value.replace(",", ""))
        for name, value in re.findall(r"(planned|done|stored in all) ([\d,]+)", head)
    }
    resumed = _count(scenario.db) - scenario.stored_before_resume  # what the resuming run stored
    assert numbers == {"planned": resumed, "done": resumed, "stored in all": _count(scenario.db)}
    assert "ETA" not in head  # a finished run has none


def test_a_second_infer_is_refused_in_one_line_while_the_first_runs(scenario: Scenario) -> None:
    # the writer keeps its lock after publishing snapshots (a copy made in the writing process
    # would have dropped it: POSIX releases a process's locks when it closes any descriptor)
    second = scenario.readers["second infer"]
    assert second.returncode == 2
    assert error_lines(second.stderr) == [
        f"error: {scenario.db}: in use by another process; `cueshift status` shows a running infer's progress"
    ]


def test_analyze_while_running_writes_a_copy_and_says_so(scenario: Scenario) -> None:
    analyze = scenario.readers["analyze"]
    assert analyze.returncode == 0, analyze.stderr
    partial = scenario.db.with_name("running.partial.duckdb")
    assert f"analyzing a copy, {partial}" in analyze.stderr
    assert partial.is_file()


def test_report_reads_the_snapshot_and_says_which(scenario: Scenario) -> None:
    report = scenario.readers["report"]
    assert report.returncode == 0, report.stderr
    assert "reading its snapshot of" in report.stderr and "Table S1" in report.stdout


def test_view_reads_the_snapshot(scenario: Scenario) -> None:
    assert scenario.view_answers > 0


def test_a_locked_database_without_snapshot_is_one_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "held.duckdb"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import duckdb, time; c = duckdb.connect({str(db)!r}); print(1, flush=True); time.sleep(30)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "1"
        from cueshift.store import open_study

        with pytest.raises(CueshiftError, match="in use by another process .*no snapshot of it yet"):
            open_study(db, read_only=True)
    finally:
        holder.kill()
        holder.wait()


def test_sigterm_stops_a_ray_run_the_same_way(tmp_path: Path) -> None:
    # ray.init installs its own SIGTERM handler (sys.exit) and Ray's shutdown resets it to the
    # default: the command's handler is put back, and the database is closed before Ray shuts down
    pytest.importorskip("ray")
    study = _study(tmp_path, batch_size=1)
    db = tmp_path / "running.duckdb"
    process = _start("infer", "--study", str(study), "--no-progress", "--executor", "ray", "--workers", "1")
    try:
        _wait_for_snapshot(db, process)
        time.sleep(1.0)
        process.send_signal(signal.SIGTERM)
        stopped = _finish(process)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert stopped.returncode == 143, stopped.stderr
    assert "Traceback" not in stopped.stderr
    said = re.fullmatch(r"stopped by SIGTERM: ([\d,]+) answers stored in .*", error_lines(stopped.stderr)[-1])
    assert said is not None, stopped.stderr
    assert int(said.group(1).replace(",", "")) == _count(db) > 0
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("running.duckdb")) == [
        "running.duckdb"
    ]
