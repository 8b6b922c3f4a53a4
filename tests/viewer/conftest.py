"""Fixtures of the viewer's tests: tiny studies of all four designs, a server per study, a browser.

The studies are run with the real command line (``cueshift infer`` / ``cueshift analyze``) into a
temporary folder, once per test session (across pytest-xdist workers too: tests/shared_builds.py);
every fixture holds its own copy. ``CUESHIFT_CLI`` may name another command that runs the
command line (e.g. an installed ``cueshift``); the default is this interpreter's ``-m cueshift.cli``.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pytest

pytest.importorskip("starlette", reason="the viewer needs the 'view' extra (pip install -e '.[view]')")

import uvicorn  # noqa: E402

from cueshift.viewer import Viewer, create_app  # noqa: E402
from tests.shared_builds import built_once  # noqa: E402

STUDIES = Path(__file__).parent / "studies"
CHROMIUM = os.environ.get("CUESHIFT_CHROMIUM", "/usr/bin/chromium")
#: Chromium flags for this machine's closed network (see the project's environment notes).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def cueshift(*args: str, cwd: Path) -> str:
    """Run the cueshift command line in ``cwd``; fail the test with its output when it fails."""
    command = shlex.split(os.environ.get("CUESHIFT_CLI", "")) or [sys.executable, "-m", "cueshift.cli"]
    done = subprocess.run([*command, *args], cwd=cwd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.fail(f"cueshift {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


#: ``cueshift analyze`` options per design: fewer resamples where the design has a random step
#: (probe: none given, so the study's ``n_splits`` random rater splits, not 200; the pages shown do
#: not depend on the count).
ANALYZE_OPTIONS: dict[str, tuple[str, ...]] = {
    "stylisticbias": ("--resamples", "200"),
}


def _study(tmp_path_factory: pytest.TempPathFactory, design: str) -> Path:
    """A copy (``study.duckdb`` and its ``.cueshift-cache`` images) of ``design``'s tiny study,
    inferred and analysed once per test session (tests/shared_builds.py)."""
    study = str(STUDIES / f"{design}.toml")
    options = ANALYZE_OPTIONS.get(design, ())

    def build(folder: Path) -> None:
        cueshift("infer", "--study", study, "--db", "study.duckdb", "--no-progress", cwd=folder)
        cueshift("analyze", "--study", study, "--db", "study.duckdb", "--no-progress", *options, cwd=folder)

    key = "-".join(["viewer", design, *(option.lstrip("-") for option in options)])
    return built_once(key, build, tmp_path_factory) / "study.duckdb"


@pytest.fixture(scope="session")
def stylisticbias_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny StylisticBias study, run and analysed."""
    return _study(tmp_path_factory, "stylisticbias")


@pytest.fixture(scope="session")
def paired_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _study(tmp_path_factory, "paired")


@pytest.fixture(scope="session")
def pairwise_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _study(tmp_path_factory, "pairwise")


@pytest.fixture(scope="session")
def probe_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _study(tmp_path_factory, "probe")


@pytest.fixture(scope="session")
def partial_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An interrupted StylisticBias study: part of the judgments, never analysed, one image file lost."""
    folder = tmp_path_factory.mktemp("partial")
    study = str(STUDIES / "stylisticbias.toml")
    cueshift(
        "infer", "--study", study, "--db", "study.duckdb", "--no-progress", "--limit", "3000", cwd=folder
    )
    con = duckdb.connect(str(folder / "study.duckdb"), read_only=True)
    (path,) = con.execute("SELECT path FROM image WHERE role = 'base' ORDER BY image_id LIMIT 1").fetchall()[
        0
    ]
    con.close()
    lost = next(folder.glob(f".cueshift-cache/demo/*/{path}"))
    lost.unlink()
    return folder / "study.duckdb"


@dataclass(frozen=True)
class Served:
    """A running viewer: its base URL, the database it reads, and the app's state."""

    url: str
    db: Path
    viewer: Viewer


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve_in_thread(db: Path, thumbs: Path) -> Iterator[Served]:
    """Start the viewer for ``db`` on a free localhost port (images found beside the database)."""
    app = create_app(db, thumbs=thumbs)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the viewer did not start")
        time.sleep(0.05)
    try:
        yield Served(url=f"http://127.0.0.1:{port}", db=db, viewer=app.state.viewer)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def stylisticbias_server(
    stylisticbias_db: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    yield from serve_in_thread(stylisticbias_db, tmp_path_factory.mktemp("thumbs"))


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    """Headless Chromium driven by Playwright; skipped with the reason when there is none.

    With ``CUESHIFT_REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing browser fails instead.
    """
    required = os.environ.get("CUESHIFT_REQUIRE_BROWSER") == "1"
    reason = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        reason = "playwright is not installed (pip install -e '.[dev]')"
    if reason is None and not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        reason = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if reason is not None:
        if required:
            pytest.fail(f"browser tests required (CUESHIFT_REQUIRE_BROWSER=1) but {reason}")
        pytest.skip(f"browser tests skipped: {reason}")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture()
def page(browser: object) -> Iterator[object]:
    """A fresh browser page (1280 px wide)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]  # playwright is imported only where chromium runs
    tab = context.new_page()
    try:
        yield tab
    finally:
        context.close()
