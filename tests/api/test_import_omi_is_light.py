"""``cueshift import omi`` and ``cs.import_omi`` check every argument that needs no data before they
import their machinery (D98, as the study errors since D93/D95): a bad ``--model``, an ``--out``
already holding a study, a missing OMI folder or ``--reliability`` file and a ``--name`` the study
file refuses are one line (exit 2 / :class:`~cueshift.errors.CueshiftError`) with none of the
start-up's heavy libraries loaded. Each call runs in a fresh interpreter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fresh_interpreter import run_fresh

#: Runs ``cueshift import omi`` on the arguments given, or (first argument ``api``) calls
#: ``cs.import_omi(**json)``; prints the exit code or the error and the heavy libraries loaded.
CALL = """
import json, sys

heavy = json.loads(sys.argv[1])
found = {}
if sys.argv[2] == "api":
    import cueshift as cs
    try:
        cs.import_omi(**json.loads(sys.argv[3]))
    except Exception as exc:
        one_line = isinstance(exc, cs.CueshiftError)
        found = {"type": type(exc).__name__, "message": str(exc), "one_line": one_line}
else:
    from cueshift.cli import main
    sys.argv = ["cueshift", "import", "omi", *sys.argv[2:]]
    try:
        main()
        found["code"] = 0
    except SystemExit as exc:
        found["code"] = exc.code
print(json.dumps({**found, "heavy": sorted(m for m in heavy if m in sys.modules)}))
"""

SIM = "sim=simulated-designs:cueshift-simulated-v1"

#: Per case: the command's arguments, ``cs.import_omi``'s keywords (``{tmp}``: the test's folder,
#: whose ``omi/`` is an empty folder and ``done/`` holds a ``study.toml``) and the error's line.
CASES: dict[str, tuple[list[str], dict[str, Any], str]] = {
    "model": (
        ["{tmp}/omi", "--model", "clip"],
        {"folder": "{tmp}/omi", "models": "clip"},
        "--model 'clip': expected ID=BACKEND[:CHECKPOINT]",
    ),
    "out": (
        ["{tmp}/omi", "--out", "{tmp}/done", "--model", SIM],
        {"folder": "{tmp}/omi", "out": "{tmp}/done", "models": SIM},
        "{tmp}/done/study.toml: already exists; pass --force",
    ),
    "folder": (
        ["{tmp}/gone", "--out", "{tmp}/out"],
        {"folder": "{tmp}/gone", "out": "{tmp}/out"},
        "{tmp}/gone: field 'root': no such folder",
    ),
    "reliability": (
        ["{tmp}/omi", "--out", "{tmp}/out", "--reliability", "{tmp}/irr.csv"],
        {"folder": "{tmp}/omi", "out": "{tmp}/out", "reliability": "{tmp}/irr.csv"},
        "{tmp}/irr.csv: no such file",
    ),
    "name": (
        ["{tmp}/omi", "--out", "{tmp}/out", "--name", "a b"],
        {"folder": "{tmp}/omi", "out": "{tmp}/out", "name": "a b"},
        "{tmp}/out/study.toml (as it would be written): field 'name'",
    ),
}


def _run(*args: str) -> tuple[dict[str, Any], str]:
    return run_fresh(CALL, *args)


@pytest.fixture
def tmp(tmp_path: Path) -> Path:
    (tmp_path / "omi").mkdir()
    (tmp_path / "done").mkdir()
    (tmp_path / "done" / "study.toml").write_text('name = "done"\n')
    return tmp_path


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_argument_of_import_omi_is_one_line_before_its_machinery(case: str, tmp: Path) -> None:
    args, _, message = CASES[case]
    found, stderr = _run(*(arg.format(tmp=tmp) for arg in args))
    assert found["code"] == 2, stderr
    assert stderr.startswith("error: "), stderr
    assert len(stderr.strip().splitlines()) == 1 and message.format(tmp=tmp) in stderr, stderr
    assert found["heavy"] == [], f"import omi ({case}) loaded {', '.join(found['heavy'])}"
    assert not (tmp / "out").exists()


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bad_argument_of_cs_import_omi_raises_before_its_machinery(case: str, tmp: Path) -> None:
    _, keywords, message = CASES[case]
    found, stderr = _run("api", json.dumps({k: v.format(tmp=tmp) for k, v in keywords.items()}))
    assert found.get("one_line"), (found, stderr)
    assert message.format(tmp=tmp) in found["message"] and "\n" not in found["message"], found
    assert found["heavy"] == [], f"cs.import_omi ({case}) loaded {', '.join(found['heavy'])}"
    assert not (tmp / "out").exists()
