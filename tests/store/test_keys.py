"""judgment's key without an index: declared for merge, verified by analyze and merge, checked
against polars on simulated keys with planted duplicates."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.designs import analyze_design, load_study
from cueshift.errors import CueshiftError
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.store import keys as store_keys
from cueshift.store.keys import UNINDEXED_KEYS, duplicated_key
from cueshift.store.merge import merge_databases
from tests.execution.test_runner import study_file

KEY = UNINDEXED_KEYS["judgment"]


def _keys(n: int, seed: int) -> pl.DataFrame:
    """``n`` distinct judgment keys drawn at random from a 4 x 300 x 25 x 4 x 3 grid."""
    rng = np.random.default_rng(seed)
    flat = rng.choice(4 * 300 * 25 * 4 * 3, size=n, replace=False)
    seed_, rest = flat % 3, flat // 3
    ordering, rest = rest % 4, rest // 4
    scenario, rest = rest % 25, rest // 25
    image, model = rest % 300, rest // 300
    return pl.DataFrame(
        {
            "model_id": [f"m{m}" for m in model],
            "image_id": [f"img{i:04d}" for i in image],
            "scenario_id": [f"s{s}" for s in scenario],
            "ordering": pl.Series(ordering + 1, dtype=pl.Int32),
            "seed": pl.Series(seed_, dtype=pl.Int32),
        }
    )


@pytest.mark.parametrize("planted", [0, 1, 5])
def test_duplicated_key_agrees_with_polars(planted: int) -> None:
    keys = _keys(20_000, seed=planted)
    if planted:
        keys = pl.concat([keys, keys.sample(planted, seed=7)])
    con = duckdb.connect()
    con.execute("CREATE TABLE judgment AS SELECT * FROM keys")
    found = duplicated_key(con, "judgment", KEY)
    repeated = set(keys.filter(pl.struct(KEY).is_duplicated()).rows())
    assert (found is None) == (not repeated)
    assert found is None or found in repeated


@pytest.mark.parametrize("planted", [0, 3])
def test_a_hash_collision_is_decided_by_the_exact_key(monkeypatch: pytest.MonkeyPatch, planted: int) -> None:
    """A one-bit hash collides for almost every pair: the exact GROUP BY still finds no duplicate
    among distinct keys, and finds a planted one."""
    monkeypatch.setattr(store_keys, "KEY_HASH", "hash({}) % 2")
    keys_ = _keys(5_000, seed=11)
    if planted:
        keys_ = pl.concat([keys_, keys_.sample(planted, seed=3)])
    con = duckdb.connect()
    con.execute("CREATE TABLE judgment AS SELECT * FROM keys_")
    found = duplicated_key(con, "judgment", KEY)
    repeated = set(keys_.filter(pl.struct(KEY).is_duplicated()).rows())
    assert (found is None) == (planted == 0) and (found is None or found in repeated)


def test_the_schema_keeps_no_index_on_judgment_but_declares_its_key(tmp_path: Path) -> None:
    con = store.open_study(tmp_path / "s.duckdb")
    indexed = con.execute(
        "SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'judgment' "
        "AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')"
    ).fetchone()
    assert indexed == (0,)
    assert {t.name: t.key for t in store.study_tables(con)}["judgment"] == KEY
    con.close()


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small simulated study run once; the tests copy its database."""
    tmp = tmp_path_factory.mktemp("keys")
    return run_study(load_study(study_file(tmp, tmp / "c", faces=2)), RunOptions(progress=False)).database


def _copy(single: Path, path: Path, sql: str | None = None) -> Path:
    shutil.copyfile(single, path)
    if sql:
        con = duckdb.connect(str(path))
        con.execute(sql)
        con.close()
    return path


def _count(path: Path) -> int:
    con = duckdb.connect(str(path), read_only=True)
    try:
        row = con.execute("SELECT count(*) FROM judgment").fetchone()
        assert row is not None
        return int(row[0])
    finally:
        con.close()


FLIP_ONE = (
    "UPDATE judgment SET outcome = 'unfavorable', chosen_letter = CASE chosen_letter WHEN 'a' THEN 'b' "
    "ELSE 'a' END WHERE rowid = (SELECT min(rowid) FROM judgment WHERE outcome = 'favorable')"
)
STORE_ONE_TWICE = "INSERT INTO judgment SELECT * FROM judgment LIMIT 1"


