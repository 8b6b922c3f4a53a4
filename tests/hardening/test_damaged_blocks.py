"""A study database with a damaged data block (one flipped bit: the block fails its checksum, which
DuckDB finds only when it reads the block) is one line naming the file, exit code 2, no traceback,
nothing written, for every command that reads a study database (docs/decisions.md#d70).

Before the fix the reading commands said ``database: Corrupt database file: …`` without the file,
``analyze`` could fail after it had replaced the result tables (the file changed, exit 2), the
viewer answered a page that met the block with an Internal Server Error, and the Python API
raised the same unnamed line. Blocks are chosen from the file's own storage map: the first block
of some tables (data read by every command) and the blocks no table's rows occupy (metadata,
primary-key indexes, free blocks); ``analyze`` and the viewer take every block in turn (slow).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from starlette.requests import Request

import cueshift as cs
from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.errors import CueshiftError
from cueshift.stats import Resampling
from tests.hardening.blocks import block_count, damaged_copy, table_blocks
from tests.hardening.failing import one_line, run
from tests.hardening.study_db import sha256
from tests.render.study_db import build_study_db

#: Tables whose first block the quick tests damage: judgments, a dimension, runs, two result tables.
SAMPLED_TABLES = ("judgment", "model", "image", "run", "result_manifest", "result_sbs")


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = build_study_db(tmp_path_factory.mktemp("damaged-blocks") / "study.duckdb", n_faces=6)
    con = store.open_study(path)
    try:
        run_analyses(con, Resampling(resamples=100, seed=1), progress=False)
    finally:
        con.close()
    return path


def _sample(path: Path) -> list[int]:
    blocks = table_blocks(path)
    return sorted({blocks[t][0] for t in SAMPLED_TABLES if blocks.get(t)} | set(blocks["other"]))


COMMANDS = {
    "sql": lambda db, out: ["sql", "--db", str(db), "SELECT count(*), sum(hash(j)) FROM judgment AS j"],
    "status": lambda db, out: ["status", "--db", str(db)],
    "export": lambda db, out: ["export", "--db", str(db), "--out", str(out)],
    "report": lambda db, out: ["report", "--db", str(db), "--tables"],
    "report html": lambda db, out: ["report", "--db", str(db), "--out", str(out), "--format", "html"],
    "analyze": lambda db, out: ["analyze", "--db", str(db), "--resamples", "100", "--no-progress"],
}


def _check(command: str, analysed: Path, folder: Path, block: int) -> bool:
    """Run ``command`` on ``analysed`` with ``block`` damaged: it succeeds, or fails in one line naming
    the file with the database byte for byte as it was and no file written. Returns whether it failed."""
    db = damaged_copy(analysed, folder, block)
    before = sha256(db)
    result = run(*COMMANDS[command](db, folder / "out"))
    if result.exit_code == 0:
        return False
    # the html report says which renderer it starts before its cells read the file (a notice)
    line = one_line(result, notices=("rendering with ",))
    assert str(db) in line and "damaged" in line, (block, line)
    assert sha256(db) == before, (block, line)
    assert sorted(p.name for p in folder.iterdir()) == ["damaged.duckdb"], block  # no output, no WAL
    return True


READERS = [
    pytest.param(c, marks=[pytest.mark.slow]) if c == "report html" else c for c in COMMANDS if c != "analyze"
]


@pytest.mark.parametrize("command", READERS)
def test_a_reading_command_names_a_damaged_block(analysed: Path, tmp_path: Path, command: str) -> None:
    refused = [_check(command, analysed, tmp_path / str(b), b) for b in _sample(analysed)]
    assert any(refused)  # the judgments' block is read by each
    if command.startswith("report"):  # every block's checksum is checked before a cell runs (D79)
        assert all(refused), [b for b, r in zip(_sample(analysed), refused, strict=True) if not r]


def test_analyze_refuses_a_damaged_block_before_writing(analysed: Path, tmp_path: Path) -> None:
    """The judgments' and the model table's first blocks: refused before a result table is replaced
    (before the fix, the model's block failed after the results were written: the file changed)."""
    blocks = table_blocks(analysed)
    for block in (blocks["judgment"][0], blocks["model"][0]):
        assert _check("analyze", analysed, tmp_path / str(block), block)


@pytest.mark.slow
def test_analyze_of_every_damaged_block(analysed: Path, tmp_path: Path) -> None:
    """Every block in turn, each refused (indexes and free blocks by their checksums, D79; before,
    a primary key's block, read only by a lookup, could pass)."""
    count = block_count(analysed)
    refused = [_check("analyze", analysed, tmp_path / str(b), b) for b in range(count)]
    assert all(refused), [b for b in range(count) if not refused[b]]


def test_the_python_api_names_a_damaged_block(analysed: Path, tmp_path: Path) -> None:
    db = damaged_copy(analysed, tmp_path, table_blocks(analysed)["judgment"][0])
    study = cs.open_study(db)
    with pytest.raises(CueshiftError) as info:
        study.judgments()
    assert str(db) in str(info.value) and "damaged" in str(info.value) and "\n" not in str(info.value)


def _page(app: object, path: str, query: str = "") -> tuple[int, str]:
    """GET ``path`` from the viewer's own endpoint, in this thread (no server, no HTTP client)."""
    route = next(r for r in app.routes if getattr(r, "path", None) == path)  # type: ignore[attr-defined]
    scope = {
        "type": "http", "method": "GET", "path": path, "query_string": query.encode(), "headers": [],
        "scheme": "http", "server": ("127.0.0.1", 8000), "root_path": "",
    }  # fmt: skip
    response = route.endpoint(Request(scope))
    return int(response.status_code), bytes(response.body).decode()


@pytest.mark.slow
def test_the_viewer_names_a_damaged_block(analysed: Path, tmp_path: Path) -> None:
    """At start: one line naming the file. A block that only a page reads (a result table's):
    that page is an error page naming the file (status 500), not an exception."""
    pytest.importorskip("starlette")
    from cueshift.viewer import create_app

    con = duckdb.connect(str(analysed), read_only=True)
    image = con.execute("SELECT image_id FROM image WHERE role = 'base' ORDER BY image_id LIMIT 1").fetchall()
    con.close()
    at_start = on_a_page = 0
    count = block_count(analysed)
    for block in range(count):
        db = damaged_copy(analysed, tmp_path / str(block), block)
        before = sha256(db)
        try:
            app = create_app(db, thumbs=tmp_path / "thumbs")
        except CueshiftError as exc:
            assert str(db) in str(exc) and "\n" not in str(exc), (block, exc)
            at_start += 1
            continue
        for path, query in (("/", ""), ("/attribute", ""), ("/judgments", f"image={image[0][0]}")):
            status, body = _page(app, path, query)
            if status == 500:
                assert str(db) in body and "damaged database" in body, (block, path)
                on_a_page += 1
        app.state.viewer.source.close()
        assert sha256(db) == before
    assert at_start and on_a_page


@pytest.mark.parametrize("how", ["truncated", "not duckdb"])
@pytest.mark.parametrize("command", ["status", "export", "report html"])
def test_a_truncated_or_foreign_file(analysed: Path, tmp_path: Path, how: str, command: str) -> None:
    """The commands ``tests/hardening/test_nothing_written.py`` does not run on such a file."""
    db = tmp_path / "damaged.duckdb"
    if how == "truncated":
        db.write_bytes(analysed.read_bytes()[: analysed.stat().st_size // 2])
    else:
        shutil.copy(Path(__file__), db)
    line = one_line(run(*COMMANDS[command](db, tmp_path / "out")))
    assert str(db) in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["damaged.duckdb"]
