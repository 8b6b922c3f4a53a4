"""Opening a current study database read-write and closing it keeps its bytes (issue 30): the views
are recreated only where they differ from ``sql/views/``; a changed or missing view is restored."""

from __future__ import annotations

import hashlib
from pathlib import Path

import duckdb
import pytest

from cueshift import store
from cueshift.errors import CueshiftError
from cueshift.store.model_subset import answered_models, check_models


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "s.duckdb"
    store.open_study(path).close()  # schema and views, as a first infer leaves them
    con = duckdb.connect(str(path))
    con.execute("INSERT INTO model VALUES ('a', 'simulated', 'x', NULL, '{}')")
    con.close()
    return path


def test_an_open_and_close_changes_no_byte(database: Path) -> None:
    before = _sha256(database)
    for _ in range(2):
        store.open_study(database).close()
    assert _sha256(database) == before
    assert sorted(p.name for p in database.parent.iterdir()) == ["s.duckdb"]  # no WAL left


@pytest.mark.parametrize("how", ["changed", "dropped"])
def test_a_stale_view_is_recreated(database: Path, how: str) -> None:
    con = duckdb.connect(str(database))
    con.execute(
        "CREATE OR REPLACE VIEW phi AS SELECT 1 AS x" if how == "changed" else "DROP VIEW edit_verdict"
    )
    con.close()
    con = store.open_study(database)
    try:
        columns = {row[0] for row in con.execute("DESCRIBE phi").fetchall()}
        views = {
            row[0]
            for row in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal").fetchall()
        }
    finally:
        con.close()
    assert {"model_id", "image_id", "phi"} <= columns
    assert set(store.VIEWS) <= views


def test_the_model_subset_is_checked_against_the_answers(database: Path) -> None:
    con = duckdb.connect(str(database))
    try:
        assert answered_models(con) == []  # models without answers are not offered
        with pytest.raises(CueshiftError, match=r"^unknown model 'a' in x.duckdb; models: none yet$"):
            check_models(con, "x.duckdb", "a")
        assert check_models(con, "x.duckdb", None) == []
    finally:
        con.close()