def test_merge_keys_judgments_by_their_declared_key(single: Path, tmp_path: Path) -> None:
    """Two shards with the same judgment and answer are one row; another answer is a conflict."""
    a, b = _copy(single, tmp_path / "a.duckdb"), _copy(single, tmp_path / "b.duckdb")
    c = _copy(single, tmp_path / "c.duckdb", FLIP_ONE)
    n = _count(a)
    merge_databases(tmp_path / "ab.duckdb", [a, b])
    assert _count(tmp_path / "ab.duckdb") == n
    with pytest.raises(CueshiftError, match="judgment has key .*'ordering'.* different content"):
        merge_databases(tmp_path / "ac.duckdb", [a, c])
    assert not (tmp_path / "ac.duckdb").exists()


def test_merge_takes_files_whose_names_are_no_sql_identifiers(single: Path, tmp_path: Path) -> None:
    """A file's catalog is named after it: '-', a space or a quote in the name must not break merge."""
    a = _copy(single, tmp_path / "shard-1.duckdb")
    b = _copy(single, tmp_path / 'shard 2 "b".duckdb')
    merge_databases(tmp_path / "all-shards.duckdb", [a, b])
    assert _count(tmp_path / "all-shards.duckdb") == _count(a)


def test_merge_and_analyze_refuse_a_database_storing_a_judgment_twice(single: Path, tmp_path: Path) -> None:
    a = _copy(single, tmp_path / "a.duckdb")
    out = _copy(single, tmp_path / "out.duckdb", STORE_ONE_TWICE)
    n = _count(out)
    with pytest.raises(CueshiftError, match=r"out\.duckdb: table judgment stores the key .* more than once"):
        merge_databases(out, [a])
    assert _count(out) == n  # nothing merged
    con = store.open_study(out)
    with pytest.raises(CueshiftError, match=r"out\.duckdb: table judgment stores the key"):
        analyze_design(con, load_study(study_file(tmp_path, tmp_path / "c", faces=2)), write=False)
    con.close()


def test_a_checked_table_is_not_checked_again_until_rows_are_appended(
    single: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(single, tmp_path / "memo.duckdb")
    calls: list[str] = []
    real = store_keys.duplicated_key

    def counted(
        con: duckdb.DuckDBPyConnection, table: str, key: tuple[str, ...], schema: str = "main"
    ) -> tuple[object, ...] | None:
        calls.append(table)
        return real(con, table, key, schema)

    monkeypatch.setattr(store_keys, "duplicated_key", counted)
    con = store.open_study(path)
    try:
        store_keys.check_unique_keys(con)
        store_keys.check_unique_keys(con)  # unchanged since the check: recorded, not repeated
        assert calls == ["judgment"]
        con.execute("INSERT INTO judgment SELECT * FROM judgment LIMIT 1")  # an append repeating a key
        with pytest.raises(CueshiftError, match="more than once"):
            store_keys.check_unique_keys(con)
        assert calls == ["judgment", "judgment"]
    finally:
        con.close()


GENERATION_ROW = (
    "INSERT INTO generation VALUES ('base-1', NULL, 'base', 'demo-faces', 'demo', 'a face', 7, 1, "
    "'ok', '', 'ab12', 0.5, 'young / female / white / average', NULL, NULL, 'run-1')"
)


def test_merge_takes_a_database_written_before_the_generation_table(single: Path, tmp_path: Path) -> None:
    """`generation` joined schema 5 without a new version: an input without it merges as if it
    were empty, and the other input's build rows are kept."""
    older = _copy(single, tmp_path / "older.duckdb", "DROP TABLE generation")
    built = _copy(single, tmp_path / "built.duckdb", GENERATION_ROW)
    merge_databases(tmp_path / "all.duckdb", [older, built])
    con = duckdb.connect(str(tmp_path / "all.duckdb"), read_only=True)
    try:
        assert con.execute("SELECT image_id, try FROM generation").fetchall() == [("base-1", 1)]
    finally:
        con.close()
    assert _count(tmp_path / "all.duckdb") == _count(single)
