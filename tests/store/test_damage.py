"""``store.damage`` and ``store.damage_checksums``: a damaged block found before a write, named after the
file, and the file unchanged."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest

from cueshift.errors import CueshiftError
from cueshift.store import damage
from cueshift.store.damage_checksums import failing_blocks, verify_checksums
from tests.hardening.blocks import BLOCK, block_count, damaged_copy


def _database(tmp_path: Path) -> Path:
    """A file with a small keyed table (its index in a block of its own) and a large table."""
    path = tmp_path / "d.duckdb"
    with duckdb.connect(str(path)) as con:
        con.execute("CREATE TABLE keyed (k VARCHAR PRIMARY KEY, v DOUBLE)")
        con.execute("INSERT INTO keyed SELECT 'k' || i, i / 7 FROM range(500) AS t(i)")
        con.execute("CREATE TABLE plain AS SELECT i, 'text ' || i AS s FROM range(300000) AS t(i)")
    return path


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _found(damaged: Path) -> str:
    """Which check refused ``damaged``: ``blocks``, ``checksums``, ``indexes``, ``open`` (a metadata
    block) or ``none``."""
    try:
        with duckdb.connect(str(damaged), read_only=True) as con:
            damage.verify_blocks(con, damaged)
    except CueshiftError as exc:
        assert str(damaged) in str(exc) and "nothing was written" in str(exc)
        return "blocks"
    except duckdb.Error:
        return "open"
    try:
        with duckdb.connect(str(damaged), read_only=True) as con:
            verify_checksums(con, damaged)
    except CueshiftError as exc:
        assert str(damaged) in str(exc) and "damaged database (block" in str(exc)
        return "checksums"
    try:
        with duckdb.connect(str(damaged)) as con:
            damage.verify_indexes(con, damaged)
    except CueshiftError as exc:
        assert str(damaged) in str(exc) and "nothing was written" in str(exc)
        return "indexes"
    return "none"


def _outcomes(path: Path) -> tuple[dict[int, str], set[int], set[int]]:
    """Each block damaged in turn: which check refused it; the blocks of rows; the metadata blocks."""
    with duckdb.connect(str(path), read_only=True) as con:
        query = "SELECT block_id FROM pragma_storage_info(?) WHERE block_id >= 0"
        rows = {int(r[0]) for t in ("keyed", "plain") for r in con.execute(query, [t]).fetchall()}
        meta = {int(r[0]) for r in con.execute("SELECT block_id FROM pragma_metadata_info()").fetchall()}
    found = {}
    for block in range(block_count(path)):
        damaged = damaged_copy(path, path.parent, block, name=f"b{block}.duckdb")
        before = _sha(damaged)
        found[block] = _found(damaged)
        assert _sha(damaged) == before, block  # neither check writes a byte
    return found, rows, meta


def test_every_block_of_rows_is_refused_by_the_scan(tmp_path: Path) -> None:
    found, rows, _ = _outcomes(_database(tmp_path))
    assert rows and all(found[b] == "blocks" for b in rows), found


def test_every_other_block_is_refused_by_its_checksum(tmp_path: Path) -> None:
    """The index block and the free ones, which no scan reads (D79; before, the key look-ups of
    ``verify_indexes`` missed the index block: DuckDB found the keys without reading it)."""
    found, rows, meta = _outcomes(_database(tmp_path))
    others = [found[b] for b in found if b not in rows | meta]
    assert others and set(others) == {"checksums"}, found


def test_the_checksums_are_duckdbs(tmp_path: Path) -> None:
    """Every block of a whole file passes; a flipped bit anywhere in a block, not only in its stored
    checksum, fails it."""
    path = _database(tmp_path)
    count = block_count(path)
    assert failing_blocks(path, BLOCK, count) == []
    data = bytearray(path.read_bytes())
    data[3 * 4096 + 2 * BLOCK + 12345] ^= 0x10
    path.write_bytes(bytes(data))
    assert failing_blocks(path, BLOCK, count) == [2]


def test_a_good_file_passes_unchanged(tmp_path: Path) -> None:
    path = _database(tmp_path)
    before = _sha(path)
    with duckdb.connect(str(path)) as con:
        damage.verify_blocks(con, path)
        verify_checksums(con, path)
        damage.verify_indexes(con, path)
        assert con.execute("SELECT count(*) FROM keyed").fetchall() == [(500,)]  # the rollback kept none
    assert _sha(path) == before


def test_an_error_elsewhere_is_named_by_the_database_opened_last() -> None:
    damage.remember(Path("runs/a.duckdb"))
    damage.remember(Path("runs/b.duckdb"))
    corrupt = duckdb.Error("Corrupt database file: computed checksum 1 does not match stored checksum 2")
    assert damage.database_error_line(corrupt).startswith("runs/b.duckdb: damaged database (Corrupt")
    assert damage.database_error_line(duckdb.Error("Binder Error: x\nLINE 1")) == "database: Binder Error: x"


def test_a_failed_rollback_names_the_error_it_hides() -> None:
    """DuckDB aborts a transaction on a disk error; the ROLLBACK that follows fails in turn."""
    try:
        try:
            raise duckdb.IOException("IO Error: could not write file: No space left on device")
        except duckdb.Error:
            raise duckdb.TransactionException("cannot rollback - no transaction is active")  # noqa: B904
    except duckdb.Error as failed_rollback:
        line = damage.database_error_line(failed_rollback)
    assert line == "database: IO Error: could not write file: No space left on device"


def test_reading_passes_other_errors() -> None:
    with pytest.raises(duckdb.Error, match="Binder"), damage.reading(Path("x.duckdb")):
        raise duckdb.Error("Binder Error: x")
    with pytest.raises(CueshiftError, match=r"^x\.duckdb: damaged"), damage.reading(Path("x.duckdb")):
        raise duckdb.Error("Corrupt database file: checksum")
