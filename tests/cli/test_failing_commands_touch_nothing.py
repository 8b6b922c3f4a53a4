"""A failing ``infer``, ``analyze`` or ``audit`` leaves the study database byte for byte as it was
(issue 30): exit code 2, one line naming the bad thing, no traceback, nothing on stdout.

Before the fix ``analyze --model nope`` printed the whole overview of both models, then "no
judgments with a valid answer: nothing to analyse", and the database's bytes had changed: opening
it read-write recreated its views (``CREATE OR REPLACE VIEW``), which the close checkpointed,
before the options had been checked against it. ``infer --limit -1`` failed on a pandera check
of the run record after the database was opened; ``analyze --seed -1`` ended in a traceback.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli.untouched import MODELS, error_line, fingerprint, run, two_model_study


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two-model study, judged in full (no result tables yet)."""
    folder = tmp_path_factory.mktemp("judged")
    study = two_model_study(folder)
    done = run("infer", "--study", study, "--no-progress")
    assert done.exit_code == 0, done.stderr
    return folder


@pytest.fixture
def study(judged: Path, tmp_path: Path) -> Path:
    """A copy of the judged study (file, database, image cache) in this test's own folder."""
    for item in judged.iterdir():
        copy = shutil.copytree if item.is_dir() else shutil.copyfile
        copy(item, tmp_path / item.name)
    return two_model_study(tmp_path)  # its database path names the copy


def _fails_untouched(folder: Path, *args: str | Path) -> str:
    before = fingerprint(folder)
    line = error_line(run(*args))
    assert fingerprint(folder) == before  # the database, no WAL, no partial copy, no new file
    return line


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--models", "nope"], f"unknown model 'nope' in {{db}}; models: {', '.join(MODELS)}"),
        (["--model", "nope"], "unknown model 'nope' in"),  # the old spelling, still accepted
        (["--models", f"{MODELS[0]},nope,zz"], "unknown models 'nope', 'zz' in"),
        (["-m", MODELS[0], "-m", "nope"], "unknown model 'nope' in"),
        (["--resamples", "10"], "--resamples 10: use at least 100"),
        (["--seed", "-1"], "--seed -1: use 0 or more"),
        (["--top", "-1"], "--top -1: use 0 or more"),
        (["--test", "nope"], "--test 'nope'"),
        (["--ci", "nope"], "--ci 'nope'"),
        (["--phi", "bogus"], "--phi 'bogus'"),
        (["--phi", "T=0.2"], "--phi T=0.2: model(s) sim-judge, sim-judge-b stored no score"),
        (["--phi", "T=0.2", "--models", MODELS[1]], "--phi T=0.2: model(s) sim-judge-b stored no score"),
        (["--min-identity", "2"], "--min-identity 2"),
        (["--compat", "nope"], "--compat 'nope'"),
        (["--generalise", "nope"], "--generalise 'nope'"),
        (["--audit", "nope"], "--audit 'nope'"),
    ],
)
def test_analyze_refuses_before_printing_or_writing(study: Path, options: list[str], named: str) -> None:
    db = study.with_suffix(".duckdb")
    line = _fails_untouched(study.parent, "analyze", "--study", study, "--no-progress", *options)
    assert named.format(db=db) in line


def test_analyze_of_a_missing_database_creates_none(study: Path) -> None:
    missing = study.parent / "missing.duckdb"
    line = _fails_untouched(study.parent, "analyze", "--study", study, "--db", missing)
    assert f"{missing}: no such study database" in line


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--shard", "3/2"], "--shard '3/2'"),
        (["--shard", "x"], "--shard 'x'"),
        (["--limit", "-1"], "--limit -1: use 0 or more"),
        (["--executor", "nope"], "--executor 'nope'"),
        (["--executor", "ray", "--workers", "0"], "--workers 0: use at least 1"),
        (["--address", "auto"], "--address and --workers go with --executor ray"),
        (["--snapshot-every", "-1"], "--snapshot-every -1"),
    ],
)
def test_infer_refuses_before_writing(study: Path, options: list[str], named: str) -> None:
    assert named in _fails_untouched(study.parent, "infer", "--study", study, "--no-progress", *options)


