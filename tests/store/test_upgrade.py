"""`cueshift upgrade`: a version-2, -3 or -4 study database becomes version 5 with every row kept
(the person table ``identity`` under its new name ``face``)."""

from __future__ import annotations

import duckdb
import pytest

from cueshift import store
from cueshift.errors import CueshiftError
from cueshift.store.upgrade import upgrade_database
from tests.hardening.failing import one_line, run
from tests.store.old_study import ANSWERS, STALE, build_old_study, judgment_rows


def _reasons(path) -> dict[tuple[str, int], str | None]:
    con = duckdb.connect(str(path), read_only=True)
    try:
        rows = con.execute("SELECT response_text, seed, invalid_reason FROM judgment").fetchall()
    finally:
        con.close()
    return {(text, seed): reason for text, seed, reason in rows}


@pytest.mark.parametrize("version", [2, 3, 4])
def test_upgrade_keeps_every_judgment_and_fills_the_reasons(tmp_path, version) -> None:
    path = tmp_path / "study.duckdb"
    build_old_study(path, version)
    before = judgment_rows(path)
    assert len(before) == 8 * 8
    with pytest.raises(CueshiftError, match=f"schema version {version}.*cueshift upgrade --db"):
        store.open_study(path)

    result = run("upgrade", "--db", str(path))

    assert result.exit_code == 0, result.output
    assert f"schema version {version} -> {store.SCHEMA_VERSION}" in result.stdout
    renamed = "renamed: identity -> face, face.identity_id -> face_id, image.identity_id -> face_id"
    assert renamed in result.stdout
    assert judgment_rows(path) == before
    reasons = _reasons(path)
    for (text, _seed), reason in reasons.items():
        if text == STALE:
            assert reason is None
        elif text == "Yes" and version >= 3:
            assert reason == "conflict"  # recorded by the old runner: kept
        else:
            assert reason == ANSWERS[text][1], text
    con = store.open_study(path)  # the current cueshift opens it read-write now
    try:
        tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        assert "result_manifest" not in tables and "identity" not in tables
        assert con.execute("SELECT face_id, source, age, gender FROM face").fetchall() == [
            ("f1", "demo", "elderly", "female")
        ]
        assert con.execute("SELECT image_id, face_id FROM image ORDER BY 1").fetchall() == [
            ("f1_base", "f1"),
            ("f1_v", "f1"),
        ]
        quality = con.execute("SELECT image_id, cosine FROM image_identity").fetchall()
        assert quality == ([("f1_v", 0.9)] if version >= 4 else [])
        assert {"image_identity", "release_judgment", "request_failure"} <= tables
        keys = con.execute(
            "SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'judgment' "
            "AND constraint_type = 'PRIMARY KEY'"
        ).fetchall()
        assert keys == [(0,)]
        assert con.execute("SELECT value FROM cueshift_meta").fetchall() == [("5",)]
        assert con.execute("SELECT backend_report FROM run").fetchall() == [(None,)]
    finally:
        con.close()
    backup = tmp_path / f"study.schema-v{version}.duckdb"
    assert judgment_rows(backup) == before
    old = duckdb.connect(str(backup), read_only=True)
    assert old.execute("SELECT value FROM cueshift_meta").fetchall() == [(str(version),)]
    old.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["study.duckdb", backup.name])
    again = run("upgrade", "--db", str(path))
    assert again.exit_code == 0 and "nothing to upgrade" in again.stdout


@pytest.mark.parametrize("stamp", ["1", "6", None])
def test_unknown_or_newer_versions_are_refused_in_one_line(tmp_path, stamp) -> None:
    path = tmp_path / "study.duckdb"
    build_old_study(path, 4)
    con = duckdb.connect(str(path))
    if stamp is None:
        con.execute("DROP TABLE cueshift_meta")
    else:
        con.execute("UPDATE cueshift_meta SET value = ? WHERE key = 'schema_version'", [stamp])
    con.close()
    data = path.read_bytes()

    line = one_line(run("upgrade", "--db", str(path)))

    assert (f"schema version {stamp}" if stamp else "no cueshift schema version") in line
    assert "upgrades versions 2, 3, 4 to 5 only" in line
    assert path.read_bytes() == data
    assert [p.name for p in tmp_path.iterdir()] == ["study.duckdb"]


def test_a_failure_while_copying_leaves_the_old_database(tmp_path, monkeypatch) -> None:
    path = tmp_path / "study.duckdb"
    build_old_study(path, 2)
    data = path.read_bytes()

    def fail(*args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("cueshift.store.upgrade.derive_invalid_reasons", fail)
    with pytest.raises(KeyboardInterrupt):
        upgrade_database(path)
    assert path.read_bytes() == data
    assert [p.name for p in tmp_path.iterdir()] == ["study.duckdb"]


def test_a_symlinked_database_is_upgraded_where_the_link_points(tmp_path) -> None:
    target = tmp_path / "data" / "study.duckdb"
    target.parent.mkdir()
    build_old_study(target, 3)
    before = judgment_rows(target)
    link = tmp_path / "study.duckdb"
    link.symlink_to(target)

    assert run("upgrade", "--db", str(link)).exit_code == 0

    assert link.is_symlink() and link.resolve() == target
    assert judgment_rows(link) == before
    assert (tmp_path / "data" / "study.schema-v3.duckdb").exists()
    store.open_study(link).close()
