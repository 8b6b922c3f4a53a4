"""The report's table labels in the order a document shows them, and the order they keep: main
tables in number order, each lettered companion (Table 3b, 3c) right after its own table (D65);
supplementary tables numbered in the order they appear (D59)."""

from __future__ import annotations

import html
import re

from cueshift.render import Catalog

#: ``Table 3. …``, ``Table 11b. …``: a main table's number and letter.
MAIN = re.compile(r"Table (\d+)([a-z]?)\. ")
#: ``Table S12b. …``: a supplementary table's number and letter.
SUPPLEMENTARY = re.compile(r"Table S(\d+)([a-z]?)\. ")


def document_titles(catalog: Catalog) -> list[str]:
    """The titles of the tables the catalog's document shows, in its order (a section's tables in
    the section's order)."""
    text = catalog.document_path.read_text(encoding="utf-8")
    sections = dict(catalog.sections)
    titles = {t.key: t.title for t in catalog.tables}
    shown: list[str] = []
    for kind, key in re.findall(r'report\.(table|section)\("([^"]+)"\)', text):
        shown += [key] if kind == "table" else [k for k in sections[key] if k in titles]
    return [titles[key] for key in shown]


def rendered_titles(page: str) -> list[str]:
    """The titles of the great_tables tables of a rendered HTML report, in page order."""
    return [html.unescape(t) for t in re.findall(r'<[^>]+ id="tbl-[^"]+-title"[^>]*>([^<]*)<', page)]


def misplaced(titles: list[str], label: re.Pattern[str] = MAIN) -> list[str]:
    """What breaks the order of the tables ``label`` matches: a number shown after a greater one, or
    a lettered table not right after its own table (``3b`` after ``3``, ``3c`` after ``3b``), each
    as ``'<title> after <previous title>'``; empty when they keep it."""
    found: list[str] = []
    previous: tuple[tuple[int, str], str] | None = None
    for i, title in enumerate(titles):
        if (m := label.match(title)) is None:
            continue
        here = (int(m.group(1)), m.group(2))
        if previous is not None and here <= previous[0]:
            found.append(f"{title!r} after {previous[1]!r}")
        if here[1]:
            before = label.match(titles[i - 1]) if i else None
            own = (here[0], "" if here[1] == "b" else chr(ord(here[1]) - 1))
            if before is None or (int(before.group(1)), before.group(2)) != own:
                found.append(f"{title!r} not right after its table {own[0]}{own[1]}")
        previous = (here, title)
    return found