def _bad_study(study: Path, body: str) -> Path:
    bad = study.with_name("bad.toml")
    bad.write_text(study.read_text(encoding="utf-8").replace("[image_set]", body + "\n[image_set]", 1))
    return bad


@pytest.mark.parametrize("command", ["infer", "analyze", "audit"])
@pytest.mark.parametrize(
    ("body", "named"),
    [
        ("bogus = 1", "bogus"),  # a key the study file does not have
        ('design = "nope"', "design"),
        ("seeds = [-1]", "seeds"),
    ],
)
def test_a_bad_study_file_touches_no_database(study: Path, command: str, body: str, named: str) -> None:
    bad = _bad_study(study, body)
    db = study.with_suffix(".duckdb")
    line = _fails_untouched(study.parent, command, "--study", bad, "--db", db, "--no-progress")
    assert str(bad) in line and named in line


def test_a_bad_model_backend_touches_no_database(study: Path) -> None:
    bad = study.with_name("bad.toml")
    bad.write_text(study.read_text(encoding="utf-8") + '[[models]]\nmodel_id = "x"\nbackend = "nope"\n')
    db = study.with_suffix(".duckdb")
    line = _fails_untouched(study.parent, "infer", "--study", bad, "--db", db, "--no-progress")
    assert "nope" in line


@pytest.mark.parametrize("database", ["two.duckdb", "new.duckdb"])
def test_audit_with_a_missing_encoder_touches_nothing(study: Path, database: str) -> None:
    bad = study.with_name("bad.toml")
    bad.write_text(study.read_text(encoding="utf-8") + f'[audit]\nencoder = "{study.parent / "nope"}"\n')
    db = study.parent / database  # the study's database, or a new one (none is left behind)
    line = _fails_untouched(study.parent, "audit", "--study", bad, "--db", db, "--no-progress")
    assert line == f"error: [audit] encoder '{study.parent / 'nope'}': not a folder (a local CLIP checkpoint)"


@pytest.mark.parametrize("command", ["infer", "analyze", "audit", "sql", "status", "report"])
@pytest.mark.parametrize("content", ["", 'name = "x"\n'])
def test_a_study_file_given_as_the_database_is_named_as_such(study: Path, command: str, content: str) -> None:
    toml = study.parent / "empty.toml"
    toml.write_text(content, encoding="utf-8")
    args: list[str | Path] = [command, "--db", toml, *(["SELECT 1"] if command == "sql" else [])]
    args += ["--tables"] if command == "report" else []
    if command in ("infer", "analyze", "audit"):
        args += ["--study", study]
    line = _fails_untouched(study.parent, *args)
    empty = ", empty" if not content else ""
    assert line == (
        f"error: {toml}: a study file (TOML{empty}), not a study database (a .duckdb file such as "
        "runs/<name>.duckdb); a study file goes to --study"
    )


@pytest.mark.parametrize(
    "subset", [["--models", "nope"], ["-m", MODELS[0], "-m", "nope"], ["-m", f"nope,{MODELS[1]}"]]
)
def test_report_takes_models_as_analyze_does(study: Path, subset: list[str]) -> None:
    pytest.importorskip("great_tables")
    db = study.with_suffix(".duckdb")
    line = _fails_untouched(study.parent, "report", "--study", study, "--tables", *subset)
    assert line == f"error: unknown model 'nope' in {db}; models: {', '.join(MODELS)}"


def test_infer_of_a_changed_model_writes_no_new_face(study: Path) -> None:
    """A third face is new, the changed model conflicts: neither is written (was: the face was)."""
    changed = study.with_name("changed.toml")
    text = study.read_text(encoding="utf-8").replace("size = 2", "size = 3")
    changed.write_text(
        text.replace('backend = "simulated"\n', 'backend = "simulated"\ncheckpoint = "other"\n', 1)
    )
    db = study.with_suffix(".duckdb")
    line = _fails_untouched(study.parent, "infer", "--study", changed, "--db", db, "--no-progress")
    assert line.startswith(f"error: model: model_id='{MODELS[0]}' is stored with checkpoint=''")
