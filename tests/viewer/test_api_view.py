"""``cs.view``: the viewer served in the background from Python, stopped for good, its bad input one
line with nothing left running; ``cueshift view`` waits on the same server (docs/decisions.md D85)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import cueshift as cs
from cueshift.errors import MissingExtra
from tests.viewer.pages import fetch

#: The tiny study's name (tests/viewer/studies/stylisticbias.toml), shown on the overview.
NAME = "view-stylisticbias"


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Run in a fresh folder (the thumbnail cache is relative) and check no server thread outlives
    the test."""
    monkeypatch.chdir(tmp_path)
    yield
    left = [t.name for t in threading.enumerate() if t.name.startswith("cueshift view")]
    assert not left, f"still running: {left}"


def _refused(url: str) -> bool:
    """Whether nothing answers at ``url`` (the connection refused)."""
    try:
        urllib.request.urlopen(url, timeout=5)
    except urllib.error.URLError as exc:
        return isinstance(exc.reason, ConnectionRefusedError)
    return False


def _free(port: int) -> bool:
    """Whether another server can listen on ``127.0.0.1:port`` now (with ``SO_REUSEADDR``, as servers
    do: a served connection leaves the port in TIME_WAIT, which only a listener refuses)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        probe.listen()
        return True


def _one_line(caught: pytest.ExceptionInfo[cs.CueshiftError]) -> str:
    line = str(caught.value)
    assert line and "\n" not in line, line
    return line


def test_view_serves_the_pages_of_the_database(stylisticbias_db: Path) -> None:
    server = cs.view(db=stylisticbias_db, port=0)
    try:
        assert server.running and server.port > 0
        assert server.url == f"http://127.0.0.1:{server.port}/"
        status, _, body = fetch(server.url)
        assert status == 200 and NAME in body.decode()
        assert fetch(server.url + "faces")[0] == 200
        assert server.database == stylisticbias_db
        assert repr(server) == f"<ViewerServer {server.url} serving {NAME} from {stylisticbias_db}>"
        assert f'<a href="{server.url}" target="_blank">{server.url}</a>' in server._repr_html_()
    finally:
        server.stop()
    assert "stopped" in repr(server) and "<a " not in server._repr_html_()


def test_a_database_given_as_study_is_served(stylisticbias_db: Path) -> None:
    """As ``cs.status`` (D84): ``study`` a database is that database."""
    with cs.view(stylisticbias_db, port=0) as server:
        assert NAME in fetch(server.url)[2].decode()


def test_stop_frees_the_port_for_another_server(stylisticbias_db: Path) -> None:
    first = cs.view(db=stylisticbias_db, port=0)
    port = first.port
    assert not _free(port)
    first.stop()
    assert not first.running and _refused(first.url) and _free(port)
    first.stop()  # again: nothing
    second = cs.view(db=stylisticbias_db, port=port)
    try:
        assert second.port == port and fetch(second.url)[0] == 200
    finally:
        second.stop()


def test_the_with_block_stops_the_server(stylisticbias_db: Path) -> None:
    with cs.view(db=stylisticbias_db, port=0) as server:
        assert fetch(server.url)[0] == 200
    assert not server.running and _refused(server.url) and _free(server.port)


def test_a_missing_database_is_one_line_with_nothing_left(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    gone = tmp_path / "gone.duckdb"
    with pytest.raises(cs.CueshiftError) as caught:
        cs.view(db=gone, port=port)
    assert _one_line(caught) == f"{gone}: no such study database (run `cueshift infer` first)"
    assert _free(port)  # the socket bound before the database was opened is closed


def test_images_not_a_folder_is_one_line(stylisticbias_db: Path, tmp_path: Path) -> None:
    with pytest.raises(cs.CueshiftError) as caught:
        cs.view(db=stylisticbias_db, port=0, images=tmp_path / "nowhere")
    assert _one_line(caught) == f"--images {tmp_path / 'nowhere'}: no such folder"


def test_a_taken_port_is_one_line(stylisticbias_db: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = int(holder.getsockname()[1])
        with pytest.raises(cs.CueshiftError) as caught:
            cs.view(db=stylisticbias_db, port=port)
        line = _one_line(caught)
    assert line.startswith(f"--host 127.0.0.1 --port {port}: cannot listen (") and "in use" in line


def test_without_the_extra_the_line_names_it(stylisticbias_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    with pytest.raises(MissingExtra) as caught:
        cs.view(db=stylisticbias_db, port=0)
    assert _one_line(caught).startswith("cueshift view needs the 'view' extra (uvicorn is not installed)")


def test_the_command_prints_its_lines_serves_and_stops_on_ctrl_c(stylisticbias_db: Path) -> None:
    """``cueshift view`` blocks on the same server: its lines, the real port of ``--port 0``, the
    pages, and Ctrl-C stops it with exit 0."""
    command = [sys.executable, "-m", "cueshift.cli", "view", "--study", str(stylisticbias_db), "--port", "0"]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(3)]
        assert lines[0] == f"cueshift view: {NAME} (stylisticbias) from {stylisticbias_db}, read-only\n"
        assert lines[1].startswith("  aggregated in ")
        assert lines[2].startswith("  open http://127.0.0.1:") and lines[2].endswith("/  (Ctrl-C to stop)\n")
        url = lines[2].split()[1]
        assert not url.endswith(":0/") and NAME in fetch(url)[2].decode()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert out == "" and err == "" and _refused(url)
