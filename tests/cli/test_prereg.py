"""``cueshift prereg`` and ``analyze --prereg`` (issue 33): the plan runs exactly, its SHA-256 lands in
``result_manifest`` and on the report's first page; every deviation is one line, exit code 2, the
study folder byte for byte as it was, unless ``--exploratory`` runs it labelled."""

from __future__ import annotations

import hashlib
import shutil
import tomllib
from pathlib import Path

import duckdb
import pytest

from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.render import Report
from tests.cli.untouched import MODELS, error_line, fingerprint, run, two_model_study
from tests.images.test_image_set import MANIFEST_ROWS, write_image, write_manifest

PLAN_OPTIONS = ("--resamples", "100", "--seed", "3")


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The two-model study, judged, and its plan (100 resamples, seed 3) in ``plan.toml``."""
    folder = tmp_path_factory.mktemp("judged")
    study = two_model_study(folder)
    assert run("infer", "--study", study, "--no-progress").exit_code == 0
    done = run("prereg", "--study", study, "--out", folder / "plan.toml", *PLAN_OPTIONS)
    assert done.exit_code == 0, done.stderr
    return folder


@pytest.fixture
def study(judged: Path, tmp_path: Path) -> Path:
    for item in judged.iterdir():
        (shutil.copytree if item.is_dir() else shutil.copyfile)(item, tmp_path / item.name)
    return two_model_study(tmp_path)


def _file_hash(plan: Path) -> str:
    """The plan's SHA-256 recomputed here: the bytes after its first line."""
    return hashlib.sha256(plan.read_bytes().split(b"\n", 1)[1]).hexdigest()


def _manifest(study: Path) -> list[tuple[str | None, bool, int, int | None]]:
    with duckdb.connect(str(study.with_suffix(".duckdb")), read_only=True) as con:
        rows = con.execute(
            "SELECT DISTINCT prereg_sha256, exploratory, n_resamples, seed FROM result_manifest "
            "WHERE name = 'sbs'"
        ).fetchall()
    return [tuple(row) for row in rows]


def test_the_plan_file_freezes_the_options_and_hashes(judged: Path) -> None:
    plan_file = judged / "plan.toml"
    first, body = plan_file.read_text(encoding="utf-8").split("\n", 1)
    assert first == f'sha256 = "{_file_hash(plan_file)}"'
    plan = tomllib.loads(body)
    assert plan["options"]["resamples"] == 100 and plan["options"]["seed"] == 3
    assert plan["options"]["phi"] == "greedy" and "audit" not in plan["options"]
    assert plan["design"] == "stylisticbias" and plan["statistics"]["alpha"] == 0.05
    assert plan["analyses"]["sbs"]["table"] == "result_sbs" and plan["analyses"]["sbs"]["family"]
    assert [m["model_id"] for m in plan["study"]["models"]] == list(MODELS)
    assert len(plan["hashes"]["study"]) == len(plan["hashes"]["images"]) == 64
    lines = body.splitlines()
    tables = [line for line in lines if line.startswith("[")]
    assert tables == sorted(tables, key=lambda t: t.strip("[]").split("."))  # canonical: sorted


def test_analyze_runs_the_plan_and_stores_its_hash(study: Path) -> None:
    plan_file = study.parent / "plan.toml"
    done = run("analyze", "--study", study, "--prereg", plan_file, "--no-progress")
    assert done.exit_code == 0, done.stderr
    digest = _file_hash(plan_file)
    assert f"preregistered plan {digest}: run as planned" in done.stderr
    assert _manifest(study) == [(digest, False, 100, 3)]  # the plan's resamples and seed, not the defaults
    with Report.open(study.with_suffix(".duckdb"), None, CATALOG) as report:
        text = report.preamble().text
    assert f"ran exactly the plan with SHA-256 `{digest}`" in text and "Exploratory" not in text


def _edit_study(study: Path) -> None:
    study.write_text(study.read_text(encoding="utf-8").replace("size = 2", "size = 2\nplacebos = false"))


def _edit_plan(study: Path) -> None:
    plan = study.parent / "plan.toml"
    plan.write_text(plan.read_text(encoding="utf-8").replace("resamples = 100", "resamples = 200"))


