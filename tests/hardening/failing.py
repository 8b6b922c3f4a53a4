"""Helpers of the tests that a failing command fails with one line and writes nothing."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from typer.testing import CliRunner, Result

from cueshift.cli import app
from tests.hardening.study_db import error_lines

RUNNER = CliRunner()


def run(*args: str) -> Result:
    """``cueshift ARGS`` in this process (a traceback shows as ``result.exception``)."""
    return RUNNER.invoke(app, list(args))


def one_line(result: Result, notices: tuple[str, ...] = ()) -> str:
    """The one ``error:`` line of a command that failed with exit code 2 and no traceback (besides
    progress notices starting with one of ``notices``, printed before the failure)."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    lines = [line for line in error_lines(result.stderr) if not line.startswith(notices)]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def study_file(tmp: Path, body: str, *, name: str = "s", faces: int = 2, cache: Path | None = None) -> Path:
    """A demo study file with ``body`` (top-level keys, then sections) and its database beside it."""
    path = tmp / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ndatabase = "{(tmp / f"{name}.duckdb").as_posix()}"\n{body}\n'
        f'[image_set]\nkind = "demo"\nsize = {faces}\ncache_dir = "{(cache or tmp / "cache").as_posix()}"\n'
        '[[models]]\nmodel_id = "sim"\n',
        encoding="utf-8",
    )
    return path


@contextmanager
def tmpfs(folder: Path, *options: str) -> Iterator[Path | None]:
    """A small tmpfs at ``folder`` (``None`` where mounting is impossible: not root, no mount)."""
    folder.mkdir(parents=True, exist_ok=True)
    if shutil.which("mount") is None:
        yield None
        return
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", ",".join(options), "tmpfs", str(folder)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        yield None
        return
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)
