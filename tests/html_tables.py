"""Body cells of the great_tables tables of a rendered HTML report, for tests that check shown numbers."""

from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    """Body cells of every great_tables table (``<div id="tbl-KEY">``): text and inline style."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[tuple[str, str]]]] = {}
        self._key: str | None = None
        self._depth = 0
        self._in_body = False
        self._cell: list[str] | None = None
        self._style = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "div" and (a.get("id") or "").startswith("tbl-") and self._key is None:
            self._key, self._depth = (a["id"] or "")[4:], 0
            self.tables[self._key] = []
        if self._key is None:
            return
        if tag == "div":
            self._depth += 1
        elif tag == "tbody":
            self._in_body = True
        elif tag == "tr" and self._in_body:
            self.tables[self._key].append([])
        elif tag == "td" and self._in_body:
            self._cell, self._style = [], a.get("style") or ""

    def handle_endtag(self, tag: str) -> None:
        if self._key is None:
            return
        if tag == "td" and self._cell is not None:
            self.tables[self._key][-1].append(("".join(self._cell).strip(), self._style))
            self._cell = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "div":
            self._depth -= 1
            if self._depth == 0:
                self.tables[self._key] = [r for r in self.tables[self._key] if r]
                self._key = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_tables(html: str) -> dict[str, list[list[tuple[str, str]]]]:
    parser = _Tables()
    parser.feed(html)
    return parser.tables


def texts(rows: list[list[tuple[str, str]]]) -> list[list[str]]:
    return [[text for text, _ in row] for row in rows]
