"""Start-up stays light (D86): building the app and ``--help`` of the app and of every command load
no data or model library, so a ``cueshift`` process that only shows help starts in a fraction of a
second. What is loaded is checked here, in a fresh interpreter; the timings are in
``benchmarks/bench_cli_startup.py`` (BENCHMARKS.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

#: Libraries a command imports when it runs, never at start-up (absent ones are simply never loaded).
HEAVY = (
    "duckdb",
    "great_tables",
    "hypothesis",
    "matplotlib",
    "mlcroissant",
    "numba",
    "numpy",
    "pandas",
    "pandera",
    "PIL",
    "polars",
    "pyarrow",
    "ray",
    "scipy",
    "statsmodels",
    "torch",
    "transformers",
)

#: Builds the app, then runs ``--help`` of the app and of every command (the command tree walked, so
#: a new command is covered), then ``--version``; prints, per call, its exit code and the heavy
#: libraries loaded so far, as the last line.
PROBE = """
import contextlib, io, json, sys
import typer
import cueshift.cli

heavy = json.loads(sys.argv[1])
app = cueshift.cli.app  # every command registered
calls = [{"argv": ["(app built)"], "code": 0, "loaded": sorted(m for m in heavy if m in sys.modules)}]

def paths(command, prefix):
    yield prefix
    for name, sub in getattr(command, "commands", {}).items():  # a group's commands
        yield from paths(sub, [*prefix, name])

for argv in [*([*p, "--help"] for p in paths(typer.main.get_command(app), [])), ["--version"]]:
    code = None
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            app(argv, prog_name="cueshift")
        except SystemExit as exc:
            code = exc.code
    calls.append({"argv": argv, "code": code, "loaded": sorted(m for m in heavy if m in sys.modules)})
print(json.dumps(calls))
"""


def _calls() -> list[dict[str, Any]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(HEAVY)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    calls: list[dict[str, Any]] = json.loads(done.stdout.splitlines()[-1])
    return calls


def test_building_the_app_and_every_help_load_no_heavy_library() -> None:
    calls = _calls()
    shown = {" ".join(call["argv"]) for call in calls}
    for expected in ("--help", "analyze --help", "report --help", "view --help", "import omi --help"):
        assert expected in shown, f"{expected!r} not run: the command tree was not walked ({sorted(shown)})"
    assert [call for call in calls if call["code"] not in (0, None)] == []
    loaded = [f"{' '.join(call['argv'])}: {', '.join(call['loaded'])}" for call in calls if call["loaded"]]
    assert not loaded, "heavy libraries loaded at start-up (loaded so far, after each call):\n" + "\n".join(
        loaded
    )


def test_report_help_shows_the_default_output_folder_the_command_uses() -> None:
    from cueshift.cli.report import DEFAULT_OUT
    from cueshift.render import DEFAULT_OUT as RENDER_OUT

    assert Path(DEFAULT_OUT) == RENDER_OUT
