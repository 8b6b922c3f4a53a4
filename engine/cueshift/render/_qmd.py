"""Reading a Quarto ``.qmd`` document without Quarto: YAML header, markdown, ```{python} chunks.

Only what the report documents use is supported: a YAML header, markdown text, and Python
chunks with ``#| key: value`` options (``label``, ``fig-cap``, ``tags``, ``output``). Inline
``{python}`` expressions are not evaluated by the fallback renderer and are rejected with a
clear error; cells display markdown instead (``report.md(...)``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from cueshift.errors import CueshiftError
from cueshift.extras import importing

if TYPE_CHECKING:  # nbformat and yaml: the 'report' extra, imported when a document is read
    import nbformat

_CHUNK_START = re.compile(r"^```+\s*\{python([^}]*)\}\s*$")
_CHUNK_END = re.compile(r"^```+\s*$")
_OPTION = re.compile(r"^#\|\s?(.*)$")
_INLINE = re.compile(r"`\{python\}[^`]*`")


@dataclass(frozen=True)
class Chunk:
    """A markdown block or a Python chunk (``source`` without its ``#|`` option lines)."""

    kind: Literal["markdown", "code"]
    source: str
    options: Mapping[str, Any] = field(default_factory=dict)
    line: int = 1

    @property
    def label(self) -> str | None:
        label = self.options.get("label")
        return str(label) if label is not None else None

    @property
    def tags(self) -> list[str]:
        tags = self.options.get("tags") or []
        return [str(t) for t in (tags if isinstance(tags, list) else [tags])]


@dataclass(frozen=True)
class QmdDocument:
    path: Path
    header: Mapping[str, Any]
    chunks: tuple[Chunk, ...]


def parse_qmd(path: str | Path) -> QmdDocument:
    """Split a ``.qmd`` file into its YAML header, markdown blocks and Python chunks.

    Raises
    ------
    CueshiftError
        Missing file, bad YAML, an unclosed chunk or an inline ``{python}`` expression.
    """
    path = Path(path)
    if not path.is_file():
        raise CueshiftError(f"{path}: no such report document")
    with importing("report", "cueshift report"):
        import yaml

    lines = path.read_text(encoding="utf-8").splitlines()
    header: dict[str, Any] = {}
    start = 0
    if lines and lines[0].strip() == "---":
        try:
            end = next(i for i in range(1, len(lines)) if lines[i].strip() in ("---", "..."))
        except StopIteration:
            raise CueshiftError(f"{path}: YAML header not closed with ---") from None
        try:
            loaded = yaml.safe_load("\n".join(lines[1:end])) or {}
        except yaml.YAMLError as exc:
            raise CueshiftError(f"{path}: YAML header: {str(exc).splitlines()[0]}") from None
        if not isinstance(loaded, dict):
            raise CueshiftError(f"{path}: YAML header must be a mapping")
        header = loaded
        start = end + 1
    chunks: list[Chunk] = []
    text: list[str] = []
    text_line = start + 1
    i = start
    while i < len(lines):
        match = _CHUNK_START.match(lines[i])
        if not match:
            if _INLINE.search(lines[i]):
                raise CueshiftError(
                    f"{path}:{i + 1}: inline `{{python}}` expressions are not supported; "
                    "display markdown from a cell (report.md) instead"
                )
            text.append(lines[i])
            i += 1
            continue
        if "".join(text).strip():
            chunks.append(Chunk("markdown", "\n".join(text).strip("\n"), line=text_line))
        text = []
        chunk_line = i + 1
        i += 1
        options_text: list[str] = []
        body: list[str] = []
        while i < len(lines) and not _CHUNK_END.match(lines[i]):
            option = _OPTION.match(lines[i])
            if option and not body:
                options_text.append(option.group(1))
            else:
                body.append(lines[i])
            i += 1
        if i >= len(lines):
            raise CueshiftError(f"{path}:{chunk_line}: python chunk not closed with ```")
        try:
            options = yaml.safe_load("\n".join(options_text)) or {} if options_text else {}
        except yaml.YAMLError as exc:
            raise CueshiftError(f"{path}:{chunk_line}: chunk options: {str(exc).splitlines()[0]}") from None
        chunks.append(Chunk("code", "\n".join(body).strip("\n"), dict(options), line=chunk_line))
        i += 1
        text_line = i + 1
    if "".join(text).strip():
        chunks.append(Chunk("markdown", "\n".join(text).strip("\n"), line=text_line))
    return QmdDocument(path, header, tuple(chunks))


def _new_cell(kind: Literal["markdown", "code"], source: str) -> Any:
    """A notebook cell (nbformat's constructors are untyped)."""
    with importing("report", "cueshift report"):
        import nbformat

    make = nbformat.v4.new_markdown_cell if kind == "markdown" else nbformat.v4.new_code_cell
    return make(source)  # type: ignore[no-untyped-call]


def parameter_source(params: Mapping[str, object]) -> str:
    """Python assignments of the injected parameters (as Quarto/papermill inject them)."""
    return "# injected parameters\n" + "\n".join(f"{name} = {value!r}" for name, value in params.items())


def to_notebook(doc: QmdDocument, params: Mapping[str, object]) -> nbformat.NotebookNode:
    """A notebook of the document's chunks with ``params`` injected after the ``parameters`` cell.

    Markdown blocks become markdown cells; chunk options go to ``metadata.quarto`` (tags to
    ``metadata.tags``). Without a ``parameters`` cell the parameters open the notebook.
    """
    cells = []
    injected = False
    for chunk in doc.chunks:
        if chunk.kind == "markdown":
            cells.append(_new_cell("markdown", chunk.source))
            continue
        cell = _new_cell("code", chunk.source)
        cell.metadata["quarto"] = dict(chunk.options)
        cell.metadata["tags"] = chunk.tags
        cell.metadata["qmd_line"] = chunk.line
        cells.append(cell)
        if "parameters" in chunk.tags and params and not injected:
            extra = _new_cell("code", parameter_source(params))
            extra.metadata["tags"] = ["injected-parameters"]
            extra.metadata["quarto"] = {}
            cells.append(extra)
            injected = True
    if params and not injected:
        first = _new_cell("code", parameter_source(params))
        first.metadata["tags"] = ["injected-parameters"]
        first.metadata["quarto"] = {}
        cells.insert(0, first)
    with importing("report", "cueshift report"):
        import nbformat

    nb: nbformat.NotebookNode = nbformat.v4.new_notebook(cells=cells)  # type: ignore[no-untyped-call]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb
