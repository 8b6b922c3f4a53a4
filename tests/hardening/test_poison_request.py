"""Issue 12 item 5: one poison request must not block an OpenAI study forever.

Before: a request that always failed was planned first on every run, the other (answered)
judgments of its batch were discarded with it, and three runs stored 0 of 81. Now the
answered judgments are stored, the failure is recorded in ``request_failure`` (attempts,
last error), later runs ask it again, and after ``max_failed_runs`` (3) runs it is reported
instead of asked. An outage is not a poison request: when the server itself fails, the run
stops and records nothing against the units, so they are never given up for it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from cueshift.errors import CueshiftError
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from tests.hardening.openai_study import served_study, study_data, toml_of
from tests.inference.chat_server import ChatServer

pytestmark = pytest.mark.timeout(120)


def rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def poison_first(server: ChatServer, status: str) -> list[str]:
    """The first judgment the server is asked for fails on every attempt of every run.

    Returns the list that holds the poisoned tag once a request came. Judgments of pixel-identical
    images share a tag (the lossless placebo of a base face, a null edit), so a poisoned tag can
    stand for more than one unit; :func:`poisoned_units` counts them.
    """
    poison: list[str] = []

    def fault(tag: str, attempt: int) -> str | None:
        if not poison:
            poison.append(tag)
        return status if tag == poison[0] else None

    server.fault = fault
    return poison


def poisoned_units(server: ChatServer, poison: list[str], attempts: int) -> int:
    """How many units the poisoned tag stood for in the first run (each asked ``attempts`` times)."""
    hits = sum(1 for _, tag, _ in server.hits if tag == poison[0])
    assert hits % attempts == 0
    return hits // attempts


@pytest.mark.parametrize(("status", "attempts"), [("500", 3), ("400", 1)])
def test_the_other_answers_are_stored_and_the_poison_is_given_up_after_three_runs(
    server: tuple[ChatServer, str], cache: Path, tmp_path: Path, status: str, attempts: int
) -> None:
    chat, url = server
    poison = poison_first(chat, status)
    study = served_study(tmp_path, cache, url, consistency_probe=0)
    db = study.database_path

    first = run_study(study, RunOptions(progress=False))
    total, k = first.n_planned, poisoned_units(chat, poison, attempts)
    assert total > 40 and 1 <= k <= 3 and first.n_written == total - k and first.n_failed == k
    failures = rows(db, "SELECT unit_key, attempts, error FROM request_failure")
    assert len(failures) == k
    for unit_key, n_attempts, error in failures:
        assert n_attempts == attempts and f"HTTP {status}" in str(error) and url in str(error)
        assert set(json.loads(str(unit_key))) == {"image_id", "scenario_id", "ordering", "seed"}
    assert any(f"failed requests: {k}," in note and f"HTTP {status}" in note for note in first.notes)

    for run in (2, 3):  # later runs ask it again, and record it again
        again = run_study(study, RunOptions(progress=False))
        assert (again.n_planned, again.n_written, again.n_failed) == (k, 0, k)
        assert rows(db, "SELECT count(*), count(DISTINCT unit_key) FROM request_failure") == [(run * k, k)]

    asked = chat.n_requests
    fourth = run_study(study, RunOptions(progress=False))  # failed in 3 runs: reported, not asked
    assert (fourth.n_planned, fourth.n_written, fourth.n_failed) == (0, 0, 0)
    assert chat.n_requests == asked
    assert any(f"units not asked: {k}, each failed in 3 runs" in note for note in fourth.notes)
    assert rows(db, "SELECT count(*) FROM judgment") == [(total - k,)]


def test_a_poison_that_heals_is_answered_by_the_next_run(
    server: tuple[ChatServer, str], cache: Path, tmp_path: Path
) -> None:
    chat, url = server
    poison = poison_first(chat, "503")
    study = served_study(tmp_path, cache, url, consistency_probe=0)
    first = run_study(study, RunOptions(progress=False))
    k = poisoned_units(chat, poison, 3)
    assert first.n_failed == k >= 1
    chat.fault = lambda tag, attempt: None
    second = run_study(study, RunOptions(progress=False))
    assert (second.n_planned, second.n_written, second.n_failed) == (k, k, 0)
    assert not any("failed" in note for note in second.notes)
    assert rows(study.database_path, "SELECT count(*) FROM judgment") == [(first.n_planned,)]
    assert rows(study.database_path, "SELECT count(*) FROM request_failure") == [(k,)]  # the history


def test_an_outage_stops_the_run_and_counts_against_no_unit(
    server: tuple[ChatServer, str], cache: Path, tmp_path: Path
) -> None:
    chat, url = server
    chat.fault = lambda tag, attempt: "503"
    study = served_study(tmp_path, cache, url, consistency_probe=0, health_check_after=4)
    with pytest.raises(CueshiftError, match="health check failed"):
        run_study(study, RunOptions(progress=False))
    assert not study.database_path.exists()  # nothing stored, no failure recorded: a failed first run
    # leaves no database behind (docs/decisions.md#d15)
    chat.fault = lambda tag, attempt: None
    summary = run_study(study, RunOptions(progress=False))
    assert summary.n_written == summary.n_planned > 0 and summary.n_failed == 0


def test_the_cli_prints_the_failures(server: tuple[ChatServer, str], cache: Path, tmp_path: Path) -> None:
    chat, url = server
    poison = poison_first(chat, "400")
    path = tmp_path / "served.toml"
    path.write_text(toml_of(study_data(tmp_path, cache, url, consistency_probe=2)), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "infer", "--study", str(path), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "400"},
    )
    assert result.returncode == 0, result.stderr
    out, k = result.stdout, poisoned_units(chat, poison, 1)
    assert f"failed requests: {k}, not stored" in out and "HTTP 400" in out
    assert "consistency probe: 0 of 2 repeated answers changed" in out
    assert "system_fingerprint fp-test-1" in out and "version 0.12.0" in out
    (report,) = rows(tmp_path / "served.duckdb", "SELECT backend_report FROM run")
    record = json.loads(str(report[0]))["served"]
    assert record["consistency"]["probed"] == 2 and record["server"]["served_models"]["tiny-vlm"] > 0
