"""Ctrl-C and SIGTERM stop ``cueshift analyze`` at once: one line, exit 130 or 143, no result table
written, and the database analyses again afterwards.

One scenario runs once per module (:func:`scenario`) on a simulated study that takes several
seconds to analyse: ``analyze`` is started and, once it has printed the first line of its
overview on stdout (its statistics come next), gets SIGINT; the same again with SIGTERM; then
a full ``analyze`` runs on the same database. Two separate checks show the gaps that
``prompt_interrupts`` closes: a long DuckDB statement, which Python alone would raise the
interrupt only after, and an interrupt raised inside a finalizer, which Python reports and drops.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import pytest

from cueshift import store
from tests.hardening.study_db import error_lines
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

#: Seconds a stop may take from the signal to the exit, generous for a loaded 2-core machine (a
#: signal that let the analysis run on to its end would also leave result tables, refused below).
STOP_BOUND = 10.0
STOPPED_LINES = {
    signal.SIGINT: "interrupted: result tables are replaced in one transaction, so none is half-written; "
    "run the same command to analyze again",
    signal.SIGTERM: "stopped by SIGTERM: result tables are replaced in one transaction, so none is "
    "half-written; run the same command to analyze again",
}


@dataclass
class Stopped:
    """One interrupted ``analyze``: exit code, seconds from the signal to the exit, stderr, the
    result tables in the database afterwards and the files left beside it."""

    returncode: int
    seconds: float
    stderr: str
    result_tables: int
    left: list[str]


@dataclass
class Scenario:
    """What each step of the scenario gave (see the module docstring)."""

    db: Path
    stopped: dict[signal.Signals, Stopped] = field(default_factory=dict)
    after: subprocess.CompletedProcess[str] | None = None
    manifest: list[str] = field(default_factory=list)
    result_tables: list[str] = field(default_factory=list)


def _result_tables(db: Path) -> list[str]:
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'result\\_%' ESCAPE '\\' ORDER BY 1"
        ).fetchall()
    return [str(row[0]) for row in rows]


def _analyze(db: Path, *options: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "cueshift.cli", "analyze", "--db", str(db), "--no-progress", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _stop_once_analysing(db: Path, signum: signal.Signals) -> Stopped:
    process = _analyze(db)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # the overview is printed: the statistics come next
        assert first, process.communicate(timeout=120)
        process.send_signal(signum)
        sent = time.monotonic()
        _, stderr = process.communicate(timeout=120)
        seconds = time.monotonic() - sent
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    left = sorted(p.name for p in db.parent.iterdir() if p.name.startswith(db.name) and p != db)
    return Stopped(process.returncode, seconds, stderr, len(_result_tables(db)), left)


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    db = tmp_path_factory.mktemp("analyze-interrupt") / "study.duckdb"
    con = store.open_study(db)
    try:
        spec = SimulationSpec(n_faces=150, models=("sim-a", "sim-b"), seed=7, placebos=True)
        write_study(con, simulate_study(spec))
    finally:
        con.close()
    result = Scenario(db)
    for signum in (signal.SIGINT, signal.SIGTERM):
        result.stopped[signum] = _stop_once_analysing(db, signum)
    after = _analyze(db, "--resamples", "200")
    stdout, stderr = after.communicate(timeout=600)
    result.after = subprocess.CompletedProcess(after.args, after.returncode, stdout, stderr)
    with duckdb.connect(str(db), read_only=True) as con:
        result.manifest = [
            str(row[0]) for row in con.execute('SELECT "table" FROM result_manifest').fetchall()
        ]
    result.result_tables = _result_tables(db)
    return result


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_stops_analyze_at_once_with_one_line(scenario: Scenario, signum: signal.Signals) -> None:
    stopped = scenario.stopped[signum]
    print(f"{signum.name}: stopped {stopped.seconds:.2f} s after the signal")
    assert stopped.returncode == 128 + signum.value, stopped.stderr
    assert "Traceback" not in stopped.stderr
    assert error_lines(stopped.stderr) == [STOPPED_LINES[signum]], stopped.stderr
    assert stopped.seconds < STOP_BOUND


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stopped_analyze_writes_no_result_table_and_leaves_no_wal(
    scenario: Scenario, signum: signal.Signals
) -> None:
    stopped = scenario.stopped[signum]
    assert (stopped.result_tables, stopped.left) == (0, []), stopped.stderr


def test_analyze_after_the_stops_writes_every_result(scenario: Scenario) -> None:
    after = scenario.after
    assert after is not None and after.returncode == 0, after.stderr if after else None
    assert all(line.startswith("note: ") for line in error_lines(after.stderr)), after.stderr
    assert len(scenario.manifest) >= 25  # 31 declared, a few do not apply to this study
    assert sorted([*scenario.manifest, "result_manifest"]) == scenario.result_tables


# A child that runs a statement lasting minutes inside prompt_interrupts and sends itself
# SIGTERM once its main thread has been inside the statement for two polls (this thread runs only
# while the statement releases the GIL). SIGTERM's handler here only notes the signal, so what
# stops the statement is the watcher alone. It prints the error, the seconds and the rows kept.
_CHILD = """
import os, signal, sys, threading, time
import duckdb
from cueshift.store.interrupts import prompt_interrupts

