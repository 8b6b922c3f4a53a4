"""A study whose result tables an older cueshift wrote (the p-value column ``p_value``, result
schema 7): the viewer opens it, reads it as if ``analyze`` had not run, and says in one line to
re-run ``cueshift analyze`` (docs/decisions.md D29)."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb

from cueshift.viewer.source import open_source
from tests.viewer.conftest import serve_in_thread
from tests.viewer.pages import fetch


def _old_copy(db: Path, target: Path) -> Path:
    shutil.copy(db, target)
    con = duckdb.connect(str(target))
    try:
        con.execute('ALTER TABLE result_sbs RENAME COLUMN "p" TO p_value')
        con.execute("UPDATE result_manifest SET schema_version = 7")
    finally:
        con.close()
    return target


def test_old_results_are_left_out_with_a_note(stylisticbias_db: Path, tmp_path: Path) -> None:
    old = _old_copy(stylisticbias_db, tmp_path / "study.duckdb")
    source = open_source(old)
    try:
        assert source.stale_results is not None
        assert "re-run `cueshift analyze`" in source.stale_results
        assert not source.has("result_sbs") and source.has("judgment")
    finally:
        source.close()
    for served in serve_in_thread(old, tmp_path / "thumbs"):
        status, _, body = fetch(served.url + "/")
        page = body.decode()
        assert status == 200
        assert 'id="stale-results"' in page and "result schema 7" in page


def test_current_results_have_no_note(stylisticbias_db: Path) -> None:
    source = open_source(stylisticbias_db)
    try:
        assert source.stale_results is None and source.has("result_sbs")
    finally:
        source.close()
