"""The CSV reading under the human-rating files (:mod:`cueshift.images.human_ratings`,
:mod:`cueshift.images.reliability_files`): UTF-8 records, the header checked against the
required and optional columns, and numbers and texts of a row, each problem one line naming the
file, the data row (counted from 1) and the field.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Collection, Iterator
from pathlib import Path

from cueshift.errors import CueshiftError


def csv_reader(path: Path) -> Iterator[list[str]]:
    """The CSV records of a UTF-8 file (a BOM allowed); a missing or undecodable file is one line."""
    if not path.is_file():
        raise CueshiftError(f"{path}: no such file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CueshiftError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return csv.reader(io.StringIO(text, newline=""), strict=True)


def csv_rows(path: Path, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> list[dict[str, str]]:
    """The non-blank data rows as ``column -> stripped cell`` (``__row``: the row's number from 1),
    after the header is checked against ``required`` and ``optional``; each problem one line."""
    path = Path(path)
    reader = csv_reader(path)
    try:
        header = [h.strip() for h in next(reader, [])]
        if not header:
            raise CueshiftError(f"{path}: no header row")
        for name in required:
            if name not in header:
                raise CueshiftError(
                    f"{path}: field '{name}': required column is missing (have {', '.join(header)})"
                )
        for name in header:
            if name not in required + optional:
                raise CueshiftError(
                    f"{path}: field '{name}': unknown column; allowed: {', '.join(required + optional)}"
                )
        out = []
        for number, record in enumerate(reader, start=1):
            if not record or all(not cell.strip() for cell in record):
                continue
            if len(record) != len(header):
                raise CueshiftError(
                    f"{path}: row {number}: {len(record)} fields, the header has {len(header)}"
                )
            row = {name: cell.strip() for name, cell in zip(header, record, strict=True)}
            row["__row"] = str(number)
            out.append(row)
    except csv.Error as exc:
        raise CueshiftError(f"{path}: unparseable CSV: {exc}") from None
    return out


def _number(path: Path, row: dict[str, str], field: str) -> float:
    raw = row[field]
    try:
        value = float(raw)
    except ValueError:
        raise CueshiftError(f"{path}: row {row['__row']}: field '{field}': {raw!r} is not a number") from None
    if not math.isfinite(value):
        raise CueshiftError(f"{path}: row {row['__row']}: field '{field}': {raw!r} is not a finite number")
    return value


def _text(
    path: Path, row: dict[str, str], field: str, known: Collection[str] | None = None, what: str = ""
) -> str:
    value = row[field]
    if not value:
        raise CueshiftError(f"{path}: row {row['__row']}: field '{field}': empty")
    if known is not None and value not in known:
        raise CueshiftError(f"{path}: row {row['__row']}: field '{field}': unknown {what or field} {value!r}")
    return value
