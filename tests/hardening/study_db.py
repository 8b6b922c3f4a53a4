"""A tiny study database for the hardening tests, built once per module with the real CLI."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path


def tiny_study(tmp: Path, *, faces: int = 2) -> Path:
    """Write a study file: the default design on ``faces`` demo faces, judged by the simulated model."""
    path = tmp / "tiny.toml"
    path.write_text(
        f'name = "tiny"\n'
        f'database = "{(tmp / "tiny.duckdb").as_posix()}"\n'
        f'[image_set]\nkind = "demo"\nsize = {faces}\ncache_dir = "{(tmp / "cache").as_posix()}"\n'
        '[[models]]\nmodel_id = "sim"\nbackend = "simulated"\n',
        encoding="utf-8",
    )
    return path


def build_study_db(tmp: Path, *, limit: int = 300) -> Path:
    """Run ``cueshift infer --limit`` on :func:`tiny_study`; return the database file."""
    study = tiny_study(tmp)
    result = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "infer", "--study", str(study), "--no-progress"]
        + ["--limit", str(limit)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    database = tmp / "tiny.duckdb"
    assert database.is_file()
    return database


def sha256(path: Path) -> str:
    """The file's SHA-256, to show that a command left it byte for byte as it was."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def error_lines(stderr: str) -> list[str]:
    """The non-empty lines a failed command printed."""
    return [line for line in stderr.splitlines() if line.strip()]
