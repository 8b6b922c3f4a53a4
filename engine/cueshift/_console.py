"""The consoles the commands print on, and a rich table that never cuts a number.

:func:`console_for` makes a console as wide as the terminal; ``COLUMNS`` wide where that is set,
in a terminal or piped; :data:`PIPED_WIDTH` wide when piped without it (rich's own default is 80)
(:func:`stream_width`; ``cueshift --help`` takes the same width). In a terminal or Jupyter its prose
wraps at that width; piped, each printed line of prose stays one line (a pager or log viewer
wraps it, ``grep`` finds it whole), and only tables keep to the width. Both are decided each time
it prints, from its stream then (:class:`StreamConsole`), so a console made once at import serves
every command a process runs (D94). :func:`indented` indents a note either way.

:func:`progress_shown` says whether the API's progress bars show (a terminal or Jupyter, unless
asked). :class:`FitTable` is a :class:`rich.table.Table` that fits any width without an ellipsis. Its number
columns (right-justified or ``no_wrap``) keep every cell on one line, whole; its label columns wrap
at spaces (a word longer than :data:`LABEL_WORD` folds) and headers wrap at spaces. Where even
that is too wide, the table is printed in parts that repeat its leading label columns (the stub),
and where the stub and one column do not fit, as one ``label: value`` block per row.

Examples
--------
>>> from rich.console import Console
>>> console = Console(width=40, color_system=None)
>>> table = FitTable(title="Cost per model")
>>> for label in ("model", "prompts", "forward passes", "prefill tokens"):
...     table.add_column(label, justify="left" if label == "model" else "right")
>>> table.add_row("sim-judge", "931,500", "3,726,000", "589,257,500")
>>> console.print(table)
             Cost per model
┏━━━━━━━━━━━┳━━━━━━━━━┳━━━━━━━━━━━━━━━━┓
┃ model     ┃ prompts ┃ forward passes ┃
┡━━━━━━━━━━━╇━━━━━━━━━╇━━━━━━━━━━━━━━━━┩
│ sim-judge │ 931,500 │      3,726,000 │
└───────────┴─────────┴────────────────┘
<BLANKLINE>
  Cost per model (continued)
┏━━━━━━━━━━━┳━━━━━━━━━━━━━━━━┓
┃ model     ┃ prefill tokens ┃
┡━━━━━━━━━━━╇━━━━━━━━━━━━━━━━┩
│ sim-judge │    589,257,500 │
└───────────┴────────────────┘
"""

from __future__ import annotations

import os

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from cueshift import _table_layout as layout

#: Width of a console whose stream is not a terminal and ``COLUMNS`` is not set.
PIPED_WIDTH = 120
_UNBOUNDED = 10_000


def stream_width(stream: object) -> int | None:
    """The width to print at on ``stream``: ``COLUMNS`` when set, else None (the terminal's own) in
    a terminal, else :data:`PIPED_WIDTH`.

    Examples
    --------
    >>> import io, sys
    >>> from unittest import mock
    >>> with mock.patch.dict("os.environ", {"COLUMNS": ""}):  # unset
    ...     stream_width(io.StringIO()), stream_width(sys.stdout)  # the doctest's stdout: not a terminal
    (120, 120)
    """
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return None if _is_tty(stream) else PIPED_WIDTH


