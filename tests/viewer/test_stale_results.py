"""A study whose result tables an older cueshift wrote (the p-value column ``p_value``, result
schema 7): the viewer opens it, reads it as if ``analyze`` had not run, and says in one line to
re-run ``cueshift analyze`` (docs/decisions.md D29)."""

from __future__ import annotations

from pathlib import Path

from cueshift.viewer.source import open_source
from tests.render.test_stale_results import make_old
from tests.viewer.conftest import serve_in_thread
from tests.viewer.pages import fetch


def test_old_results_are_left_out_with_a_note(stylisticbias_db: Path, tmp_path: Path) -> None:
    old = make_old(stylisticbias_db, tmp_path / "study.duckdb")
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
