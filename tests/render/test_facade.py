"""The report facade on a study database: one-line errors, model subsets, the preamble, the CLI command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from cueshift import store
from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.errors import CueshiftError
from cueshift.render import Catalog, Report, render_report

DOCUMENT = CATALOG.document_path


def test_missing_database_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(CueshiftError, match="no such study database"):
        render_report(tmp_path / "nope.duckdb", document=DOCUMENT, out_dir=tmp_path / "out")
    assert not (tmp_path / "out" / "study.html").exists()


def test_empty_database_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.duckdb"
    store.open_study(path).close()
    with pytest.raises(CueshiftError, match="holds no judgments") as info:
        render_report(path, document=DOCUMENT, out_dir=tmp_path / "out")
    assert "\n" not in str(info.value)
    assert not (tmp_path / "out").exists()


def test_not_a_database_and_unknown_model(tmp_path: Path, raw_db: Path) -> None:
    junk = tmp_path / "junk.duckdb"
    junk.write_text("not a database", encoding="utf-8")
    with pytest.raises(CueshiftError, match="cannot open"):
        render_report(junk, document=DOCUMENT, out_dir=tmp_path / "out")
    with pytest.raises(CueshiftError, match="unknown model"):
        render_report(raw_db, document=DOCUMENT, models="sim-a,gpt-9", out_dir=tmp_path / "out")


def test_model_subset_filters_per_model_rows(analysed_db: Path) -> None:
    with Report.open(analysed_db, "sim-b", CATALOG) as report:
        assert report.subset and report.models == ["sim-b"]
        assert [row[0] for row in report.styled("judgments").texts()] == ["sim-b"]
        vs_rows = [row[0] for row in report.styled("table2_vs").texts()]
        assert vs_rows == ["sim-b", "Average (all models)"]
        assert "subset" in report.preamble().text


def test_preamble_names_every_simulated_backend(raw_db: Path, tmp_path: Path) -> None:
    import duckdb

    path = tmp_path / "mixed.duckdb"
    path.write_bytes(raw_db.read_bytes())
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE model SET backend = 'simulated-designs' WHERE model_id = 'sim-a'")
        con.execute("UPDATE model SET backend = 'openai' WHERE model_id = 'sim-b'")
    with Report.open(path, None, CATALOG) as report:
        assert report.simulated_models() == ["sim-a"]
        text = report.preamble().text
    assert "Simulated judges.** `sim-a` use" in text and "`sim-b` use" not in text
    assert CATALOG.notation in text and "Models in this report: `sim-a`, `sim-b`." in text


def test_preamble_says_which_phi_the_analyses_read(analysed_db: Path, tmp_path: Path) -> None:
    import duckdb

    with Report.open(analysed_db, None, CATALOG) as report:
        assert "The analyses read φ from the stored answers" in report.preamble().text
    path = tmp_path / "tempered.duckdb"
    path.write_bytes(analysed_db.read_bytes())
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE result_manifest SET phi = 'T=0.2'")
    with Report.open(path, None, CATALOG) as report:
        assert "answers drawn at T = 0.2 from the stored scores" in report.preamble().text


def test_console_tables(analysed_db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cueshift.render.cli import print_tables

    print_tables(analysed_db, CATALOG)
    out = capsys.readouterr().out
    for spec in CATALOG.tables:
        shown = spec.title.split(" (")[0][:40] in " ".join(out.split())
        assert shown != spec.optional, spec.key  # optional tables (the face models): none stored here


def test_report_command_errors_and_engine_choice(tmp_path: Path) -> None:
    from cueshift.render import DEFAULT_OUT
    from cueshift.render.cli import report_study

    asked: list[str] = []

    def target(study: str) -> tuple[Catalog, Path]:
        asked.append(study)
        return CATALOG, tmp_path / "default.duckdb"

    def report_command(**given: Any) -> None:  # the command's defaults (cueshift.cli.report)
        options = {"study": "default", "db": None, "models": None, "out": DEFAULT_OUT, "formats": "html,pdf"}
        report_study(target, **(options | {"engine": "auto", "document": None, "tables": False} | given))

    with pytest.raises(CueshiftError, match="no such study database"):
        report_command(db=tmp_path / "missing.duckdb", out=tmp_path)
    with pytest.raises(CueshiftError, match="default.duckdb: no such study database"):
        report_command(study="mine.toml", out=tmp_path)
    with pytest.raises(CueshiftError, match="--engine"):
        report_command(db=tmp_path / "missing.duckdb", engine="latex")
    with pytest.raises(CueshiftError, match="--format 'docx'"):
        report_command(db=tmp_path / "missing.duckdb", formats="html,docx")
    assert asked == ["default", "mine.toml", "default", "default"]


def test_bad_arguments_write_nothing(raw_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    with pytest.raises(CueshiftError, match="--format"):
        render_report(raw_db, document=DOCUMENT, out_dir=out, formats=["docx"])
    with pytest.raises(CueshiftError, match="--engine"):
        render_report(raw_db, document=DOCUMENT, out_dir=out, engine="latex")
    with pytest.raises(CueshiftError, match="no such report document"):
        render_report(raw_db, out_dir=out, document=tmp_path / "missing.qmd")
    assert not out.exists()
