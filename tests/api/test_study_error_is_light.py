"""The API functions no command calls read and check their study before they import their machinery
(D95, as the commands since D93): ``cs.report``, ``cs.multiverse``, ``cs.check_invariance`` and
``cs.import_judgments`` with a missing study file, or one with a bad field, raise the command's one
line with none of the start-up's heavy libraries loaded. Each call runs in a fresh interpreter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fresh_interpreter import run_fresh

#: Calls ``cs.<argv[2]>(*argv[3:])``; prints the error's type, its message and the heavy libraries
#: loaded, as the last line.
CALL = """
import json, sys
import cueshift as cs

heavy = json.loads(sys.argv[1])
try:
    getattr(cs, sys.argv[2])(*sys.argv[3:])
    error = None
except Exception as exc:
    error = {"type": type(exc).__name__, "message": str(exc),
             "one_line": isinstance(exc, cs.CueshiftError)}
print(json.dumps({"error": error, "heavy": sorted(m for m in heavy if m in sys.modules)}))
"""

#: Each function and the arguments it is called with before the study (``{tmp}``: the test's folder;
#: ``{tmp}/release`` holds one model folder with one face folder, as a release's judgements do).
FUNCTIONS = {
    "report": (),
    "multiverse": (),
    "check_invariance": (),
    "import_judgments": ("{tmp}/release",),
}


def _call(function: str, *args: str) -> dict[str, Any]:
    return run_fresh(CALL, function, *args)[0]


@pytest.mark.parametrize("function", sorted(FUNCTIONS))
@pytest.mark.parametrize(
    ("study", "message"),
    [("missing.toml", "missing.toml: no such study file"), ("{tmp}/bad.toml", "field 'bogus'")],
    ids=["missing", "bad-field"],
)
def test_a_study_error_of_an_api_function_loads_no_heavy_library(
    function: str, study: str, message: str, tmp_path: Path
) -> None:
    (tmp_path / "bad.toml").write_text('name = "bad"\nbogus = 1\n[[models]]\nmodel_id = "sim"\n')
    (tmp_path / "release" / "sim" / "face-1").mkdir(parents=True)
    args = [arg.format(tmp=tmp_path) for arg in (*FUNCTIONS[function], study)]
    found = _call(function, *args)
    error = found["error"]
    assert error is not None and error["one_line"], error
    assert message in error["message"] and len(error["message"].splitlines()) == 1, error
    assert found["heavy"] == [], f"cs.{function}({', '.join(args)}) loaded {', '.join(found['heavy'])}"


def test_import_judgments_checks_its_folder_before_the_study_and_loads_nothing(tmp_path: Path) -> None:
    """A missing release folder is named before the study is read, as before D95."""
    found = _call("import_judgments", str(tmp_path / "gone"), "missing.toml")
    assert found["error"]["message"].startswith(f"{tmp_path / 'gone'}: no such folder"), found
    assert found["heavy"] == []
