"""The consoles the commands print on, and a rich table that never cuts a number.

:func:`console_for` makes a console as wide as the terminal; ``COLUMNS`` wide where that is set,
in a terminal or piped; :data:`PIPED_WIDTH` wide when piped without it (rich's own default is 80).

:class:`FitTable` is a :class:`rich.table.Table` that fits any width without an ellipsis. Its number
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

import functools
import os
import sys
from collections.abc import Iterable
from dataclasses import replace

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

#: Width of a console whose stream is not a terminal and ``COLUMNS`` is not set.
PIPED_WIDTH = 120
#: A label word longer than this folds rather than widening its column.
LABEL_WORD = 32
_UNBOUNDED = 10_000


def console_for(*, stderr: bool = False, quiet: bool = False) -> Console:
    """A console on stdout (or stderr): the terminal's width, ``COLUMNS`` when set, else 120 when piped.

    Examples
    --------
    >>> import os
    >>> os.environ["COLUMNS"] = "80"
    >>> console_for().width
    80
    >>> del os.environ["COLUMNS"]
    """
    stream = sys.stderr if stderr else sys.stdout
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        width: int | None = int(columns)
    else:
        width = None if _is_tty(stream) else PIPED_WIDTH
    return Console(stderr=stderr, quiet=quiet, width=width)


def _is_tty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty()) if callable(isatty) else False


def is_number(column: Column) -> bool:
    """Whether ``column`` holds numbers (right-justified or ``no_wrap``): its cells are never broken."""
    return column.no_wrap or column.justify == "right"


class FitTable(Table):
    """A :class:`rich.table.Table` that never cuts a number: labels wrap, then the table splits."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if not self.columns:
            yield from super().__rich_console__(console, options)
            return
        width = options.max_width if self.width is None else min(self.width, options.max_width)
        wide = options.update_width(_UNBOUNDED)
        measured = [_widths(console, wide, column) for column in self.columns]
        need, want = [m[0] for m in measured], [m[1] for m in measured]
        full = _stub(self)  # the leading labels; where they are too wide, the first column alone
        parts = _parts(self, need, width, full) or _parts(self, need, width, min(full, 1))
        if parts is None:
            yield from _stacked(self, console, min(full, 1))
            return
        for number, part in enumerate(parts):
            if number:
                yield Text()
            widths = _spread(
                [need[i] for i in part], [want[i] for i in part], width - _overhead(self, len(part))
            )
            yield _part_table(self, part, widths, first=number == 0, last=number == len(parts) - 1)


def _widths(console: Console, options: ConsoleOptions, column: Column) -> tuple[int, int]:
    """(the narrowest width that cuts nothing, the natural width) of ``column``'s content."""
    header = Measurement.get(console, options, column.header)
    cells = [Measurement.get(console, options, cell) for cell in column.cells]
    widest = max((m.maximum for m in cells), default=0)
    if is_number(column):
        need = max(widest, header.minimum)
    else:
        need = min(max([header.minimum, *(m.minimum for m in cells)]), LABEL_WORD)
    need = max(need, column.min_width or 0, 1)
    return need, max(need, widest, header.maximum)


def _overhead(table: Table, n: int) -> int:
    """Borders and padding of ``table`` with ``n`` of its columns (as rich lays them out)."""
    _, right, _, left = table.padding
    padding = n * (left + right) - (0 if table.pad_edge else left + right)
    edges = ((2 if table.show_edge else 0) + n - 1) if table.box else 0
    return padding + edges


def _stub(table: Table) -> int:
    """How many leading columns are labels (the stub repeated in every part); one column stays."""
    stub = 0
    while stub < len(table.columns) - 1 and not is_number(table.columns[stub]):
        stub += 1
    return stub


