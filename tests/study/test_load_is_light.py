"""Reading a study file loads no data, statistics or report library (D90): finding the designs
reads only their names, study models and scenario sets; each design imports its machinery inside
the members that use it (``analyze``, ``report``, ``viewer``, ``result_schemas``, ...). So a bad
study file is one line at once, and every command starts with the study read cheaply.

Checked in fresh interpreters: the registry's study functions on the default study and a study
file of each design (every discovered design is imported by them: a design whose module loads a
heavy library at import fails here), the one-line study errors of every command taking ``--study``
(walked from the app; each reads the study before it imports its machinery, D93), and the result
tables of a design found before the result check was loaded (declared to it as it loads)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.fresh_interpreter import run_fresh

#: A study file of each design (the default study is the stylisticbias one).
STUDY_FILES = ("studies/paired-001.toml", "studies/pairwise-002.toml", "studies/probe-004.toml")

#: Loads each study given, then asks the registry everything a study file needs; prints the designs
#: found, the studies' designs and the heavy libraries loaded, as the last line.
LOAD = """
import json, sys
from cueshift.designs.discovery import designs
from cueshift.designs.registry import design_named, load_study, scenario_sets, study_schema

heavy = json.loads(sys.argv[1])
loaded = [load_study(None).design, *(load_study(path).design for path in sys.argv[2:])]
study_schema(), scenario_sets(), [design_named(name) for name in designs()]
print(json.dumps({"designs": list(designs()), "loaded": loaded,
                  "heavy": sorted(m for m in heavy if m in sys.modules)}))
"""

#: Runs the command line on the arguments given (as ``cueshift`` does); prints its exit code and the
#: heavy libraries loaded, as the last line.
CLI = """
import json, sys
from cueshift.cli import main

heavy = json.loads(sys.argv[1])
sys.argv = ["cueshift", *sys.argv[2:]]
try:
    main()
    code = 0
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "heavy": sorted(m for m in heavy if m in sys.modules)}))
"""


def test_loading_every_designs_study_file_loads_no_heavy_library() -> None:
    found, stderr = run_fresh(LOAD, *STUDY_FILES)
    assert found["loaded"] == ["stylisticbias", "paired", "pairwise", "probe"], stderr
    assert {"stylisticbias", "paired", "pairwise", "probe"} <= set(found["designs"])
    assert found["heavy"] == [], f"reading a study file loaded {', '.join(found['heavy'])} (D90)"


def _commands_taking_a_study() -> list[str]:
    """Every command of the app with a ``--study`` option (``"import judgments"`` for a subcommand),
    walked from the app so that a new command is covered."""
    from typer.main import get_command

    from cueshift.cli._commands import app

    found: list[str] = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, (*path, name))
        if not hasattr(command, "commands") and any("--study" in p.opts for p in command.params):
            found.append(" ".join(path))

    walk(get_command(app), ())
    return found


#: The arguments a command requires besides ``--study`` (``{tmp}``: the test's folder; ``{tmp}/release``
#: holds one model folder with one face folder, so ``import judgments`` gets to the study's fields).
REQUIRED = {
    "sql": ("SELECT 1",),
    "export": ("--out", "{tmp}/exported"),
    "import judgments": ("{tmp}/release",),
}
CASES = [
    pytest.param(command, study, message, id=f"{command}-{kind}")
    for command in _commands_taking_a_study()
    for kind, study, message in (
        ("missing", "missing.toml", "missing.toml: no such study file"),
        ("bad-field", "{tmp}/bad.toml", "field 'bogus'"),
    )
]


def test_every_command_taking_a_study_is_covered() -> None:
    commands = _commands_taking_a_study()
    assert {"analyze", "show-study", "sql", "status", "upgrade", "import judgments"} <= set(commands)
    assert set(REQUIRED) <= set(commands)


@pytest.mark.parametrize(("command", "study", "message"), CASES)
def test_a_one_line_study_error_of_every_command_loads_no_heavy_library(
    command: str, study: str, message: str, tmp_path: Path
) -> None:
    """A missing study file, or one with a bad field: exit 2, one line, before any command imports
    its machinery (D90 for ``analyze`` and ``show-study``, D93 for the others, D95 for ``import
    judgments``, which checks its folder and model folders first, as before)."""
    (tmp_path / "bad.toml").write_text('name = "bad"\nbogus = 1\n[[models]]\nmodel_id = "sim"\n')
    (tmp_path / "release" / "sim" / "face-1").mkdir(parents=True)
    args = (*command.split(), *REQUIRED.get(command, ()), "--study", study)
    found, stderr = run_fresh(CLI, *(arg.format(tmp=tmp_path) for arg in args))
    assert found["code"] == 2, stderr
    assert message in stderr and len(stderr.strip().splitlines()) == 1, stderr
    assert found["heavy"] == [], f"cueshift {' '.join(args)} loaded {', '.join(found['heavy'])} (D93)"


#: A design outside the package (an entry point) whose result tables need pandera: found without it.
LIGHT_TOY = """
from typing import Literal

