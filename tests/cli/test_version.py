"""``cueshift --version`` prints ``cueshift <version>`` (the package's ``__version__``) and exits 0."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

import cueshift
from cueshift.cli import app


def test_version_prints_the_package_version_and_exits_0() -> None:
    done = CliRunner().invoke(app, ["--version"])
    assert done.exit_code == 0, done.output
    assert done.output == f"cueshift {cueshift.__version__}\n"


def test_version_from_the_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"cueshift {cueshift.__version__}\n"


def test_help_shows_version_as_a_plain_flag() -> None:
    """``cueshift --help`` lists ``--version`` with its help and nothing between (no ``<bool>``)."""
    done = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "120", "TERMINAL_WIDTH": "120"})
    assert done.exit_code == 0, done.output
    rows = [" ".join(line.strip("│ ").split()) for line in done.output.splitlines() if "--version" in line]
    assert rows == ["--version Show the version and exit."]