@pytest.mark.parametrize(
    ("options", "edit", "named"),
    [
        (["--resamples", "200"], None, "--resamples 200 departs from the plan's 100"),
        (["--seed", "4"], None, "--seed 4 departs from the plan's 3"),
        (["--phi", "expected"], None, "--phi expected departs from the plan's greedy"),
        (["--audit", "report"], None, "--audit report departs from the plan's the design's default"),
        (["--models", MODELS[0]], None, f"--models {MODELS[0]} departs from the plan's the design's default"),
        ([], _edit_study, "the study file changed since the plan was frozen (image_set)"),
        ([], _edit_plan, "plan.toml: edited after it was frozen (its SHA-256 no longer matches)"),
    ],
)
def test_a_deviation_is_refused_and_touches_nothing(
    study: Path, options: list[str], edit: object, named: str
) -> None:
    if callable(edit):
        edit(study)
    before = fingerprint(study.parent)
    line = error_line(run("analyze", "--study", study, "--prereg", study.parent / "plan.toml", *options))
    assert named in line and line.startswith("error: ")
    assert fingerprint(study.parent) == before


def test_options_equal_to_the_plan_are_no_deviation(study: Path) -> None:
    from cueshift.designs import AnalysisRequest, load_study
    from cueshift.execution.prereg import apply_plan

    request = AnalysisRequest(seed=3, resamples=100, phi="greedy")
    planned, digest, found = apply_plan(
        study.parent / "plan.toml", load_study(study), request, exploratory=False
    )
    assert found == [] and digest == _file_hash(study.parent / "plan.toml")
    assert (planned.seed, planned.resamples, planned.test) == (3, 100, "rank")


def test_exploratory_runs_a_deviation_labelled(study: Path) -> None:
    plan_file = study.parent / "plan.toml"
    done = run(
        "analyze", "--study", study, "--prereg", plan_file, "--seed", "5", "--exploratory", "--no-progress"
    )
    assert done.exit_code == 0, done.stderr
    digest = _file_hash(plan_file)
    assert "--seed 5 departs from the plan's 3" in done.stderr
    assert _manifest(study) == [(digest, True, 100, 5)]
    with Report.open(study.with_suffix(".duckdb"), None, CATALOG) as report:
        assert f"**Exploratory.** These analyses depart from the preregistered plan SHA-256 `{digest}`" in (
            report.preamble().text
        )


def test_exploratory_without_a_plan_is_refused(study: Path) -> None:
    before = fingerprint(study.parent)
    assert "--exploratory: only with --prereg" in error_line(
        run("analyze", "--study", study, "--exploratory")
    )
    assert fingerprint(study.parent) == before


def test_a_changed_image_is_detected(tmp_path: Path) -> None:
    manifest = write_manifest(tmp_path / "set", MANIFEST_ROWS)
    study = tmp_path / "m.toml"
    study.write_text(
        f'name = "m"\ndatabase = "{(tmp_path / "m.duckdb").as_posix()}"\n'
        f'[image_set]\nkind = "manifest"\nmanifest = "{manifest.as_posix()}"\n'
        '[[models]]\nmodel_id = "sim-judge"\nbackend = "simulated"\n',
        encoding="utf-8",
    )
    assert run("prereg", "--study", study, "--out", tmp_path / "plan.toml").exit_code == 0
    write_image(tmp_path / "set" / "img" / "a1.png", color=(10, 200, 30))  # the same file, other pixels
    before = fingerprint(tmp_path)
    line = error_line(run("analyze", "--study", study, "--prereg", tmp_path / "plan.toml"))
    assert "the image set changed since the plan was frozen" in line
    assert fingerprint(tmp_path) == before


def test_prereg_refuses_to_replace_a_plan_and_a_bad_option(study: Path) -> None:
    plan_file = study.parent / "plan.toml"
    before = fingerprint(study.parent)
    assert "plan.toml: exists" in error_line(run("prereg", "--study", study, "--out", plan_file))
    assert "--resamples 10: use at least 100" in error_line(
        run("prereg", "--study", study, "--out", study.parent / "other.toml", "--resamples", "10")
    )
    assert fingerprint(study.parent) == before