def _parts(table: Table, need: list[int], width: int, stub: int) -> list[list[int]] | None:
    """Column groups that each fit ``width``, the first ``stub`` columns in each, or None where none can."""
    n = len(need)
    if sum(need) + _overhead(table, n) <= width:
        return [list(range(n))]
    parts: list[list[int]] = []
    current: list[int] = list(range(stub))
    for index in range(stub, n):
        trial = [*current, index]
        if sum(need[i] for i in trial) + _overhead(table, len(trial)) <= width:
            current = trial
        elif len(current) > stub:
            parts.append(current)
            current = [*range(stub), index]
            if sum(need[i] for i in current) + _overhead(table, len(current)) > width:
                return None
        else:
            return None
    return [*parts, current]


def _spread(need: list[int], want: list[int], room: int) -> list[int]:
    """Widths from ``need`` towards ``want``: the room left shared evenly, the least lacking served first
    (short headers stay whole; the longest labels wrap).

    >>> _spread([5, 5, 5], [6, 20, 30], 25)
    [6, 9, 10]
    """
    widths, spare = list(need), room - sum(need)
    by_lack = sorted(range(len(need)), key=lambda i: want[i] - need[i])
    for served, i in enumerate(by_lack):
        given = min(want[i] - need[i], spare // (len(need) - served))
        widths[i] += given
        spare -= given
    return widths


def _part_table(table: Table, part: Iterable[int], widths: list[int], *, first: bool, last: bool) -> Table:
    """A plain table of ``part``'s columns at fixed ``widths`` (title on the first, caption on the last)."""
    title = table.title
    if not first and title is not None:
        title = f"{title} (continued)" if isinstance(title, str) else Text.assemble(title, " (continued)")
    out = Table(
        title=title,
        caption=table.caption if last else None,
        box=table.box,
        safe_box=table.safe_box,
        padding=table.padding,
        pad_edge=table.pad_edge,
        show_header=table.show_header,
        show_edge=table.show_edge,
        show_lines=table.show_lines,
        leading=table.leading,
        style=table.style,
        row_styles=table.row_styles,
        header_style=table.header_style,
        border_style=table.border_style,
        title_style=table.title_style,
        caption_style=table.caption_style,
        title_justify=table.title_justify,
        caption_justify=table.caption_justify,
        highlight=table.highlight,
    )
    for index, column_width in zip(part, widths, strict=True):
        column = table.columns[index]
        number = is_number(column)
        header = column.header
        if number:  # the header of a number column still wraps at its spaces
            header = Text.from_markup(header) if isinstance(header, str) else header
            if isinstance(header, Text):
                header = header.copy()
                header.no_wrap, header.overflow = False, "fold"
        out.columns.append(
            replace(
                column,
                header=header,
                width=column_width,
                min_width=None,
                max_width=None,
                ratio=None,
                no_wrap=number,
                overflow=column.overflow if number else "fold",
                _index=len(out.columns),
                _cells=list(column.cells),
            )
        )
    out.rows = list(table.rows)
    return out


def _as_text(console: Console, cell: RenderableType) -> Text:
    if isinstance(cell, str):
        return console.render_str(cell)
    return cell if isinstance(cell, Text) else Text(str(cell))


def _stacked(table: Table, console: Console, stub: int) -> Iterable[RenderableType]:
    """One ``label: value`` block per row, the first ``stub`` columns' values as its heading."""
    if table.title is not None:
        yield Text.assemble(table.title, style=table.title_style or "italic")
    text = functools.partial(_as_text, console)
    cells = [list(column.cells) for column in table.columns]
    for row in range(table.row_count):
        heading = Text(" · ").join(text(cells[c][row]) for c in range(stub))
        heading.stylize("bold")
        lines = [heading] if heading.plain else []
        for c in range(stub, len(table.columns)):
            lines.append(Text.assemble("  ", text(table.columns[c].header), ": ", text(cells[c][row])))
        for line in lines:
            line.overflow = "fold"
            yield line
    if table.caption is not None:
        yield Text.assemble(table.caption, style=table.caption_style or "dim")


__all__ = ["LABEL_WORD", "PIPED_WIDTH", "FitTable", "console_for", "is_number"]
