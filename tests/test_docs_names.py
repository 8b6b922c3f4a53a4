"""Every dotted ``cueshift.…`` name the docs and the package's docstrings and comments write resolves.

README.md, BENCHMARKS.md and docs/*.md (decisions.md aside: its entries record names as they were)
are read for names in inline code (`` `cueshift.stats.ALPHA` ``, `` `cs.stats.wilson` ``); the
package's ``.py`` files for names in reST roles and inline literals (``:data:`~cueshift.x.Y```,
````cueshift.x````). Each must import: its longest importable module prefix, then attributes.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(
    page
    for page in (ROOT / "README.md", ROOT / "BENCHMARKS.md", *(ROOT / "docs").glob("*.md"))
    if page.name != "decisions.md"
)
SOURCES = sorted((ROOT / "engine" / "cueshift").rglob("*.py"))
#: A dotted name after a backtick (inline code, a reST role) or ``~``; ``cs.`` is ``cueshift.``.
NAME = re.compile(r"`~?((?:cueshift|cs)(?:\.[A-Za-z_]\w*)+)")
#: Names the docs give as removed (api.md: "`cueshift.stats.kernels` was removed").
REMOVED = {"cueshift.stats.kernels"}


@cache
def resolves(name: str) -> bool:
    """Whether ``name`` is a module, or attributes of the longest importable module prefix."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def names_in(text: str) -> list[tuple[int, str]]:
    """``(line, name)`` for each dotted cueshift name ``text`` writes, ``cs.`` read as ``cueshift.``."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in NAME.finditer(line):
            name = re.sub(r"^cs\.", "cueshift.", match.group(1))
            if name not in REMOVED:
                found.append((number, name))
    return found


def dead_names(path: Path) -> list[str]:
    """``"line: name"`` for each name in ``path`` that does not resolve."""
    return [f"{n}: {name}" for n, name in names_in(path.read_text(encoding="utf-8")) if not resolves(name)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_name_a_page_writes_imports(page: Path) -> None:
    assert dead_names(page) == []


def test_every_name_the_package_docstrings_write_imports() -> None:
    dead = [f"{path.relative_to(ROOT)}:{line}" for path in SOURCES for line in dead_names(path)]
    assert dead == []


def test_a_dead_name_is_found(tmp_path: Path) -> None:
    page = tmp_path / "stale.md"
    page.write_text(
        "See `cueshift.stats.ALPHA`, `cs.stats.wilson`,\n:data:`~cueshift.stats.ALL_PAIRS` and `cs.nope`.\n"
    )
    assert dead_names(page) == ["2: cueshift.stats.ALL_PAIRS", "2: cueshift.nope"]


def commands_in_table(readme: str) -> set[str]:
    """The ``cueshift`` commands the README's Commands table names (``import omi``: ``import``)."""
    table = readme.partition("\n## Commands\n")[2].partition("\n\n")[0]
    return set(re.findall(r"`cueshift ([a-z][\w-]*)", table))


def test_every_command_is_in_the_readme_commands_table() -> None:
    import typer

    from cueshift.cli._commands import app

    commands = set(getattr(typer.main.get_command(app), "commands", {}))
    assert commands - commands_in_table((ROOT / "README.md").read_text(encoding="utf-8")) == set()
