"""The viewer's data access: read-only, no file access from a page, images only under their root."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import duckdb
import pytest
from PIL import Image

from cueshift.errors import CueshiftError
from cueshift.viewer.roots import candidate_roots, choose_root, clean_relative, resolve_image
from cueshift.viewer.source import open_source
from cueshift.viewer.thumbs import placeholder_svg, thumbnail


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_study_file_is_attached_read_only_and_locked(stylisticbias_db: Path) -> None:
    before = _digest(stylisticbias_db)
    source = open_source(stylisticbias_db)
    try:
        con = source.cursor()
        with pytest.raises(duckdb.Error, match="read-only|read only"):
            con.execute("CREATE TABLE study.main.evil (a INTEGER)")
        with pytest.raises(duckdb.Error, match="read-only|read only"):
            con.execute("DELETE FROM study.main.judgment")
        # no other file can be reached, and the lock cannot be lifted
        with pytest.raises(duckdb.Error):
            con.execute("SELECT * FROM read_csv('/etc/passwd')")
        with pytest.raises(duckdb.Error):
            con.execute("ATTACH '/tmp/cueshift-view-other.duckdb' AS other")
        with pytest.raises(duckdb.Error):
            con.execute("SET enable_external_access = true")
        con.close()
    finally:
        source.close()
    assert _digest(stylisticbias_db) == before


def test_aggregates_equal_the_study_views(stylisticbias_db: Path) -> None:
    source = open_source(stylisticbias_db)
    study = duckdb.connect(str(stylisticbias_db), read_only=True)
    try:
        con = source.cursor()
        for table, key in (
            ("phi", "model_id, image_id, scenario_id"),
            ("delta", "model_id, image_id, scenario_id"),
        ):
            ours = con.execute(f"SELECT * FROM {table} ORDER BY {key}").fetchall()
            theirs = study.execute(f"SELECT * FROM {table} ORDER BY {key}").fetchall()
            assert ours == theirs and len(ours) > 100
        assert source.design == "stylisticbias" and source.name == "view-stylisticbias"
        assert source.has("result_sbs") and source.has("judgment")
    finally:
        study.close()
        source.close()


def test_missing_or_foreign_database_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(CueshiftError, match="no such study database"):
        open_source(tmp_path / "nope.duckdb")
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).execute("CREATE TABLE t (a INTEGER)").close()
    with pytest.raises(CueshiftError, match="not a cueshift study database"):
        open_source(other)
    junk = tmp_path / "junk.duckdb"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(CueshiftError, match="cannot open"):
        open_source(junk)


def test_image_paths_never_leave_the_root(tmp_path: Path) -> None:
    root = tmp_path / "bench"
    (root / "face").mkdir(parents=True)
    (root / "face" / "a.png").write_bytes(b"x")
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", root / "face" / "link.png")
    assert resolve_image(root, "face/a.png") == (root / "face" / "a.png").resolve()
    for bad in (
        "../secret.txt",
        "face/../../secret.txt",
        "/etc/passwd",
        "face/link.png",
        "",
        "face/none.png",
    ):
        assert resolve_image(root, bad) is None, bad
    assert resolve_image(None, "face/a.png") is None
    assert clean_relative("C:/x.png") is None and clean_relative("a/b.png") is not None


def test_the_root_is_the_configured_folder_holding_the_registered_files(tmp_path: Path) -> None:
    cache = tmp_path / ".cueshift-cache" / "demo" / "n8"
    (cache / "f1").mkdir(parents=True)
    (cache / "f1" / "base.png").write_bytes(b"x")
    (tmp_path / "synthetic").mkdir()
    config = {"benchmark": {"kind": "demo", "size": 8, "cache_dir": ".cueshift-cache/demo"},
              "pairwise": {"synthetic": {"cache_dir": "synthetic"}}}  # fmt: skip
    candidates = candidate_roots([config], tmp_path / "study.duckdb")
    assert cache.resolve() in candidates and (tmp_path / "synthetic").resolve() in candidates
    assert choose_root(candidates, ["f1/base.png"]) == cache.resolve()
    assert choose_root(candidates, ["elsewhere.png"]) is None


def test_thumbnails_are_cached_and_unreadable_images_give_none(tmp_path: Path) -> None:
    picture = tmp_path / "face.png"
    Image.new("RGB", (400, 600), (200, 30, 30)).save(picture)
    first = thumbnail(picture, "ab" * 32, 160, tmp_path / "thumbs")
    assert first is not None
    with Image.open(first) as small:
        assert max(small.size) <= 320 and small.size[0] == 160
    stamp = first.stat().st_mtime_ns
    assert thumbnail(picture, "ab" * 32, 160, tmp_path / "thumbs") == first
    assert first.stat().st_mtime_ns == stamp
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"not a png")
    assert thumbnail(broken, "cd" * 32, 160, tmp_path / "thumbs") is None
    with pytest.raises(ValueError):
        thumbnail(picture, "ab" * 32, 123, tmp_path / "thumbs")
    assert b"image missing" in placeholder_svg("image missing")
