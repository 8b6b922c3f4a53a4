"""User- and server-supplied text is printed as written, never parsed as rich markup (docs/decisions.md#d12).

Before the fix a study path ``x[/]y.toml``, a manifest cell ``[/]`` or a server error body
with ``[/]`` crashed with ``MarkupError``; ``data[red]/s.toml`` was shown as ``data/s.toml``
and ``[redacted]`` vanished from the messages.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from cueshift.cli import app
from tests.hardening.study_db import build_study_db, error_lines, tiny_study
from tests.local_http import LocalServer

RUNNER = CliRunner()
KEY = "sk-markup-test-0123456789abcdef"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cueshift.cli", *args], capture_output=True, text=True, timeout=300
    )


def one_error_line(stderr: str) -> str:
    lines = error_lines(stderr)
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr and "MarkupError" not in stderr
    return lines[0]


@pytest.mark.parametrize("name", ["x[/]y.toml", "data[red]/s.toml", "[bold]keys[/bold] [redacted].toml"])
def test_a_missing_study_path_is_shown_literally(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    result = cli("infer", "--study", str(path), "--no-progress")
    assert result.returncode == 2
    assert str(path) in one_error_line(result.stderr)
    assert not list(tmp_path.rglob("*.duckdb"))


def test_a_manifest_cell_is_shown_literally(tmp_path: Path) -> None:
    manifest = tmp_path / "images.csv"
    manifest.write_text(
        "image_id,face_id,path,role,base_image_id,feature_key,variation_value,age,gender,ethnicity,"
        "body_type\nx1,p1,x1.png,[/]odd[red],,,,,,,\n"
    )
    study = tmp_path / "m.toml"
    study.write_text(
        f'name = "m"\ndatabase = "{(tmp_path / "m.duckdb").as_posix()}"\n'
        f'[image_set]\nkind = "manifest"\nmanifest = "{manifest.as_posix()}"\n'
        '[[models]]\nmodel_id = "sim"\n'
    )
    result = RUNNER.invoke(app, ["infer", "--study", str(study), "--no-progress"])
    assert result.exit_code == 2, result.stderr
    assert "[/]odd[red]" in one_error_line(result.stderr)
    assert not (tmp_path / "m.duckdb").exists()


def test_free_text_in_the_overview_tables_is_shown_literally(tmp_path: Path) -> None:
    import duckdb

    db = build_study_db(tmp_path, limit=2000)
    with duckdb.connect(str(db)) as con:
        con.execute(
            "UPDATE image SET variation_value = '[/]odd[red]' || variation_value "
            "WHERE variation_value IS NOT NULL"
        )
    study = tmp_path / "tiny.toml"
    result = RUNNER.invoke(app, ["analyze", "--study", str(study), "--db", str(db), "--overview-only"])
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert "[/]odd[red]" in result.stdout


class _Refusing(BaseHTTPRequestHandler):
    """Answers every request with 400 and a body that echoes the key between markup-like brackets."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers["Content-Length"]))
        auth = self.headers.get("Authorization", "")
        body = json.dumps({"error": {"message": f"bad [/] request [red]for[/red] {auth}"}}).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class RefusingServer(LocalServer):
    handler = _Refusing


@pytest.fixture
def refusing_url() -> Iterator[str]:
    server = RefusingServer()
    try:
        yield server.start()
    finally:
        server.stop()


def test_a_server_error_body_keeps_its_brackets_and_the_redaction(
    tmp_path: Path, refusing_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUESHIFT_MARKUP_TEST_KEY", KEY)
    study = tiny_study(tmp_path, faces=1)
    text = study.read_text().replace(
        'backend = "simulated"\n',
        'backend = "openai"\ncheckpoint = "tiny-vlm"\n[models.settings]\n'
        f'base_urls = ["{refusing_url}"]\napi_key_env = "CUESHIFT_MARKUP_TEST_KEY"\nmax_retries = 0\n'
        "health_check_after = 1\n",  # a 400 fails its request alone; a failed health check stops the run
    )
    study.write_text(text)
    result = RUNNER.invoke(app, ["infer", "--study", str(study), "--no-progress", "--limit", "1"])
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    line = one_error_line(result.stderr)
    assert "bad [/] request [red]for[/red] Bearer [redacted]" in line
    assert KEY not in result.stderr
