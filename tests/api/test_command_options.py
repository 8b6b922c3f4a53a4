"""The options of the commands that their functions lacked (D73): ``cs.analyze(compat=, top=,
overview_only=)``, ``cs.report(document=, tables=)`` and ``cs.multiverse(progress=)``. Each keyword
gives what its option gives (the same result tables, printed overview, tables, files), and a bad
value the command's one line. On the code before each call here raised TypeError."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from polars.testing import assert_frame_equal
from typer.testing import CliRunner

import cueshift as cs
from cueshift.cli import app
from cueshift.designs import design_of, load_study
from cueshift.render import MarkdownOutput, TableOutput
from tests.api.conftest import RESAMPLES, SEED, Demo, cli, copy_of
from tests.api.test_commands import tables

STUDIES = Path(__file__).resolve().parents[2] / "studies"


def result_names(database: Path) -> list[str]:
    with duckdb.connect(str(database), read_only=True) as con:
        found = con.sql("FROM duckdb_tables() SELECT table_name").fetchall()
    return sorted(name for (name,) in found if name.startswith("result_"))


def refused(args: list[str]) -> str:
    """The one line ``cueshift <args>`` exits 2 with (nothing on stdout)."""
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2 and result.stdout == "", result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0].removeprefix("error: ")


def test_compat_release_writes_the_tables_of_compat_release(demo: Demo) -> None:
    via_api, via_cli = copy_of(demo.raw, "compat-api"), copy_of(demo.raw, "compat-cli")
    cs.analyze(demo.study_file, db=via_api, resamples=RESAMPLES, seed=SEED, compat="release")
    done = cli(
        "analyze", "--study", str(demo.study_file), "--db", str(via_cli), "--no-progress",
        "--resamples", str(RESAMPLES), "--seed", str(SEED), "--compat", "release",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    api, command = tables(via_api), tables(via_cli)
    assert sorted(api) == sorted(command)
    assert {"result_release_table3", "result_compat_differences"} <= set(api)
    for name, frame in command.items():
        assert_frame_equal(api[name], frame, check_exact=False, rel_tol=1e-9)


def test_overview_only_prints_the_commands_overview_of_top_rows_and_writes_nothing(
    demo: Demo, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    via_api, via_cli = copy_of(demo.raw, "overview-api"), copy_of(demo.raw, "overview-cli")
    capsys.readouterr()
    cs.analyze(demo.study_file, db=via_api, overview_only=True, top=1, quiet=False)
    printed = capsys.readouterr().out.replace(str(via_api), "<db>")
    done = cli(
        "analyze", "--study", str(demo.study_file), "--db", str(via_cli), "--no-progress",
        "--overview-only", "--top", "1",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert printed == done.stdout.replace(str(via_cli), "<db>")
    assert "top variations" in printed and result_names(via_api) == result_names(via_cli) == []
    top = printed[printed.index("top variations") :]
    assert sum(line.startswith("│") for line in top.splitlines()) == 1  # one row: top=1


@pytest.mark.parametrize(
    ("keywords", "options"),
    [
        ({"top": -1}, ["--top", "-1"]),
        ({"compat": "seed"}, ["--compat", "seed"]),
        ({"top": 3, "quiet": False}, ["--top", "3"]),  # paired below: no overview
    ],
)
def test_a_bad_value_is_the_commands_line(
    demo: Demo, keywords: dict[str, object], options: list[str]
) -> None:
    study = STUDIES / "paired-001.toml" if keywords.get("quiet") is False else demo.study_file
    line = refused(["analyze", "--study", str(study), "--db", str(demo.raw), *options])
    with pytest.raises(cs.CueshiftError) as info:
        cs.analyze(study, db=demo.raw, **keywords)  # type: ignore[arg-type]
    assert str(info.value) == line


def test_the_design_refuses_overview_only_and_compat_as_the_command(demo: Demo) -> None:
    paired = STUDIES / "paired-001.toml"
    for keywords, options in (
        ({"overview_only": True}, ["--overview-only"]),
        ({"compat": "release"}, ["--compat", "release"]),
    ):
        line = refused(["analyze", "--study", str(paired), "--db", str(demo.raw), *options])
        assert "design 'paired'" in line
        with pytest.raises(cs.CueshiftError) as info:
            cs.analyze(paired, db=demo.raw, **keywords)
        assert str(info.value) == line


@pytest.mark.parametrize("keywords", [{"overview_only": True}, {"top": 5}])
def test_printing_keywords_are_refused_where_nothing_is_printed(
    demo: Demo, keywords: dict[str, object]
) -> None:
    database = copy_of(demo.raw, "quiet")
    with pytest.raises(cs.CueshiftError, match=r"quiet=True prints nothing; give quiet=False"):
        cs.analyze(demo.study_file, db=database, **keywords)  # type: ignore[arg-type]
    assert result_names(database) == []


def test_report_tables_are_the_tables_report_tables_prints(api_db: Path, demo: Demo) -> None:
    shown = cs.report(demo.study_file, db=api_db, tables=True)
    runner = CliRunner(env={"COLUMNS": "400"})
    printed = runner.invoke(app, ["report", "--study", str(demo.study_file), "--db", str(api_db), "--tables"])
    assert printed.exit_code == 0, printed.output
    catalog = design_of(load_study(demo.study_file)).report()
    titles = [catalog.table(key).title for key in shown]
    at = [printed.stdout.find(title) for title in titles]
    assert -1 not in at and at == sorted(at)  # every table the command prints, in its order ...
    assert len(shown) == len(
        catalog.tables
    ) - sum(  # ... and no other: the optional ones without rows left out
        spec.optional and spec.title not in printed.stdout for spec in catalog.tables
    )
    computed = {key: table for key, table in shown.items() if isinstance(table, TableOutput)}
    assert len(computed) > 20
    for table in computed.values():  # the cells of a first row, those short enough to print unwrapped
        row = table.styled.texts()[0]
        assert all(text in printed.stdout for text in row if 0 < len(text) < 20), (table.styled.title, row)
    notes = [table.text for table in shown.values() if isinstance(table, MarkdownOutput)]
    missing = [text for text in notes if text.startswith(("> **Not computed:**", "> **Not applicable:**"))]
    assert len(missing) == printed.stdout.count(": not computed (") > 0  # the others: empty tables


@pytest.mark.parametrize(
    ("keywords", "options"),
    [
        ({"document": "other.qmd"}, ["--document", "other.qmd"]),
        ({"out": "elsewhere"}, ["--out", "elsewhere"]),
        ({"formats": ["html"]}, ["--format", "html"]),
        ({"engine": "jupyter"}, ["--engine", "jupyter"]),
    ],
)
def test_report_tables_refuses_an_option_of_the_rendering_as_the_command(
    demo: Demo, keywords: dict[str, object], options: list[str]
) -> None:
    line = refused(["report", "--study", str(demo.study_file), "--tables", *options])
    assert line.startswith(options[0])
    with pytest.raises(cs.CueshiftError) as info:
        cs.report(demo.study_file, tables=True, **keywords)  # type: ignore[call-overload]
    assert str(info.value) == line


def test_report_document_renders_that_document(api_db: Path, demo: Demo, tmp_path: Path) -> None:
    document = tmp_path / "mine.qmd"
    document.write_text(
        '---\ntitle: "Mine"\n---\n\nOnly this line: a document of my own.\n', encoding="utf-8"
    )
    made = cs.report(
        demo.study_file,
        db=api_db,
        document=document,
        formats=["html"],
        engine="jupyter",
        out=tmp_path / "api",
    )
    assert made == {"html": tmp_path / "api" / "mine.html"}
    done = cli(
        "report", "--study", str(demo.study_file), "--db", str(api_db), "--document", str(document),
        "--format", "html", "--engine", "jupyter", "--out", str(tmp_path / "cli"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    html = made["html"].read_text(encoding="utf-8")
    assert (
        "a document of my own" in html
        and "a document of my own" in (tmp_path / "cli" / "mine.html").read_text()
    )
    missing = str(tmp_path / "nope.qmd")
    line = refused(["report", "--study", str(demo.study_file), "--db", str(api_db), "--document", missing])
    with pytest.raises(cs.CueshiftError) as info:
        cs.report(demo.study_file, db=api_db, document=missing)
    assert str(info.value) == line


def test_multiverse_progress_says_each_specification(demo: Demo, capsys: pytest.CaptureFixture[str]) -> None:
    study_file = demo.folder / "one-path.toml"
    one_path = "\n".join(f"{choice} = [{option!r}]" for choice, option in (
        ("parsing", "strict"), ("phi", "greedy"), ("invalid", "dropped"), ("audit", "keep"),
        ("generalise", "faces"), ("orderings", "all"),
    ))  # fmt: skip
    text = demo.study_file.read_text(encoding="utf-8")
    study_file.write_text(f"{text}\n[multiverse]\n{one_path}\n", encoding="utf-8")
    capsys.readouterr()
    quiet = cs.multiverse(study_file, db=copy_of(demo.raw, "mv-quiet"), resamples=RESAMPLES, seed=SEED)
    assert "specification" not in capsys.readouterr().err
    shown = cs.multiverse(
        study_file, db=copy_of(demo.raw, "mv"), resamples=RESAMPLES, seed=SEED, progress=True
    )
    summary = "SELECT * FROM result_multiverse_summary ORDER BY claim"
    with duckdb.connect(str(shown.path), read_only=True) as con, duckdb.connect(str(quiet.path)) as other:
        n = con.sql("SELECT count(DISTINCT specification) FROM result_multiverse").fetchall()[0][0]
        assert_frame_equal(con.sql(summary).pl(), other.sql(summary).pl())
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("specification ")]
    assert n == 2  # the one crossed path and the release's
    assert lines == [f"specification {done}/{n}" for done in range(1, n + 1)]
