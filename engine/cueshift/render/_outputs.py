"""Outputs of a :class:`~cueshift.render._spec.Styled` table: great_tables HTML, typst, markdown, rich.

All four read the same cells; they differ only in markup. Bold, underline and star codes are
the significance marks of :mod:`cueshift.render.marks`; fills are a declaration's colour rule.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

import polars as pl
from rich.table import Table
from rich.text import Text

from cueshift._console import FitTable
from cueshift.extras import importing
from cueshift.render._cells import Cell, Styled

if TYPE_CHECKING:  # great_tables is the 'report' extra, imported when a table is rendered
    from great_tables import GT


def _internal(j: int) -> str:
    return f"c{j}"


def to_gt(table: Styled) -> GT:
    """A great_tables ``GT`` of the styled table (title, spanners, groups, notes, cell marks)."""
    with importing("report", "a great_tables table"):
        from great_tables import GT, loc, style

    data: dict[str, list[str]] = {
        _internal(j): [row[j].text for row in table.rows] for j in range(len(table.labels))
    }
    group_col = "__group"
    if table.groups:
        data[group_col] = [g or "" for g in table.groups]
    frame = pl.DataFrame(data, schema={k: pl.String for k in data})
    gt = GT(frame, id=f"tbl-{table.key}", groupname_col=group_col if table.groups else None)
    gt = gt.tab_header(title=table.title)
    gt = gt.cols_label(cases={_internal(j): label for j, label in enumerate(table.labels)})
    for j, align in enumerate(table.align):
        gt = gt.cols_align(align=align, columns=_internal(j))
    for label, first, last in table.spanners:
        gt = gt.tab_spanner(
            label=label, columns=[_internal(j) for j in range(first, last + 1)], id=f"span-{first}-{last}"
        )
    # one tab_style call per (column, style) rather than per cell
    by_style: dict[tuple[int, bool, bool, str | None], list[int]] = defaultdict(list)
    for i, row in enumerate(table.rows):
        for j, cell in enumerate(row):
            if cell.bold or cell.underline or cell.fill:
                by_style[(j, cell.bold, cell.underline, cell.fill)].append(i)
    for (j, bold, underline, fill), rows in by_style.items():
        styles: list[object] = []
        if bold or underline:
            styles.append(
                style.text(weight="bold" if bold else None, decorate="underline" if underline else None)
            )
        if fill:
            styles.append(style.fill(color=fill))
        gt = gt.tab_style(style=styles, locations=loc.body(columns=_internal(j), rows=rows))  # type: ignore[arg-type]
    for note in table.notes:
        gt = gt.tab_source_note(note)
    return gt.tab_options(table_font_size="90%", data_row_padding="2px")


def to_html(table: Styled) -> str:
    """The great_tables HTML fragment (scoped ``<style>`` plus ``<table>``)."""
    return to_gt(table).as_raw_html()


def typst_string(text: str) -> str:
    """A typst string literal (``"..."``) holding ``text`` verbatim."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _breakable(text: str) -> str:
    r"""``text`` as a typst string with a break opportunity (zero-width space) after each underscore,
    so a stored identifier (``result_demographic_tests_crossed``) wraps inside its column.

    Examples
    --------
    >>> _breakable("result_table11")
    '"result_\\u{200b}table11"'
    """
    return typst_string(text).replace("_", "_\\u{200b}")


def _typst_cell(cell: Cell, align: str) -> str:
    body = _breakable(cell.text)
    if cell.bold:
        body = f"strong({body})"
    if cell.underline:
        body = f"underline({body})"
    args = []
    if cell.fill:
        args.append(f'fill: rgb("{cell.fill}")')
    if align != "right":
        args.append(f"align: {align}")
    if args:
        return f"table.cell({', '.join(args)}, {body})"
    return body if body.startswith('"') else f"[#{body}]"


