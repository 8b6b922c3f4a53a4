"""Every block of a study database checked against its stored checksum, read from the file (D79).

DuckDB verifies a block's checksum only when it reads the block. :func:`~cueshift.store.damage.verify_blocks`
makes it read every table's rows, but the blocks of a primary key's index are read only by the key
look-ups DuckDB chooses to make (a rolled-back ``INSERT … ON CONFLICT`` of every key reads some of
them, a point look-up others), so a damaged index block could pass. Here every block of the file is
read and its checksum recomputed, as DuckDB computes it (``src/common/checksum.cpp``): a block of
``block_size`` bytes after the file's three 4 KiB headers holds the checksum of the rest in its first
8 bytes,

    checksum = 5381 XOR (w_1 * M) XOR ... XOR (w_n * M)  (mod 2^64),  M = 0xbf58476d1ce4e5b9,

over the rest's 8-byte little-endian words ``w_i``. Every block the header counts is checked, free
blocks too (a freed block keeps the bytes it was written with): a flipped bit anywhere says the copy
on disk is not to be trusted. The computation checks itself: the blocks of the tables' rows, which
DuckDB has just read whole, must pass; if one does not, this file's block layout is not the one
described here and the check stands aside (DuckDB's own checks remain).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import duckdb
import numpy as np

from cueshift.errors import CueshiftError
from cueshift.store.damage import RESTORE

#: DuckDB's file layout: three 4 KiB headers, then the blocks; each block's first 8 bytes its checksum.
_HEADER_BYTES: Final[int] = 3 * 4096
_SEED: Final[np.uint64] = np.uint64(5381)
_MULTIPLIER: Final[np.uint64] = np.uint64(0xBF58476D1CE4E5B9)
#: Blocks read at a time (64 MiB of 256 KiB blocks).
_BATCH: Final[int] = 256


def failing_blocks(path: Path, block_size: int, count: int) -> list[int]:
    """The ids among the first ``count`` blocks of ``path`` whose stored checksum is not their bytes'."""
    words = block_size // 8
    buffer = np.empty(_BATCH * words, dtype="<u8")
    failing: list[int] = []
    with path.open("rb") as handle:
        handle.seek(_HEADER_BYTES)
        for first in range(0, count, _BATCH):
            n = min(_BATCH, count - first)
            blocks = buffer[: n * words].reshape(n, words)
            handle.readinto(blocks.data.cast("B"))
            stored = blocks[:, 0].copy()
            with np.errstate(over="ignore"):
                np.multiply(blocks, _MULTIPLIER, out=blocks)  # the stored word's product is taken out below
                computed = _SEED ^ np.bitwise_xor.reduce(blocks, axis=1) ^ (stored * _MULTIPLIER)
            failing += [first + int(i) for i in np.flatnonzero(computed != stored)]
    return failing


def verify_checksums(con: duckdb.DuckDBPyConnection, path: Path) -> None:
    """Check every block of ``path`` (open read-only on ``con``, its rows read by ``verify_blocks``).

    Raises
    ------
    CueshiftError
        A block fails its checksum: the line names ``path`` and the block; nothing was written.
    """
    size = con.execute(
        "SELECT block_size, total_blocks FROM pragma_database_size() WHERE database_name = current_database()"
    ).fetchall()
    block_size, total = int(size[0][0]), int(size[0][1])
    on_disk = (path.stat().st_size - _HEADER_BYTES) // block_size
    failing = failing_blocks(path, block_size, min(total, on_disk))
    if not failing:
        return
    tables = con.execute(
        "SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database()"
    ).fetchall()
    rows: set[int] = set()
    for schema, table in tables:
        query = "SELECT DISTINCT block_id FROM pragma_storage_info(?) WHERE block_id >= 0"
        name = ".".join('"' + str(part).replace('"', '""') + '"' for part in (schema, table))
        rows |= {int(r[0]) for r in con.execute(query, [name]).fetchall()}
    if rows & set(failing):  # DuckDB read these whole: the layout is not the one computed here
        return
    raise CueshiftError(
        f"{path}: damaged database (block {failing[0]} fails its checksum"
        + (f", {len(failing) - 1} more" if len(failing) > 1 else "")
        + f"); nothing was written; {RESTORE}"
    )
