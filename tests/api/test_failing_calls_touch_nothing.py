"""``cs.analyze`` and ``Study.judgments`` take ``models=`` as the commands take ``--models``; a
failing ``cs.analyze`` raises the command's one line and leaves the database byte for byte as it
was (issue 30)."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

import cueshift as cs
from tests.api.conftest import Demo, copy_of


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize(
    ("options", "line"),
    [
        ({"models": "nope"}, "unknown model 'nope' in {db}; models: sim"),
        ({"models": ["sim", "nope", "zz"]}, "unknown models 'nope', 'zz' in {db}; models: sim"),
        ({"models": "sim,nope"}, "unknown model 'nope' in {db}; models: sim"),
        ({"seed": -1}, "--seed -1: use 0 or more"),
        ({"resamples": 10}, "--resamples 10: use at least 100"),
        ({"phi": "T=0.2"}, "--phi T=0.2: model(s) sim stored no score for some judgments"),
    ],
)
def test_a_failing_analyze_raises_the_line_and_writes_nothing(
    demo: Demo, tmp_path: Path, options: dict[str, object], line: str
) -> None:
    db = tmp_path / "fail.duckdb"
    shutil.copyfile(demo.raw, db)
    before = _sha256(db)
    with pytest.raises(cs.CueshiftError) as raised:
        cs.analyze(demo.study_file, db=db, **options)  # type: ignore[arg-type]  # bad input on purpose
    assert str(raised.value).startswith(line.format(db=db))
    assert _sha256(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fail.duckdb"]  # no WAL, no partial copy


def test_models_as_a_string_is_a_list_of_ids(demo: Demo) -> None:
    db = copy_of(demo.raw, "one-model")
    study = cs.analyze(demo.study_file, db=db, models="sim", resamples=100, seed=1)
    assert "sim" in study.results("sbs")["model_id"].to_list()  # "sim", not 's', 'i', 'm'


def test_judgments_take_models_and_the_old_model(api_db: Path) -> None:
    study = cs.open_study(api_db)
    every = study.judgments()
    assert study.judgments("sim").height == study.judgments(["sim"]).height == every.height > 0
    with pytest.warns(DeprecationWarning, match="use models="):
        old = study.judgments(model="sim")
    assert old.height == every.height
    with pytest.raises(cs.CueshiftError, match=r"unknown model 'gpt' in .*; models: sim$"):
        study.judgments("sim,gpt")
