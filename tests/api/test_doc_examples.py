"""Every Python example of README.md and docs/*.md runs (issue 30): each ```` ```python ```` block,
as written, in a fresh working folder laid out as the docs assume, the default study's database
(``runs/default.duckdb``, its study file ``studies/default.toml`` and ``study.toml``) being a small
default study: the default study's two simulated judges on two demo faces, judged and analysed.

A page's blocks run in order in one namespace and folder, a later one continuing the earlier
ones as a reader does; the first starts with ``cs`` imported. A block that needs
an extra is marked by the line ``<!-- needs extra: NAME -->`` right before it, and runs where the
extra is installed (marked slow), else is reported skipped; ``<!-- not run: WHY -->`` (a GPU, a
server) skips it always, with its reason. Every top-level expression is evaluated and shown
(``repr``) as a notebook would, and a table it shows must have rows. The notebooks in
docs/notebooks run in tests/test_notebooks.py.
"""

from __future__ import annotations

import ast
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pytest

from cueshift.errors import MissingExtra
from cueshift.extras import require
from tests.api.conftest import SmallDefault

ROOT = Path(__file__).resolve().parents[2]
PAGES = (ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")))
FENCE = re.compile(r"^```py(?:thon)?[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)
MARKER = re.compile(r"<!--\s*(needs extra|not run):\s*(.+?)\s*-->")


@dataclass(frozen=True)
class Example:
    """One Python block of a page: where it starts, its code and what its marker says."""

    page: str
    line: int
    code: str
    needs_extra: str | None = None
    not_run: str | None = None

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def examples_of(page: Path) -> list[Example]:
    """The Python blocks of ``page``; a block whose fence the pattern misses, or an unknown marker, raise."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        before = text[: match.start()].rstrip("\n").rpartition("\n")[2].strip()
        marker = MARKER.fullmatch(before)
        if before.startswith("<!--") and marker is None:
            raise ValueError(f"{page.name}: unknown marker before a Python block: {before}")
        kind, value = marker.groups() if marker else (None, None)
        found.append(
            Example(
                page=str(page.relative_to(ROOT)),
                line=text.count("\n", 0, match.start()) + 2,  # the block's first line of code
                code=match.group(1),
                needs_extra=value if kind == "needs extra" else None,
                not_run=value if kind == "not run" else None,
            )
        )
    fences = len(re.findall(r"```py(?:thon)?\b", text))
    if fences != len(found):
        raise ValueError(f"{page.name}: {fences} Python fences, {len(found)} read (indented?)")
    return found


EXAMPLES = [example for page in PAGES for example in examples_of(page)]
#: Each page's run, shared by its blocks in order (this session).
PAGE_RUNS: dict[str, PageRun] = {}


def run_example(example: Example, namespace: dict[str, object]) -> None:
    """Run ``example`` statement by statement; each top-level expression is shown, a table has rows."""
    tree = ast.parse(example.code, filename=example.page)
    ast.increment_lineno(tree, example.line - 1)  # tracebacks name the page's own lines
    for statement in tree.body:
        if not isinstance(statement, ast.Expr):
            exec(compile(ast.Module([statement], []), example.page, "exec"), namespace)  # noqa: S102
            continue
        value = eval(compile(ast.Expression(statement.value), example.page, "eval"), namespace)  # noqa: S307
        repr(value)
        if isinstance(value, pl.DataFrame):
            assert value.height > 0, f"{example.page}:{statement.lineno}: shows an empty table"


def why_not_run(example: Example) -> str | None:
    """Why ``example`` is skipped here (its marker, a missing extra), or None."""
    if example.not_run:
        return f"{example.name}: not run: {example.not_run}"
    if example.needs_extra:
        try:
            require(example.needs_extra, example.name)
        except MissingExtra as missing:
            return str(missing)
    return None


@dataclass
class PageRun:
    """A page's examples so far: their working folder, namespace and the lines already run."""

    folder: Path
    namespace: dict[str, object]
    done: set[int] = field(default_factory=set)


@pytest.fixture(scope="session")
def docs_folder(small_default: SmallDefault, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A working folder as the docs assume it: the default study's database and study files."""
    folder = tmp_path_factory.mktemp("docs-folder")
    (folder / "runs").mkdir()
    (folder / "studies").mkdir()
    shutil.copyfile(small_default.database, folder / "runs" / "default.duckdb")
    study = small_default.study_file.read_text(encoding="utf-8")
    study = re.sub(r'(?m)^database = ".*"$', 'database = "runs/default.duckdb"', study)
    for name in ("studies/default.toml", "study.toml"):
        (folder / name).write_text(study, encoding="utf-8")
    return folder


def test_the_docs_show_python_examples() -> None:
    pages = {example.page for example in EXAMPLES}
    assert {"README.md", "docs/api.md"} <= pages
    assert len(EXAMPLES) >= 5


def test_an_unknown_marker_is_refused(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- skip this -->\n```python\nx = 1\n```\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown marker"):
        examples_of(page)


@pytest.mark.parametrize(
    "example",
    [
        pytest.param(e, marks=pytest.mark.slow) if e.needs_extra else e
        for e in EXAMPLES
    ],
    ids=[example.name for example in EXAMPLES],
)  # fmt: skip
def test_the_example_runs(
    example: Example,
    docs_folder: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if (reason := why_not_run(example)) is not None:
        pytest.skip(reason)
    page = PAGE_RUNS.get(example.page)
    if page is None:
        folder = tmp_path_factory.mktemp("docs-page") / "work"
        shutil.copytree(docs_folder, folder)
        page = PAGE_RUNS[example.page] = PageRun(folder, {"__name__": "__doc_example__"})
        exec("import cueshift as cs", page.namespace)  # noqa: S102
    monkeypatch.chdir(page.folder)
    earlier = [e for e in EXAMPLES if e.page == example.page and e.line < example.line]
    for before in earlier:  # what the page ran before this block (when run alone: -k)
        if before.line not in page.done and why_not_run(before) is None:
            run_example(before, page.namespace)
            page.done.add(before.line)
    run_example(example, page.namespace)
    page.done.add(example.line)
