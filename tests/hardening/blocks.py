"""Damaged blocks of a DuckDB file for the hardening tests (docs/decisions.md#d70, #d79): which table
holds which block, and a copy of a file with one bit of a block flipped (its checksum fails)."""

from __future__ import annotations

from pathlib import Path

import duckdb

#: DuckDB's file layout: three 4 KiB headers, then 256 KiB blocks, each starting with its checksum.
HEADERS, BLOCK = 3 * 4096, 256 * 1024


def block_count(path: Path) -> int:
    """How many blocks the file ``path`` holds."""
    return (path.stat().st_size - HEADERS) // BLOCK


def table_blocks(path: Path) -> dict[str, list[int]]:
    """Block ids by what holds them: a table's name, or ``"other"`` (metadata, indexes, free)."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()]
        query = "SELECT DISTINCT block_id FROM pragma_storage_info(?) WHERE block_id >= 0 ORDER BY 1"
        owned = {table: [int(r[0]) for r in con.execute(query, [table]).fetchall()] for table in tables}
    finally:
        con.close()
    held = {block for blocks in owned.values() for block in blocks}
    return {**owned, "other": [b for b in range(block_count(path)) if b not in held]}


def damaged_copy(source: Path, folder: Path, block: int, name: str = "damaged.duckdb") -> Path:
    """A copy of ``source`` as ``folder/name`` with a bit of ``block``'s stored checksum flipped."""
    folder.mkdir(parents=True, exist_ok=True)
    data = bytearray(source.read_bytes())
    data[HEADERS + block * BLOCK] ^= 1
    path = folder / name
    path.write_bytes(bytes(data))
    return path