def to_typst(table: Styled, font_size: str | None = None) -> str:
    """Typst markup of the table as a captioned figure (for the PDF path).

    Parameters
    ----------
    table : Styled
        The formatted table.
    font_size : str, optional
        Text size inside the table (default: 8pt, 6.5pt for more than 9 columns).
    """
    n = len(table.labels)
    size = font_size or ("6.5pt" if n > 9 else "8pt")
    lines = [
        "#[",
        "#show figure: set block(breakable: true)",
        "#figure(",
        "  kind: table,",
        f"  caption: figure.caption(position: top, [#{typst_string(table.title)}]),",
        "  {",
        # no hyphenation in tables: a narrow header or cell wraps whole words ("second", not "sec-ond"),
        # ragged, not justified (the document's paragraphs are)
        f"    set text(size: {size}, hyphenate: false)",
        "    set par(justify: false)",
        "    table(",
        f"      columns: {n},",
        "      align: ("
        + ", ".join(a if a != "center" else "center" for a in table.align)
        + ("," if n == 1 else "")
        + "),",
        "      stroke: none,",
        "      inset: (x: 3pt, y: 2pt),",
        "      table.hline(stroke: 0.8pt),",
    ]
    header = []
    if table.spanners:
        cursor = 0
        for label, first, last in table.spanners:
            if first > cursor:
                header.append(f"table.cell(colspan: {first - cursor}, [])")
            header.append(
                f"table.cell(colspan: {last - first + 1}, align: center, strong({typst_string(label)}))"
            )
            cursor = last + 1
        if cursor < n:
            header.append(f"table.cell(colspan: {n - cursor}, [])")
    header_cells = [f"strong({typst_string(label)})" for label in table.labels]
    lines.append("      table.header(")
    if header:
        lines.append("        " + ", ".join(header) + ",")
    lines.append("        " + ", ".join(f"[#{c}]" for c in header_cells) + ",")
    lines.append("      ),")
    lines.append("      table.hline(stroke: 0.5pt),")
    current: str | None = None
    for i, row in enumerate(table.rows):
        if table.groups and table.groups[i] != current:
            current = table.groups[i]
            lines.append(f"      table.cell(colspan: {n}, align: left, emph({typst_string(current or '')})),")
        lines.append("      " + ", ".join(_typst_cell(c, table.align[j]) for j, c in enumerate(row)) + ",")
    lines.append("      table.hline(stroke: 0.8pt),")
    lines.append("    )")
    for note in table.notes:
        lines.append(
            f"    block(width: 100%, above: 4pt, align(left, text(size: 7pt, {typst_string(note)})))"
        )
    lines.append("  }")
    lines.append(")")
    lines.append("]")
    return "\n".join(lines)


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def to_markdown(table: Styled) -> str:
    """A pandoc pipe table (bold and ``[...]{.underline}`` marks; fills are dropped)."""
    labels = list(table.labels)
    if table.groups:
        labels = ["", *labels]
    lines = [f"Table: {_md_escape(table.title)}", "", "| " + " | ".join(_md_escape(x) for x in labels) + " |"]
    aligns = (["left"] if table.groups else []) + list(table.align)
    lines.append("|" + "|".join({"left": ":--", "right": "--:", "center": ":-:"}[a] for a in aligns) + "|")
    for i, row in enumerate(table.rows):
        cells = []
        for cell in row:
            text = _md_escape(cell.text)
            if cell.bold:
                text = f"**{text}**"
            if cell.underline:
                text = f"[{text}]{{.underline}}"
            cells.append(text)
        if table.groups:
            cells = [_md_escape(table.groups[i] or ""), *cells]
        lines.append("| " + " | ".join(cells) + " |")
    for note in table.notes:
        lines += ["", _md_escape(note)]
    return "\n".join(lines)


def to_rich(table: Styled) -> Table:
    """A rich console table (bold, underline and fill as console styles) that never cuts a number."""
    out = FitTable(title=table.title, title_justify="left", show_lines=False)
    for label, align in zip(table.labels, table.align, strict=True):
        out.add_column(label, justify=align)
    current: str | None = None
    for i, row in enumerate(table.rows):
        if table.groups and table.groups[i] != current:
            current = table.groups[i]
            out.add_section()
            out.add_row(Text(current or "", style="italic"), *[""] * (len(table.labels) - 1))
        cells = []
        for cell in row:
            parts = [p for p, on in (("bold", cell.bold), ("underline", cell.underline)) if on]
            if cell.fill:
                parts.append(f"on {cell.fill}")
            cells.append(Text(cell.text, style=" ".join(parts)))
        out.add_row(*cells)
    if table.notes:
        out.caption = " ".join(table.notes)
        out.caption_justify = "left"
    return out


def raw_markdown(table: Styled, html: str | None = None) -> str:
    """Markdown holding the HTML and typst forms as raw blocks: each output keeps its own.

    Pandoc (and Quarto) pass ``{=html}`` blocks to HTML only and ``{=typst}`` blocks to typst
    only, so one cell output serves both formats.
    """
    html = to_html(table) if html is None else html
    return f"```{{=html}}\n{html}\n```\n\n```{{=typst}}\n{to_typst(table)}\n```\n"
