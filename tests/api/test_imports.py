"""``cs.import_judgments`` and ``cs.import_omi`` against ``cueshift import judgments`` and ``cueshift
import omi`` on the same release checkout and OMI folder: the same tables and files written, the same
lines printed (``quiet=False``), nothing printed by default; bad input raises the command's one line
and writes nothing (D83)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import duckdb
import polars as pl
import pytest

import cueshift as cs
from tests.api.conftest import cli
from tests.images.omi_layout import write_omi
from tests.images.release_layout import release_study, write_release_images, write_release_judgments

#: Columns that say when or in which run a row was written, not what it holds.
VOLATILE = {"run_id", "created_at", "started_at", "finished_at", "updated_at", "heartbeat_at"}
SIM = "sim=simulated-designs:cueshift-simulated-v1"
#: The judgment summary's timing: files read "in 0.4 s (840 files/s)".
TIMING = re.compile(r"in \d+\.\d s \([\d,]+ files/s\)")


def _tables(database: Path) -> dict[str, pl.DataFrame]:
    """Every table and view of ``database``, volatile columns left out, rows as text in one order."""
    with duckdb.connect(str(database), read_only=True) as con:
        names = [row[0] for row in con.sql("SELECT table_name FROM information_schema.tables").fetchall()]
        tables = {}
        for name in sorted(names):
            columns = [r[0] for r in con.sql(f'DESCRIBE "{name}"').fetchall() if r[0] not in VOLATILE]
            select = ", ".join(f'CAST("{c}" AS VARCHAR) AS "{c}"' for c in columns)
            tables[name] = con.sql(f'SELECT {select} FROM "{name}" ORDER BY ALL').pl()
    return tables


def _fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def release(tmp_path: Path) -> tuple[Path, Path]:
    """A release checkout judged by two models, one of them not in the study file: (checkout, study)."""
    checkout = write_release_images(tmp_path / "StylisticBias", croissant=True)
    write_release_judgments(checkout, models=("llava-1.5-7b", "phi-4"))
    return checkout, release_study(checkout, tmp_path)


def test_import_judgments_writes_the_tables_and_prints_the_lines_the_command_does(
    release: tuple[Path, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checkout, study = release
    monkeypatch.setenv("COLUMNS", "120")  # the same width for the command (piped) and the function
    with_cli, with_api = tmp_path / "cli.duckdb", tmp_path / "api.duckdb"
    done = cli(
        "import", "judgments", str(checkout), "--study", str(study), "--db", str(with_cli), "--no-progress"
    )
    assert done.returncode == 0, done.stderr
    capsys.readouterr()
    first = cs.import_judgments(checkout, study, db=with_api, workers=2, quiet=False)
    printed = capsys.readouterr().out
    assert TIMING.sub("", printed) == TIMING.sub("", done.stdout).replace(str(with_cli), str(with_api))
    api_tables, cli_tables = _tables(with_api), _tables(with_cli)
    assert list(api_tables) == list(cli_tables)
    for name, table in api_tables.items():
        assert table.equals(cli_tables[name]), name
    n_files = api_tables["judgment"].height
    assert n_files == 7 * 3 * 4 * 2 * 2 == api_tables["release_judgment"].height
    assert (first.n_files, first.n_written, first.n_already_stored) == (n_files, n_files, 0)
    assert first.database == with_api and first.models == ("llava-1.5-7b", "phi-4")
    assert first.agreement["n"].sum() == n_files and first.croissant and first.study_lists_models
    again = cs.import_judgments(str(checkout), str(study), db=str(with_api))  # idempotent, quiet
    assert (again.n_written, again.n_already_stored) == (0, n_files) and capsys.readouterr().out == ""


def _missing_folder(checkout: Path, study: Path) -> tuple[Path, Path | str]:
    return checkout / "nowhere", study


def _no_study(checkout: Path, study: Path) -> tuple[Path, Path | str]:
    return checkout, "default"


def _malformed_file(checkout: Path, study: Path) -> tuple[Path, Path | str]:
    folder = next((checkout / "output" / "judgements" / "phi-4").rglob("*.json")).parent
    sorted(folder.iterdir())[3].write_text('{"order": 1,')
    return checkout, study


@pytest.mark.parametrize("bad", [_missing_folder, _no_study, _malformed_file])
def test_a_failing_import_judgments_raises_the_commands_line_and_writes_nothing(
    release: tuple[Path, Path], tmp_path: Path, bad: object
) -> None:
    assert callable(bad)
    folder, study = bad(*release)
    before = _fingerprint(tmp_path)
    done = cli("import", "judgments", str(folder), "--study", str(study), "--no-progress")
    with pytest.raises(cs.CueshiftError) as raised:
        cs.import_judgments(folder, study)
    assert done.returncode == 2 and done.stderr.strip() == f"error: {raised.value}"
    assert "\n" not in str(raised.value) and _fingerprint(tmp_path) == before
    with pytest.raises(TypeError):
        cs.import_judgments(folder)  # type: ignore[call-arg]  # the study is required, as --study is


def test_import_omi_writes_the_files_and_prints_the_lines_the_command_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    omi = write_omi(tmp_path / "omi", rating_types=("attribute", "dominance"))
    published = tmp_path / "irr.csv"
    published.write_text(
        "attribute,human_irr\ntrustworthy,80\nhappy,90\nage,95\ngender,99\n", encoding="utf-8"
    )
    monkeypatch.setenv("COLUMNS", "120")
    via_cli, via_api = tmp_path / "cli", tmp_path / "api"
    options = ["--name", "om", "--seed", "3", "--reliability", str(published), "--rating-type", "all"]
    done = cli("import", "omi", str(omi), "--out", str(via_cli), "--model", SIM, "--no-progress", *options)
    assert done.returncode == 0, done.stderr
    capsys.readouterr()
    result = cs.import_omi(
        omi, via_api, name="om", models=SIM, rating_types="all", reliability=published, seed=3, quiet=False
    )
    assert capsys.readouterr().out == done.stdout.replace(str(via_cli), str(via_api))
    files = sorted(p.name for p in via_cli.iterdir())
    assert (
        files
        == sorted(p.name for p in via_api.iterdir())
        == ["human_ratings.csv", "reliability.csv", "study.toml"]
    )
    for name in files:
        text = (via_cli / name).read_text(encoding="utf-8").replace(str(via_cli), str(via_api))
        assert (via_api / name).read_text(encoding="utf-8") == text, name
    assert result.study_file == via_api / "study.toml" and result.reliability_converted
    assert result.n_images == 12 and result.ratings.long.height == 12 * 4 * 8 * 2
    assert result.split_half["attribute"].to_list() == ["age", "gender", "happy", "trustworthy"]
    assert cs.show_study(result.study_file)["models"][0]["model_id"] == "sim"
    again = cs.import_omi(omi, via_api, models=[SIM], rating_types=["all"], force=True)  # quiet
    assert again.reliability_file is None and capsys.readouterr().out == ""


@pytest.mark.parametrize(
    ("args", "keywords"),
    [
        (["--model", "clip"], {"models": ["clip"]}),
        (["--model", SIM], {"models": SIM}),  # two rating types and no choice
        ([], {"out": "nowhere-else"}),  # a missing OMI folder
        (
            ["--rating-type", "all", "--reliability", "irr.csv"],
            {"rating_types": "all", "reliability": "irr.csv"},
        ),
    ],
)
def test_a_failing_import_omi_raises_the_commands_line_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], keywords: dict[str, object]
) -> None:
    omi = write_omi(tmp_path / "omi", rating_types=("attribute", "dominance"))
    monkeypatch.chdir(tmp_path)
    folder = omi if "out" not in keywords else tmp_path / "no-omi"
    before = _fingerprint(tmp_path)
    done = cli("import", "omi", str(folder), "--no-progress", *args)
    with pytest.raises(cs.CueshiftError) as raised:
        cs.import_omi(folder, **keywords)  # type: ignore[arg-type]
    assert done.returncode == 2 and done.stderr.strip() == f"error: {raised.value}"
    assert "\n" not in str(raised.value) and _fingerprint(tmp_path) == before
    assert not (tmp_path / "omi-study").exists() and not (tmp_path / "nowhere-else").exists()


def test_import_omi_refuses_to_replace_an_imported_study_without_force(tmp_path: Path) -> None:
    omi = write_omi(tmp_path / "omi")
    out = tmp_path / "study"
    cs.import_omi(omi, out, models=SIM)
    before = _fingerprint(tmp_path)
    done = cli("import", "omi", str(omi), "--out", str(out), "--model", SIM)
    with pytest.raises(cs.CueshiftError) as raised:
        cs.import_omi(omi, out, models=SIM, seed=1)
    assert done.returncode == 2 and done.stderr.strip() == f"error: {raised.value}"
    assert str(raised.value).endswith("already exists; pass --force to replace the imported study")
    assert _fingerprint(tmp_path) == before
