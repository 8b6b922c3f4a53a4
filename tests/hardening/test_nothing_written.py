"""A failing command writes nothing (docs/decisions.md#d15).

Before the fix a truncated database made `infer`/`analyze` rewrite bytes of the damaged file,
and a bad template, `seeds = [3000000000]` or `--db` in an unwritable folder left a database
with dimension tables behind (or failed with a traceback).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.hardening.failing import one_line, run, study_file, tmpfs
from tests.hardening.study_db import build_study_db, sha256, tiny_study


@pytest.fixture(scope="module")
def study_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_study_db(tmp_path_factory.mktemp("written"))


def _damage(source: Path, target: Path, how: str) -> None:
    data = bytearray(source.read_bytes())
    if how == "truncated":
        data = data[: len(data) // 2]
    elif how == "truncated header":
        data = data[:5000]
    elif how == "magic":
        data[8:12] = b"JUNK"
    elif how == "sqlite":
        data[:16] = b"SQLite format 3\x00"
    target.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["truncated", "truncated header", "magic", "sqlite"])
@pytest.mark.parametrize("command", ["infer", "analyze", "sql", "report"])
def test_a_damaged_database_is_one_line_and_unchanged(
    study_db: Path, tmp_path: Path, how: str, command: str
) -> None:
    db = tmp_path / "damaged.duckdb"
    _damage(study_db, db, how)
    before = sha256(db)
    study = tiny_study(study_db.parent)
    args = {
        "infer": ["infer", "--study", str(study), "--db", str(db), "--no-progress"],
        "analyze": ["analyze", "--study", str(study), "--db", str(db), "--resamples", "100"],
        "sql": ["sql", "--db", str(db), "SELECT count(*) FROM judgment"],
        "report": ["report", "--db", str(db), "--tables"],
    }[command]
    line = one_line(run(*args))
    assert str(db) in line and "download" not in line
    assert sha256(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.duckdb"]  # no WAL either


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('[prompt]\ntemplate = "{first_letter} {first} {second_letter} {second} {bogus}"', "template"),
        ('[prompt]\ntemplate = "x { {first_letter} {first} {second_letter} {second}"', "template"),
        ('[prompt]\ntemplate = "{first_letter} {first} {second_letter} {second} }"', "template"),
        ('[prompt]\ntemplate = "{} {first_letter} {first} {second_letter} {second}"', "template"),
        ("seeds = [3000000000]", "seeds"),
        ("seeds = [1, 2147483648]", "seeds"),
    ],
)
def test_a_bad_study_value_leaves_no_database(tmp_path: Path, body: str, field: str) -> None:
    if body.startswith("["):  # a section goes after the top-level keys
        study = study_file(tmp_path, "")
        study.write_text(study.read_text() + body + "\n")
    else:
        study = study_file(tmp_path, body)
    line = one_line(run("infer", "--study", str(study), "--no-progress"))
    assert field in line
    assert not list(tmp_path.glob("*.duckdb*"))


def test_the_largest_seed_runs(tmp_path: Path) -> None:
    study = study_file(tmp_path, "seeds = [2147483647]")
    result = run("infer", "--study", str(study), "--no-progress", "--limit", "50")
    assert result.exit_code == 0, (result.stderr, result.exception)


def test_db_under_a_file_leaves_nothing(study_db: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    line = one_line(
        run("infer", "--study", str(tiny_study(study_db.parent)), "--db", str(blocker / "d" / "x.duckdb"))
    )
    assert "not a folder" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_db_in_a_read_only_folder_leaves_nothing(study_db: Path, tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ro", "ro", "size=1m") as folder:
        if folder is None:
            pytest.skip("cannot mount a read-only tmpfs here")
        for target in (folder / "x.duckdb", folder / "sub" / "x.duckdb"):
            line = one_line(run("infer", "--study", str(tiny_study(study_db.parent)), "--db", str(target)))
            assert "not writable" in line
        assert not list(folder.iterdir())


def test_a_good_database_is_still_written(study_db: Path, tmp_path: Path) -> None:
    db = shutil.copy(study_db, tmp_path / "ok.duckdb")
    result = run("infer", "--study", str(tiny_study(study_db.parent)), "--db", str(db), "--limit", "10")
    assert result.exit_code == 0, (result.stderr, result.exception)


@pytest.mark.parametrize("field", ["database", "cache_dir", "manifest"])
def test_a_nul_in_a_study_file_path_leaves_nothing(tmp_path: Path, field: str) -> None:
    nul = f"{tmp_path.as_posix()}/x\\u0000"  # a TOML escape: the parsed value holds a NUL
    body = {
        "database": f'name = "s"\ndatabase = "{nul}.duckdb"\n[image_set]\nsize = 2\n',
        "cache_dir": f'name = "s"\n[image_set]\nsize = 2\ncache_dir = "{nul}"\n',
        "manifest": f'name = "s"\n[image_set]\nkind = "manifest"\nmanifest = "{nul}.csv"\n',
    }[field]
    study = tmp_path / "s.toml"
    study.write_text(body + '[[models]]\nmodel_id = "sim"\n', encoding="utf-8")
    line = one_line(run("infer", "--study", str(study), "--db", str(tmp_path / "s.duckdb"), "--no-progress"))
    assert field in line and "NUL" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"]
