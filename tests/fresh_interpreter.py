"""A script run in a fresh interpreter from the repository root, for the tests of what reading a
study, or an argument's error, loads (D90, D93, D95, D98): the script prints one JSON object as its
last line, having been given the heavy libraries to look for as its first argument."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.test_startup import HEAVY as STARTUP_HEAVY

ROOT = Path(__file__).resolve().parents[1]
#: What a study read or an argument's error must not load: the start-up's heavy libraries, and the
#: viewer's server.
HEAVY = (*STARTUP_HEAVY, "starlette")


def run_fresh(script: str, *args: str, path: Path | None = None) -> tuple[dict[str, Any], str]:
    """Run ``script`` with ``sys.argv[1:]`` = the JSON list :data:`HEAVY`, then ``args`` (``path``
    first on ``sys.path`` when given): its last line read as JSON, and its stderr."""
    prefix = f"import sys; sys.path[:0] = {[str(path)] if path is not None else []!r}\n"
    done = subprocess.run(
        [sys.executable, "-c", prefix + script, json.dumps(HEAVY), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.stdout.strip(), done.stderr
    found: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return found, done.stderr
