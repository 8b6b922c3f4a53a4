"""``Study.results`` on result tables an older cueshift wrote (an older result schema, e.g. ``p_value``
before ``p``) says so in one line naming ``cueshift analyze``, as ``cueshift report`` does (issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest

import cueshift as cs
from cueshift.schemas.results import RESULT_SCHEMA_VERSION
from tests.api.conftest import SmallDefault
from tests.render.test_stale_results import make_old


@pytest.fixture(scope="module")
def old_db(small_default: SmallDefault, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_old(small_default.database, tmp_path_factory.mktemp("old-results") / "old.duckdb")


def test_results_of_an_older_result_schema_say_to_rerun_analyze(old_db: Path) -> None:
    study = cs.open_study(old_db)
    with pytest.raises(cs.CueshiftError) as raised:
        study.results("sbs")
    line = str(raised.value)
    assert "\n" not in line
    assert line == (
        f"{old_db}: its result tables were written by an older cueshift (result schema 7, this one "
        f"reads {RESULT_SCHEMA_VERSION}); re-run `cueshift analyze` to rebuild them"
    )


def test_the_other_reads_of_an_older_result_schema_still_work(old_db: Path) -> None:
    study = cs.open_study(old_db)
    assert "sbs" in study.result_names()
    assert study.manifest()["schema_version"].to_list() == [7] * study.manifest().height
    assert study.judgments("sim-judge").height > 0


def test_results_of_the_current_schema_read(small_default: SmallDefault) -> None:
    sbs = cs.open_study(small_default.database).results("sbs")
    assert "p" in sbs.columns and "p_value" not in sbs.columns
