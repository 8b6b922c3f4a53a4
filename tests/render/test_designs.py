"""Each design's report: one facade, the catalog's documents ship with the package, and the further
designs render to HTML and PDF (without Quarto) with marks that follow the stored p-values."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import polars as pl
import pytest
from pypdf import PdfReader

from cueshift.designs import design_named
from cueshift.designs.paired.report import CATALOG as PAIRED
from cueshift.designs.pairwise.report import CATALOG as PAIRWISE
from cueshift.designs.probe.report import CATALOG as PROBE
from cueshift.designs.stylisticbias.report import CATALOG as STYLISTICBIAS
from cueshift.render import (
    REPORTS_DIR,
    Catalog,
    Report,
    fmt_number,
    render_report,
    significance_mark,
    stars,
    to_html,
)
from tests.designs.review_dbs import analysed_dbs
from tests.html_tables import html_tables, texts

STUDIES = Path(__file__).parents[2] / "studies"
CATALOGS = {"stylisticbias": STYLISTICBIAS, "paired": PAIRED, "pairwise": PAIRWISE, "probe": PROBE}
_CALL = re.compile(r"report\.(table|figure|text|section)\(\"([^\"]+)\"\)")


@pytest.mark.parametrize("design", sorted(CATALOGS))
def test_catalog_document_ships_and_declares_every_call(design: str) -> None:
    catalog = design_named(design).report()  # what the registry hands `cueshift report`
    assert catalog is CATALOGS[design]
    assert catalog.document_path.parent == REPORTS_DIR and catalog.document_path.is_file()
    source = catalog.document_path.read_text(encoding="utf-8")
    # the document opens the one facade with its own catalog
    assert f"from cueshift.designs.{design}.report import CATALOG" in source
    assert "Report.open(db, models, CATALOG)" in source
    calls = _CALL.findall(source)
    assert calls, design
    sections = {name for name, _ in catalog.sections}
    shown: set[str] = set()
    for kind, key in calls:
        if kind == "section":  # a section cell shows every key the catalog lists under it
            assert key in sections, f"{design}: study document shows undeclared section {key!r}"
            shown.update(catalog.section(key))
        else:
            getattr(catalog, kind)(key)  # raises for an undeclared key
            shown.add(key)
    assert {t.key for t in catalog.tables} <= shown


def test_catalog_refuses_repeated_keys_and_names_unknown_ones() -> None:
    with pytest.raises(ValueError, match="repeated key"):
        Catalog("x.qmd", tables=(PAIRED.tables[0], PAIRED.tables[0]))
    with pytest.raises(ValueError, match="section key"):
        Catalog("x.qmd", tables=PAIRED.tables[:1], sections=(("extra", ("nope",)),))
    with pytest.raises(Exception, match="no table 'nope' declared"):
        PAIRED.table("nope")


@pytest.fixture(scope="module")
def design_dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An analysed study database per further design (the seed study files, simulated judges)."""
    return analysed_dbs(tmp_path_factory)


@pytest.mark.parametrize(
    ("design", "result_table", "sections"),
    [
        ("paired", "result_paired_halo", ["Attractiveness bias", "Halo effect"]),
        ("pairwise", "result_pairwise_cohort", ["Pairwise preferences", "Position bias"]),
        ("probe", "result_probe_similarity", ["Human reliability", "Structure of impressions"]),
    ],
)
def test_design_report_renders_html_and_pdf(
    design_dbs: dict[str, Path], tmp_path: Path, design: str, result_table: str, sections: list[str]
) -> None:
    db = design_dbs[design]
    with duckdb.connect(str(db), read_only=True) as con:
        n_rows = con.execute(f"SELECT count(*) FROM {result_table}").fetchone()[0]  # type: ignore[index]
    assert n_rows > 0
    result = render_report(
        db,
        document=CATALOGS[design].document_path,
        out_dir=tmp_path / "out",
        formats=("html", "pdf"),
        engine="jupyter",
    )
    html = Path(result.outputs["html"]).read_text(encoding="utf-8")
    assert "<table" in html and "Traceback" not in html and "Not computed" not in html
    assert all(section in html for section in sections)
    assert "Simulated judges" in html  # the simulated-designs backend is recognised as simulated
    assert {t.key for t in CATALOGS[design].tables if not t.optional} <= set(html_tables(html))
    pdf = PdfReader(str(result.outputs["pdf"]))
    assert len(pdf.pages) >= 1
    text = " ".join(page.extract_text() for page in pdf.pages)
    assert "Traceback" not in text and len(text) > 500
    assert all(section in text for section in sections)


def test_marks_in_rendered_tables_follow_the_stored_p_values(design_dbs: dict[str, Path]) -> None:
    # paired halo table: the KW H column carries the star code of the stored p_adj (seed 001 App. D)
    with duckdb.connect(str(design_dbs["paired"]), read_only=True) as con:
        halo = con.sql("SELECT model_id, choice_1, choice_2, statistic, p_adj FROM result_paired_halo").pl()
    with Report.open(design_dbs["paired"], None, PAIRED) as report:
        html = to_html(report.styled("paired_halo"))
    shown = {(r[0], r[1], r[2]): r[6] for r in texts(html_tables(html)["paired_halo"])}
    assert len(shown) == halo.height
    codes = set()
    for row in halo.iter_rows(named=True):
        code = stars(row["p_adj"])
        codes.add(code)
        expected = fmt_number(row["statistic"], 2) + (f" {code}" if code else "")
        assert shown[(row["model_id"], row["choice_1"], row["choice_2"])] == expected
    assert len(codes) >= 2, codes  # the check sees more than one mark
    # probe similarity pivot: bold / underline follow the stored p_adj of each cell (seed 000 notation)
    with duckdb.connect(str(design_dbs["probe"]), read_only=True) as con:
        sim = con.sql("SELECT attribute, model_id, estimate, p_adj FROM result_probe_similarity").pl()
    with Report.open(design_dbs["probe"], None, PROBE) as report:
        styled = report.styled("probe_similarity")
    columns = list(styled.labels[1:])
    cells = {(row[0].text, columns[j]): row[j + 1] for row in styled.rows for j in range(len(columns))}
    seen = set()
    for row in sim.iter_rows(named=True):
        cell = cells[(row["attribute"], row["model_id"])]
        mark = significance_mark(row["p_adj"])
        assert cell.text == fmt_number(row["estimate"], 2)
        assert cell.bold == (mark is not None and mark.value == "strong")
        assert cell.underline == (mark is not None and mark.value == "ns")
        seen.add(None if mark is None else mark.value)
    assert len(seen) >= 2, seen
    assert sim.filter(pl.col("p_adj").is_not_null()).height > 0