class StreamConsole(Console):
    """A :class:`rich.console.Console` whose width and prose wrapping follow its stream each time it
    prints: :func:`stream_width` of the stream it writes to then (``sys.stdout`` or ``sys.stderr``
    as they are at that moment, ``COLUMNS`` as set then), and prose wrapped only in a terminal or
    Jupyter. A width or ``soft_wrap`` given later (``console.width = 60``) holds instead.

    Examples
    --------
    >>> import os
    >>> console = StreamConsole()
    >>> os.environ["COLUMNS"] = "80"
    >>> console.width, console.soft_wrap  # the doctest's stdout is not a terminal
    (80, True)
    >>> del os.environ["COLUMNS"]
    >>> console.width
    120
    """

    _given_width: int | None = None  # a width set on the console, which holds
    _given_soft_wrap: bool | None = None
    _jupyter_width: int | None = None  # rich's, for a notebook whose stream says it is a terminal

    def __init__(self, *, stderr: bool = False, quiet: bool = False) -> None:
        super().__init__(stderr=stderr, quiet=quiet)  # sets rich's width (COLUMNS, Jupyter's) ...
        self._jupyter_width = self._given_width if self.is_jupyter else None
        self._given_width = self._given_soft_wrap = None  # ... which the stream's, at each print, replaces

    @property  # rich's plain attribute, read wherever rich sizes its output
    def _width(self) -> int | None:
        if self._given_width is not None:
            return self._given_width
        width = stream_width(self.file)
        return self._jupyter_width if width is None else width

    @_width.setter
    def _width(self, width: int | None) -> None:
        self._given_width = width

    @property
    def soft_wrap(self) -> bool:
        if self._given_soft_wrap is not None:
            return self._given_soft_wrap
        # Piped (not Jupyter, which wraps nothing itself): print() wraps no prose line; tables still fit.
        return not (_is_tty(self.file) or self.is_jupyter)

    @soft_wrap.setter
    def soft_wrap(self, soft_wrap: bool) -> None:
        self._given_soft_wrap = soft_wrap


def console_for(*, stderr: bool = False, quiet: bool = False) -> Console:
    """A :class:`StreamConsole` on stdout (or stderr): as wide as :func:`stream_width`; piped, its
    prose lines are not wrapped.

    Examples
    --------
    >>> import os
    >>> os.environ["COLUMNS"] = "80"
    >>> piped = console_for()  # the doctest's stdout is not a terminal
    >>> piped.width, piped.soft_wrap
    (80, True)
    >>> del os.environ["COLUMNS"]
    """
    return StreamConsole(stderr=stderr, quiet=quiet)


def indented(text: str, console: Console, indent: int = 2) -> RenderableType:
    """``text`` (no markup) ``indent`` spaces in: wrapped under itself at the console's width, or
    one line where the console does not wrap prose (piped).

    Examples
    --------
    >>> note = "no pilot: variance components and effects are the simulated judge's"
    >>> Console(width=40, color_system=None).print(indented(note, Console(width=40)))
      no pilot: variance components and
      effects are the simulated judge's
    >>> Console(width=40, soft_wrap=True).print(indented(note, Console(soft_wrap=True)))
      no pilot: variance components and effects are the simulated judge's
    """
    if console.soft_wrap:
        return Text(" " * indent + text)
    return Padding(Text(text), (0, 0, 0, indent), expand=False)


def progress_shown(progress: bool | None = None) -> bool:
    """Whether progress bars show: ``progress`` where given, else when stderr is a terminal or Jupyter.

    The API's default (``None``) follows the CLI's rule: no bars in a pipe or a log file, where
    they would come out cut short; ``True`` shows them anyway.

    Examples
    --------
    >>> progress_shown(True), progress_shown(False)
    (True, False)
    """
    if progress is not None:
        return progress
    console = Console(stderr=True)
    return console.is_terminal or console.is_jupyter


def _is_tty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty()) if callable(isatty) else False


class FitTable(Table):
    """A :class:`rich.table.Table` that never cuts a number: labels wrap, then the table splits."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.columns:
            yield from super().__rich_console__(console, options)
            return
        width = options.max_width if self.width is None else min(self.width, options.max_width)
        wide = options.update_width(_UNBOUNDED)
        measured = [layout.widths(console, wide, column) for column in self.columns]
        need, want = [m[0] for m in measured], [m[1] for m in measured]
        full = layout.stub(self)  # the leading labels; where they are too wide, the first column alone
        parts = layout.parts(self, need, width, full) or layout.parts(self, need, width, min(full, 1))
        if parts is None:
            yield from layout.stacked(self, console, min(full, 1))
            return
        for number, part in enumerate(parts):
            if number:
                yield Text()
            widths = layout.spread(
                [need[i] for i in part], [want[i] for i in part], width - layout.overhead(self, len(part))
            )
            yield layout.part_table(self, part, widths, first=number == 0, last=number == len(parts) - 1)


__all__ = [
    "PIPED_WIDTH",
    "FitTable",
    "StreamConsole",
    "console_for",
    "indented",
    "progress_shown",
    "stream_width",
]
