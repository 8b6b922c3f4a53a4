"""Helpers of the viewer's tests: fetch a page, read a table the way a reader sees it, compute Δ again.

The expected numbers are computed here independently of the viewer: straight from the study
file's own ``delta`` view with polars, face-level, as seed 000 §4.4 defines them.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import duckdb
import polars as pl


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    """GET ``url``: status, headers (lower-case names) and body, for error statuses too."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def page_html(base_url: str, path: str, **params: str) -> str:
    """The page at ``base_url + path`` (query ``params``) as text; the test fails unless it is 200."""
    status, _, body = fetch(base_url + path + ("?" + urllib.parse.urlencode(params) if params else ""))
    assert status == 200, body[:500]
    return body.decode()


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self._stack: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            named = dict(attrs)
            label = named.get("aria-labelledby") or ""
            key = named.get("id") or label.removesuffix("-title") or f"table-{len(self.tables)}"
            self._stack.append(key)
            self.tables[key] = []
        elif tag == "tr" and self._stack:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table" and self._stack:
            self._stack.pop()
        elif tag == "tr" and self._row is not None and self._stack:
            self.tables[self._stack[-1]].append(self._row)
            self._row = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables(html: str) -> dict[str, list[list[str]]]:
    """Every table of a page by id (a great_tables table: ``tbl-<key>``), rows of cell texts."""
    parser = _Tables()
    parser.feed(html)
    return parser.tables


def signed(value: float) -> str:
    """The report's signed format: ``+0.012``, ``−0.170`` (U+2212)."""
    return f"{value:+.3f}".replace("-", "−")


def delta_frame(db: Path) -> pl.DataFrame:
    """The study file's own ``delta`` view, valid rows only."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        frame: pl.DataFrame = con.sql("SELECT * FROM delta WHERE delta IS NOT NULL").pl()
        return frame
    finally:
        con.close()


def face_means(delta: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """Mean over faces of each face's mean Δ within ``by`` (the viewer's SBS), with the face count."""
    per_face = delta.group_by([*by, "face_id"]).agg(pl.col("delta").mean())
    return per_face.group_by(by).agg(estimate=pl.col("delta").mean(), n=pl.len())


def scalar(db: Path, sql: str, params: list[object] | None = None) -> object:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute(sql, params or []).fetchall()
    finally:
        con.close()
    assert len(rows) == 1
    return rows[0][0]


def frame(db: Path, sql: str, params: list[object] | None = None) -> pl.DataFrame:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows: pl.DataFrame = con.sql(sql, params=params).pl()
        return rows
    finally:
        con.close()


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self._hidden += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


#: A number printed with more decimals than any formatter of the pages uses.
RAW_FLOAT = re.compile(r"\d\.\d{5,}")
#: Python's reprs of a boolean or a missing value (not the prose "true Δ = 0").
RAW_BOOLEAN = re.compile(r"\b(True|False|None|nan|NaN)\b")


def visible_text(html: str) -> str:
    """The text a reader sees on a page (and an SVG's hover titles): no markup, styles or scripts."""
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())
