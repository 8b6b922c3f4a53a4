"""Issue 12 item 2: the API key never leaks, in whatever encoding a server echoes it.

Before: a server that echoed the key JSON-escaped (``sk-test\\/SECRET…``) put the full key in
the error message and every retry log line, and a partially masked echo
(``sk-test/SE****0xyz``) was shown and a 12-character prefix stored in ``response_text``.
Here a server echoes the key raw, JSON-escaped, URL-encoded and masked, in answers, in
errors that are retried, in errors that fail one request and in an error that stops the run;
the study is run through the real runner (and the CLI), and the key, or any prefix or
suffix of six characters or more in any of those encodings, is looked for in the messages,
the log records, the printed output, every table of the database and the database file.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import traceback
from pathlib import Path

import duckdb
import pytest

from cueshift.errors import CueshiftError
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from tests.hardening.openai_study import served_study, study_data, toml_of
from tests.inference.chat_server import ChatServer
from tests.key_forms import leaks

pytestmark = pytest.mark.timeout(120)

KEY = "sk-test/SECRET-9f8e7d6c5b4a+leak=0xyz"
ECHOES = ("echo", "echo-json", "echo-url", "echo-masked")


def leaky(tag: str, attempt: int) -> str | None:
    """Per judgment: an echo of the key in one encoding, a retried 500 that echoes it raw, and
    a few requests refused (400, masked key) or failing on every attempt (500, raw key)."""
    n = int(tag, 16)
    if n % 17 == 0:
        return "400"
    if n % 19 == 0:
        return "500"
    if attempt == 0 and n % 3 == 0:
        return "500"
    return ECHOES[n % len(ECHOES)]


def database_text(db: Path) -> str:
    """Every row of every table, as text."""
    with duckdb.connect(str(db), read_only=True) as con:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        return "\n".join(repr(row) for t in tables for row in con.execute(f'SELECT * FROM "{t}"').fetchall())


def test_no_form_of_the_key_reaches_messages_logs_or_the_database(
    server: tuple[ChatServer, str],
    cache: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    chat, url = server
    chat.fault = leaky
    monkeypatch.setenv("CUESHIFT_LEAK_KEY", KEY)
    caplog.set_level(logging.DEBUG)
    study = served_study(tmp_path, cache, url, api_key_env="CUESHIFT_LEAK_KEY")
    summary = run_study(study, RunOptions(progress=False))
    assert set(chat.auth) == {f"Bearer {KEY}"}  # the key was sent
    assert summary.n_failed > 0 and summary.n_written > 0
    seen = {fault for _, _, fault in chat.hits}
    assert {"400", "500", *ECHOES} <= seen  # every kind of echo happened

    chat.fault = lambda tag, attempt: "401-json"  # the error that stops the run, JSON-escaped
    stopping = served_study(tmp_path, cache, url, api_key_env="CUESHIFT_LEAK_KEY")
    with pytest.raises(CueshiftError) as info:
        run_study(
            stopping.model_copy(update={"database": tmp_path / "other.duckdb"}), RunOptions(progress=False)
        )
    message = str(info.value)
    assert "HTTP 401" in message and "[redacted]" in message

    logged = caplog.text + "".join(logging.Formatter().format(r) + repr(r.args) for r in caplog.records)
    assert any("retry" in r.getMessage() for r in caplog.records)
    text = database_text(study.database_path)
    assert "[redacted]" in text and "CUESHIFT_LEAK_KEY" in text  # the search does see stored text
    for where, found in {
        "message": message + "".join(traceback.format_exception(info.value)),
        "notes": "\n".join(summary.notes),
        "logs": logged,
        "database": text,
    }.items():
        assert not leaks(found, KEY), where
    raw = study.database_path.read_bytes()
    assert KEY[:6].encode() not in raw and KEY[-6:].encode() not in raw


def test_the_cli_prints_no_form_of_the_key(
    server: tuple[ChatServer, str], cache: Path, tmp_path: Path
) -> None:
    chat, url = server
    chat.fault = leaky
    path = tmp_path / "served.toml"
    path.write_text(
        toml_of(study_data(tmp_path, cache, url, api_key_env="CUESHIFT_LEAK_KEY")), encoding="utf-8"
    )
    command = [sys.executable, "-m", "cueshift.cli", "infer", "--study", str(path), "--no-progress"]
    env = {**os.environ, "CUESHIFT_LEAK_KEY": KEY, "COLUMNS": "400"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert "failed requests:" in done.stdout and "[redacted]" in done.stdout
    chat.fault = lambda tag, attempt: "401-json"
    (tmp_path / "served.duckdb").unlink()
    stopped = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert stopped.returncode == 2 and "HTTP 401" in stopped.stderr and "Traceback" not in stopped.stderr
    for output in (done.stdout, done.stderr, stopped.stdout, stopped.stderr):
        assert not leaks(output, KEY)
