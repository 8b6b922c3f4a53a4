"""``--help`` at the width of cueshift's other console output, its prose paragraphs reflowed.

typer draws help (and usage errors) with rich at ``TERMINAL_WIDTH`` where that is set, else at
rich's width: the terminal's, ``COLUMNS``, or 80 when piped, where option help came out in narrow
fragments. :class:`HelpGroup`, the app's click group, prints it at
:func:`cueshift._console.stream_width` instead (120 piped, as the tables), ``TERMINAL_WIDTH`` still
first. typer also keeps the single line breaks of a docstring's paragraphs in rich mode (the
commands list and every paragraph after the first), so a help line ended where the source line
did; the group joins each paragraph into one line before typer wraps it. This typer's rich help
also shows a type for every flag (``--help  <bool>``); the group gives flags no metavar.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from typer import rich_utils
from typer.core import TyperGroup

from cueshift._console import stream_width


def reflowed(text: str) -> str:
    """``text`` with each paragraph's lines joined by one space (a ``\\b`` paragraph kept as written).

    Examples
    --------
    >>> reflowed("Run every analysis\\n    of the design.\\n\\nAn option is refused,\\nnever ignored.")
    'Run every analysis of the design.\\n\\nAn option is refused, never ignored.'
    """
    paragraphs = text.strip().split("\n\n")
    return "\n\n".join(p if p.lstrip().startswith("\b") else " ".join(p.split()) for p in paragraphs)


def _tidy(command: Any) -> None:
    """Reflow the help of ``command`` (a click command of typer's own click) and of every command
    under it, and show its flags (``--help`` too) without a type."""
    if command.help:
        command.help = reflowed(command.help)
    for param in command.params:
        _plain_flag(param)
    help_option = command.get_help_option
    command.get_help_option = lambda ctx: _plain_flag(help_option(ctx))
    for sub in getattr(command, "commands", {}).values():
        _tidy(sub)


def _plain_flag(param: Any) -> Any:
    """``param`` shown without a metavar when it is a flag (typer would print ``<bool>``)."""
    if getattr(param, "is_flag", False) and not getattr(param, "metavar", None):
        param.metavar = ""
    return param


@contextmanager
def help_width() -> Iterator[None]:
    """While it lasts, typer's help and errors are as wide as :func:`stream_width` of stdout
    (``TERMINAL_WIDTH``, typer's own setting, first)."""
    before = rich_utils.MAX_WIDTH
    if before is None:
        rich_utils.MAX_WIDTH = stream_width(sys.stdout)
    try:
        yield
    finally:
        rich_utils.MAX_WIDTH = before


class HelpGroup(TyperGroup):
    """The app's click group: help reflowed (:func:`reflowed`), as wide as the tables (:func:`help_width`),
    flags without a type."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _tidy(self)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        with help_width():
            return super().main(*args, **kwargs)


__all__ = ["HelpGroup", "help_width", "reflowed"]
