"""Optional features import their extras only when used; a missing extra is one line naming it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cueshift.errors import CueshiftError, MissingExtra
from cueshift.extras import MODULES, importing, require
from tests.hardening.failing import one_line, run

#: What `import cueshift.cli` must not import: every extra's modules.
OPTIONAL = sorted({module for modules in MODULES.values() for module in modules})


def test_the_command_line_starts_without_any_extra() -> None:
    """Loading the command line (every command registered) imports no module of any extra."""
    code = (
        "import sys, cueshift.cli; cueshift.cli.app; "
        "print(' '.join(m for m in sys.argv[1:] if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *OPTIONAL], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == []


def test_require_names_the_extra_and_the_missing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nbformat", None)  # as if not installed: find_spec gives None
    with pytest.raises(MissingExtra) as caught:
        require("report", "cueshift report")
    assert str(caught.value) == (
        "cueshift report needs the 'report' extra (nbformat is not installed): pip install 'cueshift[report]'"
    )
    assert isinstance(caught.value, CueshiftError) and caught.value.extra == "report"


def test_importing_turns_a_missing_extra_module_into_missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mlcroissant", None)
    wanted = r"^x: needs the 'croissant' extra \(mlcroissant is not"
    with pytest.raises(MissingExtra, match=wanted), importing("croissant", "x:"):
        import mlcroissant  # noqa: F401


def test_importing_keeps_a_missing_module_of_no_extra() -> None:
    """A module that no extra installs is a bug or a broken install: its own error, not an extra."""
    with pytest.raises(ModuleNotFoundError), importing("report", "cueshift report"):
        import cueshift_no_such_module  # type: ignore[import-not-found]  # noqa: F401


@pytest.mark.parametrize(
    ("command", "module", "extra"),
    [("report", "great_tables", "report"), ("view", "starlette", "view")],
)
def test_a_command_without_its_extra_fails_in_one_line(
    monkeypatch: pytest.MonkeyPatch, command: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)
    line = one_line(run(command, "--db", "nowhere.duckdb"))
    assert line == (
        f"error: cueshift {command} needs the '{extra}' extra ({module} is not installed): "
        f"pip install 'cueshift[{extra}]'"
    )


def _justfile_all_extras() -> list[str]:
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "justfile").read_text(encoding="utf-8")
    found = re.search(r'^all_extras := "([^"]*)"', text, flags=re.MULTILINE)
    assert found, "justfile has no all_extras line"
    return found.group(1).split(",")


def test_just_setup_installs_every_extra_of_pyproject() -> None:
    """`just test` and `just lint` (CI) run `just setup`: an extra missing there is silently skipped
    by its tests and unknown to mypy (the build extra once was: CI's mypy could not find diffusers)."""
    import tomllib
    from pathlib import Path

    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text("utf-8"))
    declared = set(pyproject["project"]["optional-dependencies"])
    assert set(_justfile_all_extras()) == declared
    assert set(MODULES) == declared - {"dev"}


@pytest.mark.skipif(
    __import__("os").environ.get("CUESHIFT_REQUIRE_EXTRAS") != "1",
    reason="CI (.ci/run sets CUESHIFT_REQUIRE_EXTRAS=1) has every extra; a local venv may not",
)
@pytest.mark.parametrize("extra", sorted(MODULES))
def test_in_ci_every_extra_is_installed(extra: str) -> None:
    """Where CI says every extra is installed, an extra's tests cannot be skipped for want of it."""
    require(extra, f"the {extra} tests")


def test_python_report_without_its_extra_says_what_the_command_says(monkeypatch: pytest.MonkeyPatch) -> None:
    """``cs.report`` fails before any work with the CLI's line (not a figure module's import error)."""
    import cueshift as cs

    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(MissingExtra) as caught:
        cs.report("default", db="nowhere.duckdb")
    assert str(caught.value) == (
        "cueshift report needs the 'report' extra (matplotlib is not installed): "
        "pip install 'cueshift[report]'"
    )