signal.signal(signal.SIGTERM, lambda signum, frame: None)
con = duckdb.connect()
con.execute("CREATE TABLE kept (x INTEGER)")
main = threading.main_thread().ident
sent = []

def send_once_inside():
    inside = 0
    while inside < 2:
        time.sleep(0.05)
        inside = inside + 1 if sys._current_frames()[main].f_code.co_name == "statement" else 0
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGTERM)

def statement():
    con.execute("BEGIN")
    con.execute("INSERT INTO kept VALUES (1)")
    con.execute("SELECT sum(range % 7) FROM range(1000000000000)").fetchall()

threading.Thread(target=send_once_inside, daemon=True).start()
try:
    with prompt_interrupts(con):
        statement()
except duckdb.Error as exc:
    seconds = time.monotonic() - sent[0]
    con.execute("ROLLBACK")
    print(type(exc).__name__, round(seconds, 3), con.execute("SELECT count(*) FROM kept").fetchall()[0][0])
"""


def test_sigterm_interrupts_the_running_duckdb_statement() -> None:
    child = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr
    error, seconds, rows = child.stdout.split()
    assert error == "InterruptException", child.stdout
    assert float(seconds) < STOP_BOUND
    assert rows == "0"  # the statement's transaction is rolled back


# A child that keeps creating objects whose finalizer runs a while, and sends itself SIGTERM once
# its main thread is inside one: the interrupt is raised there, where Python prints "Exception
# ignored" and drops it (and SIGTERM's handler ignores a second SIGTERM). It prints whether the
# loop was interrupted and after how many seconds from the signal.
_FINALIZER_CHILD = """
import os, signal, sys, threading, time
import duckdb
from cueshift.execution.interrupts import stop_on_sigterm
from cueshift.store.interrupts import prompt_interrupts

stop_on_sigterm()
main = threading.main_thread().ident
sent = []

class Slow:
    def __del__(self):
        started = time.monotonic()
        while time.monotonic() - started < 0.01:
            pass

def send_inside_finalizer():
    while sys._current_frames()[main].f_code.co_name != "__del__":
        time.sleep(0.001)
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=send_inside_finalizer, daemon=True).start()
try:
    with prompt_interrupts(duckdb.connect()):
        started = time.monotonic()
        while time.monotonic() - started < 20:
            Slow()
            work = time.monotonic()
            while time.monotonic() - work < 0.005:
                pass
    print("completed")
except KeyboardInterrupt:
    print("interrupted", round(time.monotonic() - sent[0], 3))
"""


def test_sigterm_raised_inside_a_finalizer_still_stops_the_block() -> None:
    child = subprocess.run(
        [sys.executable, "-c", _FINALIZER_CHILD], capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 0, child.stderr
    outcome, seconds = child.stdout.split()
    assert outcome == "interrupted" and float(seconds) < STOP_BOUND
    assert child.stderr == ""  # no "Exception ignored" report
