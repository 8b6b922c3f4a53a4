"""``cs.prereg`` and ``cs.analyze(..., prereg=...)`` (issue 33): the Python route of the preregistered
plan, as the command (tests/cli/test_prereg.py): the plan run and recorded, a deviation raised as
the command's one line with the database unchanged, ``exploratory=True`` labelled."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

import cueshift as cs
from tests.api.conftest import Demo


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_plan_runs_from_python_and_a_deviation_raises(demo: Demo, tmp_path: Path) -> None:
    db = tmp_path / "planned.duckdb"
    shutil.copyfile(demo.raw, db)
    plan = tmp_path / "plan.toml"
    digest = cs.prereg(demo.study_file, plan, resamples=100, seed=2)
    assert digest == hashlib.sha256(plan.read_bytes().split(b"\n", 1)[1]).hexdigest()  # recomputed here

    before = _sha256(db)
    with pytest.raises(cs.CueshiftError) as raised:
        cs.analyze(demo.study_file, db=db, prereg=plan, resamples=200)
    assert str(raised.value).startswith(f"{plan}: --resamples 200 departs from the plan's 100")
    assert _sha256(db) == before and sorted(p.name for p in tmp_path.iterdir()) == [
        "plan.toml",
        "planned.duckdb",
    ]

    manifest = cs.analyze(demo.study_file, db=db, prereg=plan).manifest()
    assert set(manifest["prereg_sha256"]) == {digest} and not manifest["exploratory"].any()
    assert set(manifest.filter(name="sbs")["n_resamples"]) == {100}

    manifest = cs.analyze(demo.study_file, db=db, prereg=plan, seed=9, exploratory=True).manifest()
    assert set(manifest["prereg_sha256"]) == {digest} and manifest["exploratory"].all()


def test_without_a_plan_the_manifest_names_none(api_db: Path) -> None:
    manifest = cs.open_study(api_db).manifest()
    assert manifest["prereg_sha256"].is_null().all() and not manifest["exploratory"].any()