from cueshift.designs.protocol import OptionSupport
from cueshift.designs.viewer_support import ViewerSupport
from cueshift.study.config import Study


class LightToyStudy(Study):
    design: Literal["lighttoy"] = "lighttoy"


class LightToyDesign:
    name = "lighttoy"
    study_model = LightToyStudy
    options = OptionSupport(tests=("none",), ci_methods=("none",))
    viewer = ViewerSupport()
    table = "lighttoy_counts"

    @property
    def result_schemas(self):
        import pandera.polars as pa

        class LightToyCounts(pa.DataFrameModel):
            n: int

        return {self.table: LightToyCounts}

    def workload(self, study, *, progress): ...
    def analyses(self): ...
    def analyze(self, con, study, request, *, console, progress, write): ...
    def report(self): ...
    def planner(self): ...


DESIGN = LightToyDesign()
"""

#: Finds the designs, then loads the result check; prints what it knows of the toy's tables.
DECLARED_LATER = """
import json, sys
from cueshift.designs.discovery import designs

heavy = json.loads(sys.argv[1])
found = list(designs())
before = sorted(m for m in heavy if m in sys.modules)
try:
    from cueshift.schemas.results import RESULT_SCHEMAS, RESULT_SCHEMAS_BY_DESIGN
except Exception as exc:
    print(json.dumps({"designs": found, "heavy": before, "error": f"{type(exc).__name__}: {exc}"}))
else:
    print(json.dumps({"designs": found, "heavy": before,
                      "tables": sorted(RESULT_SCHEMAS_BY_DESIGN.get("lighttoy", {})),
                      "counts": "lighttoy_counts" in RESULT_SCHEMAS}))
"""


def _install_light_toy(site: Path, table: str) -> None:
    (site / "lighttoy_design").mkdir(parents=True)
    source = textwrap.dedent(LIGHT_TOY).replace('table = "lighttoy_counts"', f"table = {table!r}")
    (site / "lighttoy_design" / "__init__.py").write_text(source)
    (site / "lighttoy-0.0.dist-info").mkdir()
    (site / "lighttoy-0.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: lighttoy\nVersion: 0.0\n"
    )
    (site / "lighttoy-0.0.dist-info" / "entry_points.txt").write_text(
        "[cueshift.designs]\nlighttoy = lighttoy_design\n"
    )


def test_a_design_found_before_the_result_check_is_declared_to_it_as_it_loads(tmp_path: Path) -> None:
    _install_light_toy(tmp_path, "lighttoy_counts")
    found, stderr = run_fresh(DECLARED_LATER, path=tmp_path)
    assert "lighttoy" in found["designs"], stderr
    assert found["heavy"] == []  # finding it read no result_schemas
    assert found.get("error") is None
    assert found["tables"] == ["counts"] and found["counts"] is True


def test_a_result_table_declared_twice_is_refused_when_the_check_loads(tmp_path: Path) -> None:
    _install_light_toy(tmp_path, "sbs")  # StylisticBias's table
    found, stderr = run_fresh(DECLARED_LATER, path=tmp_path)
    assert "lighttoy" in found["designs"], stderr
    assert found["error"].startswith("ConfigError: entry point 'lighttoy'")
    assert "result table 'result_sbs' is declared already" in found["error"]
