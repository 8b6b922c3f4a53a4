"""A failing ``import judgments`` or ``merge`` leaves the study database byte for byte as it was
(issue 30): exit code 2, one line naming the bad file, no traceback, nothing on stdout."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.untouched import error_line, fingerprint, run, two_model_study
from tests.images.release_layout import release_study, write_release_images, write_release_judgments


def _fails_untouched(folder: Path, *args: str | Path) -> str:
    before = fingerprint(folder)
    line = error_line(run(*args))
    assert fingerprint(folder) == before
    return line


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Shard 1 and 2 of the two-model study (limited), and another study's database."""
    folder = tmp_path_factory.mktemp("shards")
    study = two_model_study(folder)
    for k in (1, 2):
        done = run("infer", "--study", study, "--shard", f"{k}/2", "--limit", "400", "--no-progress")
        assert done.exit_code == 0, done.stderr
    other = two_model_study(folder, name="other", faces=3)
    done = run("infer", "--study", other, "--limit", "400", "--no-progress")
    assert done.exit_code == 0, done.stderr
    return folder


@pytest.fixture
def merged(shards: Path, tmp_path: Path) -> Path:
    """This test's folder: the shards, the other study's database, and shard 1 merged into out.duckdb."""
    for name in ("two.shard-1-of-2.duckdb", "two.shard-2-of-2.duckdb", "other.duckdb"):
        shutil.copyfile(shards / name, tmp_path / name)
    done = run("merge", tmp_path / "out.duckdb", tmp_path / "two.shard-1-of-2.duckdb")
    assert done.exit_code == 0, done.stderr
    return tmp_path


@pytest.mark.parametrize(
    ("inputs", "named"),
    [
        (["missing.duckdb"], "missing.duckdb: no such database to merge"),
        (["two.shard-2-of-2.duckdb", "missing.duckdb"], "missing.duckdb: no such database to merge"),
        (["notes.txt"], "notes.txt: cannot open as a DuckDB database"),
        (["two.toml"], "two.toml: a study file (TOML), not a study database"),
        (["other.duckdb"], "other.duckdb"),  # another study: refused by its fingerprint
        (["out.duckdb"], "cannot merge a database into itself"),
    ],
)
def test_merge_refuses_before_writing(merged: Path, inputs: list[str], named: str) -> None:
    (merged / "notes.txt").write_text("not a database", encoding="utf-8")
    two_model_study(merged)
    line = _fails_untouched(merged, "merge", merged / "out.duckdb", *(merged / name for name in inputs))
    assert named in line


def test_merge_into_a_file_that_is_no_database_touches_nothing(merged: Path) -> None:
    target = merged / "notes.txt"
    target.write_text("not a database", encoding="utf-8")
    line = _fails_untouched(merged, "merge", target, merged / "two.shard-2-of-2.duckdb")
    assert "notes.txt" in line


@pytest.fixture
def imported(tmp_path: Path) -> tuple[Path, Path]:
    """A release checkout imported once into the study's database: (checkout, study file)."""
    checkout = write_release_images(tmp_path / "StylisticBias")
    write_release_judgments(checkout)
    study = release_study(checkout, tmp_path)
    done = run("import", "judgments", checkout, "--study", study, "--no-progress", "--workers", "1")
    assert done.exit_code == 0, done.stderr
    return checkout, study


def _first_judgment(checkout: Path) -> Path:
    return min((checkout / "output" / "judgements").rglob("*.json"))


def test_import_of_a_malformed_file_touches_nothing(imported: tuple[Path, Path]) -> None:
    checkout, study = imported
    bad = _first_judgment(checkout)
    bad.write_text('{"order": 1,', encoding="utf-8")
    line = _fails_untouched(study.parent, "import", "judgments", checkout, "--study", study, "--no-progress")
    assert bad.name in line


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ("folder", "no such folder"),
        ("field", "field 'order'"),
        ("study", "bogus"),
    ],
)
def test_import_refuses_before_writing(imported: tuple[Path, Path], change: str, named: str) -> None:
    checkout, study = imported
    folder = checkout
    if change == "folder":
        folder = checkout / "nope"
    elif change == "field":
        path = _first_judgment(checkout)
        data = json.loads(path.read_text(encoding="utf-8"))
        path.write_text(json.dumps(data | {"order": data["order"] + 1}), encoding="utf-8")
    else:
        study.write_text(study.read_text(encoding="utf-8") + "bogus = 1\n", encoding="utf-8")
    line = _fails_untouched(study.parent, "import", "judgments", folder, "--study", study, "--no-progress")
    assert named in line
