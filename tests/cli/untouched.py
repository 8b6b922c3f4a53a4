"""Helpers of the tests that a failing command leaves the study database byte for byte as it was:
a small judged study (two simulated models), the files' SHA-256 and the one-line check."""

from __future__ import annotations

import hashlib
from pathlib import Path

from typer.testing import CliRunner, Result

from cueshift.cli import app

RUNNER = CliRunner()
#: The models of :func:`two_model_study` (the default study's have the same roles).
MODELS = ("sim-judge", "sim-judge-b")


def two_model_study(folder: Path, *, name: str = "two", faces: int = 2) -> Path:
    """A default-design study file of ``faces`` demo faces judged by two simulated models."""
    path = folder / f"{name}.toml"
    models = "".join(f'[[models]]\nmodel_id = "{m}"\nbackend = "simulated"\n' for m in MODELS)
    path.write_text(
        f'name = "{name}"\ndatabase = "{(folder / f"{name}.duckdb").as_posix()}"\n'
        f'[image_set]\nkind = "demo"\nsize = {faces}\ncache_dir = "{(folder / "cache").as_posix()}"\n'
        + models,
        encoding="utf-8",
    )
    return path


def run(*args: str | Path) -> Result:
    """``cueshift ARGS`` in this process (a traceback shows as ``result.exception``)."""
    return RUNNER.invoke(app, [str(a) for a in args])


def fingerprint(folder: Path) -> dict[str, str]:
    """The SHA-256 of every file in ``folder`` (a database, its WAL, anything a command left) but
    the demo image cache (``cache/``: rendered faces, which a study of more faces adds to)."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.relative_to(folder).parts[0] != "cache"
    }


def error_line(result: Result) -> str:
    """The one ``error:`` line of a command that failed with exit code 2 and no traceback (a
    ``note:`` line beside it, such as the deprecation of ``--model``, is allowed)."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr and result.stdout == "", (result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip() and not line.startswith("note: ")]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]
