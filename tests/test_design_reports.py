"""Each further design's report renders to HTML and PDF (without Quarto) from its study database."""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfReader
from rich.console import Console

from cueshift import store
from cueshift.designs import analyze_design, run_design
from cueshift.report._render import REPORTS_DIR, render_report
from cueshift.study.config import load_study

STUDIES = Path(__file__).parents[1] / "studies"


@pytest.mark.parametrize(
    ("design", "study_file", "result_table", "sections"),
    [
        ("paired", "paired-001.toml", "result_paired_halo", ["Attractiveness bias", "Halo effect"]),
        (
            "pairwise",
            "pairwise-002.toml",
            "result_pairwise_cohort",
            ["Pairwise preferences", "Position bias"],
        ),
        (
            "probe",
            "probe-004.toml",
            "result_probe_similarity",
            ["Human reliability", "Structure of impressions"],
        ),
    ],
)
def test_design_report_renders_html_and_pdf(tmp_path, design, study_file, result_table, sections):
    study = load_study(STUDIES / study_file)
    study = study.model_copy(update={"database": tmp_path / f"{design}.duckdb"})
    run_design(study, progress=False)
    con = store.open_study(study.database_path)
    try:
        analyze_design(con, study, Console(file=open(tmp_path / "console.txt", "w")))  # noqa: SIM115
        n_rows = con.execute(f"SELECT count(*) FROM {result_table}").fetchone()[0]
    finally:
        con.close()
    assert n_rows > 0

    result = render_report(
        study.database_path,
        document=REPORTS_DIR / f"{design}.qmd",
        out_dir=tmp_path / "out",
        formats=("html", "pdf"),
        engine="jupyter",
    )
    html = Path(result.outputs["html"]).read_text(encoding="utf-8")
    assert "<table" in html and "Traceback" not in html
    assert all(section in html for section in sections)
    pdf = PdfReader(str(result.outputs["pdf"]))
    assert len(pdf.pages) >= 1
    text = " ".join(page.extract_text() for page in pdf.pages)
    assert "Traceback" not in text and len(text) > 500
    assert all(section in text for section in sections)
