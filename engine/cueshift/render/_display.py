"""Display objects of a report cell: a table, markdown or a figure, for Quarto and the fallback renderer.

Every output is a Jupyter display object. A table's ``text/markdown`` form carries both an
``{=html}`` and a ``{=typst}`` raw block, so the same executed cell serves the HTML and the
PDF document (with or without Quarto).
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass

from cueshift.render._cells import Styled
from cueshift.render._outputs import raw_markdown, to_html
from cueshift.store.result_version import commands_writing


@dataclass(frozen=True)
class TableOutput:
    """A rendered table as a Jupyter display object (HTML and typst as raw markdown blocks)."""

    styled: Styled

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str]:
        html = to_html(self.styled)
        return {
            "text/markdown": raw_markdown(self.styled, html=html),
            "text/html": html,
            "text/plain": "\n".join("  ".join(r) for r in self.styled.texts()),
        }


@dataclass(frozen=True)
class MarkdownOutput:
    """Markdown text as a display object (rendered as markdown by Quarto and the fallback)."""

    text: str

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str]:
        return {"text/markdown": self.text, "text/plain": self.text}


@dataclass(frozen=True)
class FigureOutput:
    """A PNG figure as a display object."""

    png: bytes

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict[str, str]:
        return {"image/png": base64.b64encode(self.png).decode("ascii"), "text/plain": "<figure>"}


def not_computed(what: str, tables: Sequence[str]) -> MarkdownOutput:
    """The note shown in place of an output whose source tables are missing."""
    run = " and `".join(commands_writing(tables))
    return MarkdownOutput(
        f"> **Not computed:** {what} needs `{'`, `'.join(tables)}`, which this database lacks. "
        f"Run `{run}` to compute it.\n"
    )
