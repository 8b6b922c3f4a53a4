"""The writing commands that ``test_damaged_blocks.py`` leaves out, on a study database with a damaged
block (docs/decisions.md#d79): ``infer``, ``multiverse``, ``check-invariance``, ``audit``, ``import
judgments`` and ``upgrade`` each fail in one line naming the file and "damaged database", exit code
2, no traceback, the file byte for byte as it was and no other file left beside it.

The first block of each table the command reads or writes is damaged in turn (the tables it writes
into hold rows already: the fixture audited the study and checked its invariance once). Before the
fix, ``check-invariance`` re-asked its sample (a model's work, a note on stderr) before it met a
damaged block of the tables beside ``judgment``, and ``upgrade`` said "cannot upgrade: Corrupt
database file: …" without "damaged database".
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from typer.testing import Result

from tests.hardening.blocks import damaged_copy, table_blocks
from tests.hardening.failing import run
from tests.hardening.study_db import error_lines, sha256, tiny_study
from tests.images.release_layout import release_study, write_release_images, write_release_judgments
from tests.store.old_study import build_old_study

#: Tables of the judged study whose first block is damaged: read by every command, or written.
JUDGED_TABLES = ("judgment", "face", "image", "model", "run", "scenario", "edit_audit", "result_invariance")

COMMANDS = {
    "infer": ["infer", "--no-progress"],
    "multiverse": ["multiverse", "--resamples", "100", "--no-progress"],
    "check-invariance": ["check-invariance", "--sample", "10"],
    "audit": ["audit", "--no-progress"],
}


def _ok(result: Result) -> None:
    assert result.exit_code == 0, (result.stderr, result.exception)


def _refused(result: Result, db: Path, before: str) -> None:
    """One line naming ``db`` as damaged, exit 2, no traceback, ``db`` unchanged and alone in its folder."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 2, (result.exit_code, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    lines = error_lines(result.stderr)
    assert len(lines) == 1 and lines[0].startswith(f"error: {db}: damaged database ("), result.stderr
    assert sha256(db) == before
    assert [p.name for p in db.parent.iterdir()] == [db.name]  # no WAL, no backup, no work file


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny study on 4 demo faces (``multiverse`` needs more than 2), most of it judged (``infer``
    has answers left to ask), audited and checked for invariance; returns the study file."""
    study = tiny_study(tmp_path_factory.mktemp("damaged-writers"), faces=4)
    _ok(run("infer", "--study", str(study), "--no-progress", "--limit", "40000"))
    _ok(run("audit", "--study", str(study), "--no-progress"))
    _ok(run("check-invariance", "--study", str(study), "--sample", "10"))
    return study


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_writing_command_refuses_a_damaged_block(judged: Path, tmp_path: Path, command: str) -> None:
    source = judged.with_suffix(".duckdb")
    blocks = table_blocks(source)
    for table in JUDGED_TABLES:
        db = damaged_copy(source, tmp_path / table, blocks[table][0])
        before = sha256(db)
        result = run(*COMMANDS[command], "--study", str(judged), "--db", str(db))
        _refused(result, db, before)


def test_infer_refuses_a_damaged_index_block(judged: Path, tmp_path: Path) -> None:
    """The blocks no table's rows hold but metadata: the primary keys' indexes, which infer's inserts
    look up (before D79 infer wrote into the file on four of them, exit 0)."""
    source = judged.with_suffix(".duckdb")
    with duckdb.connect(str(source), read_only=True) as con:
        meta = {int(r[0]) for r in con.execute("SELECT block_id FROM pragma_metadata_info()").fetchall()}
    indexes = [b for b in table_blocks(source)["other"] if b not in meta]
    assert indexes
    for block in indexes:
        db = damaged_copy(source, tmp_path / str(block), block)
        before = sha256(db)
        _refused(run(*COMMANDS["infer"], "--study", str(judged), "--db", str(db)), db, before)


def test_import_judgments_refuses_a_damaged_target(tmp_path: Path) -> None:
    """A release checkout imported in part; its other scenarios are then imported into a copy of the
    database with a block damaged (the tables the import reads and writes)."""
    checkout = write_release_images(tmp_path / "StylisticBias")
    write_release_judgments(checkout, scenario_indices=(0,))
    study = release_study(checkout, tmp_path)
    target = study.with_suffix(".duckdb")
    imported = run("import", "judgments", str(checkout), "--study", str(study), "--db", str(target))
    _ok(imported)
    write_release_judgments(checkout, scenario_indices=(0, 1, 2))
    blocks = table_blocks(target)
    for table in ("judgment", "release_judgment", "image", "model", "run"):
        db = damaged_copy(target, tmp_path / table, blocks[table][0])
        before = sha256(db)
        args = ["import", "judgments", str(checkout), "--study", str(study), "--db", str(db), "--no-progress"]
        _refused(run(*args, "--workers", "1"), db, before)


@pytest.mark.parametrize("version", [3, 4])
def test_upgrade_refuses_a_damaged_block(tmp_path: Path, version: int) -> None:
    """Every table with rows of an old-schema database: the upgrade copies each, row for row."""
    old = tmp_path / "old.duckdb"
    build_old_study(old, version)
    blocks = table_blocks(old)
    tables = sorted(t for t, held in blocks.items() if held and t != "other")
    assert {"judgment", "image", "identity", "run", "result_manifest"} <= set(tables)
    for table in tables:
        db = damaged_copy(old, tmp_path / table, blocks[table][0], name="old.duckdb")
        before = sha256(db)
        _refused(run("upgrade", "--db", str(db)), db, before)
