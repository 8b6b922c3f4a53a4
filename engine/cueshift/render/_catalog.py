"""What a report document shows, declared by its design: tables, figures, prose, notation.

The report machinery knows no design. Each design (``cueshift.designs.<name>``) declares a
:class:`Catalog` — the ``.qmd`` document it renders, its :class:`~cueshift.render.TableSpec`
tables, its :class:`FigureSpec` figures and :class:`TextSpec` prose — and passes it to
:meth:`cueshift.render.Report.open`. Figures and texts read the database through the
:class:`Source` protocol (the open report), so they never depend on the report class itself.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from cueshift.errors import CueshiftError
from cueshift.render._paths import REPORTS_DIR
from cueshift.render._source import Source
from cueshift.render._spec import TableSpec

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Resolution of the PNG figures (dots per inch).
DPI = 150


def to_png(fig: Figure) -> bytes:
    """PNG bytes of a matplotlib figure (no pyplot state involved)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI, bbox_inches="tight")
    return buffer.getvalue()


@dataclass(frozen=True)
class FigureSpec:
    """A declared figure: ``draw(source)`` returns a matplotlib figure, or ``None`` if there is no data."""

    key: str
    title: str
    draw: Callable[[Source], Figure | None]
    requires: tuple[str, ...] = ()
    empty: str = "nothing to plot for the models of this report."

    def render(self, source: Source) -> bytes | None:
        """PNG bytes of the figure (``None``: nothing to plot)."""
        fig = self.draw(source)
        return None if fig is None else to_png(fig)


@dataclass(frozen=True)
class TextSpec:
    """Declared prose quoting stored numbers: ``write(source)`` returns markdown ("" when nothing to say).

    A text whose ``requires`` are missing is left out (its table or figure already says why).
    """

    key: str
    write: Callable[[Source], str]
    requires: tuple[str, ...] = ()


@dataclass(frozen=True)
class Catalog:
    """A design's report: its document and what the document's cells may show.

    Parameters
    ----------
    document : str
        File name of the ``.qmd`` document in the shipped ``reports/`` folder (:data:`REPORTS_DIR`).
    tables : tuple of TableSpec
        Declared tables (``report.table(key)``), in the order ``cueshift report --tables`` prints them.
    figures : tuple of FigureSpec
        Declared figures (``report.figure(key)``).
    texts : tuple of TextSpec
        Declared prose (``report.text(key)``).
    notation : str
        Markdown sentence of the preamble saying how significance is marked
        (see :mod:`cueshift.render.marks`).
    sections : tuple of (str, tuple of str)
        Named groups of table, figure and text keys that one ``report.section(name)`` cell shows
        in order (so a document section can grow without editing the document).
    """

    document: str
    tables: tuple[TableSpec, ...]
    figures: tuple[FigureSpec, ...] = ()
    texts: tuple[TextSpec, ...] = ()
    notation: str = ""
    sections: tuple[tuple[str, tuple[str, ...]], ...] = ()

    def __post_init__(self) -> None:
        keys = [t.key for t in self.tables] + [f.key for f in self.figures] + [t.key for t in self.texts]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ValueError(f"report catalog {self.document}: repeated key(s) {', '.join(repeated)}")
        unknown = sorted({k for _, members in self.sections for k in members} - set(keys))
        if unknown:
            missing = ", ".join(unknown)
            raise ValueError(f"report catalog {self.document}: section key(s) {missing} not declared")

    def section(self, name: str) -> tuple[str, ...]:
        """The keys of section ``name`` (empty when the catalog declares no such section)."""
        return dict(self.sections).get(name, ())

    def kind(self, key: str) -> str:
        """``'table'``, ``'figure'`` or ``'text'``: what ``key`` declares."""
        if any(t.key == key for t in self.tables):
            return "table"
        return "figure" if any(f.key == key for f in self.figures) else "text"

    @property
    def document_path(self) -> Path:
        """The document as shipped with the package."""
        return REPORTS_DIR / self.document

    def table(self, key: str) -> TableSpec:
        """The declared table ``key``."""
        return _find(self.tables, key, "table", self.document)

    def figure(self, key: str) -> FigureSpec:
        """The declared figure ``key``."""
        return _find(self.figures, key, "figure", self.document)

    def text(self, key: str) -> TextSpec:
        """The declared text ``key``."""
        return _find(self.texts, key, "text", self.document)


_Spec = TypeVar("_Spec", TableSpec, FigureSpec, TextSpec)


def _find(items: tuple[_Spec, ...], key: str, kind: str, document: str) -> _Spec:
    for item in items:
        if item.key == key:
            return item
    known = ", ".join(item.key for item in items) or "none"
    raise CueshiftError(f"{document}: no {kind} {key!r} declared (known: {known})")
