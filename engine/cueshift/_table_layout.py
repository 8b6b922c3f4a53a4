"""How a :class:`~cueshift._console.FitTable` lays itself out: what each column needs and wants, the
parts a table too wide splits into, the widths shared out, and the ``label: value`` blocks."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import replace

from rich.console import Console, ConsoleOptions, RenderableType
from rich.measure import Measurement
from rich.table import Column, Table
from rich.text import Text

#: A label word longer than this folds rather than widening its column.
LABEL_WORD = 32


def is_number(column: Column) -> bool:
    """Whether ``column`` holds numbers (right-justified or ``no_wrap``): its cells are never broken."""
    return column.no_wrap or column.justify == "right"


def widths(console: Console, options: ConsoleOptions, column: Column) -> tuple[int, int]:
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


def overhead(table: Table, n: int) -> int:
    """Borders and padding of ``table`` with ``n`` of its columns (as rich lays them out)."""
    _, right, _, left = table.padding
    padding = n * (left + right) - (0 if table.pad_edge else left + right)
    edges = ((2 if table.show_edge else 0) + n - 1) if table.box else 0
    return padding + edges


def stub(table: Table) -> int:
    """How many leading columns are labels (the stub repeated in every part); one column stays."""
    stub = 0
    while stub < len(table.columns) - 1 and not is_number(table.columns[stub]):
        stub += 1
    return stub


def parts(table: Table, need: list[int], width: int, stub: int) -> list[list[int]] | None:
    """Column groups that each fit ``width``, the first ``stub`` columns in each, or None where none can."""
    n = len(need)
    if sum(need) + overhead(table, n) <= width:
        return [list(range(n))]
    parts: list[list[int]] = []
    current: list[int] = list(range(stub))
    for index in range(stub, n):
        trial = [*current, index]
        if sum(need[i] for i in trial) + overhead(table, len(trial)) <= width:
            current = trial
        elif len(current) > stub:
            parts.append(current)
            current = [*range(stub), index]
            if sum(need[i] for i in current) + overhead(table, len(current)) > width:
                return None
        else:
            return None
    return [*parts, current]


def spread(need: list[int], want: list[int], room: int) -> list[int]:
    """Widths from ``need`` towards ``want``: the room left shared evenly, the least lacking served first
    (short headers stay whole; the longest labels wrap).

    >>> spread([5, 5, 5], [6, 20, 30], 25)
    [6, 9, 10]
    """
    widths, spare = list(need), room - sum(need)
    by_lack = sorted(range(len(need)), key=lambda i: want[i] - need[i])
    for served, i in enumerate(by_lack):
        given = min(want[i] - need[i], spare // (len(need) - served))
        widths[i] += given
        spare -= given
    return widths


def part_table(table: Table, part: Iterable[int], widths: list[int], *, first: bool, last: bool) -> Table:
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


def stacked(table: Table, console: Console, stub: int) -> Iterable[RenderableType]:
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


__all__ = [
    "LABEL_WORD",
    "is_number",
    "overhead",
    "part_table",
    "parts",
    "spread",
    "stacked",
    "stub",
    "widths",
]
