"""The StylisticBias report rendered without Quarto: every number shown is the database's."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import polars as pl
import pytest

from cueshift.designs.stylisticbias.report import CATALOG, delta_fill
from cueshift.render import (
    FALLBACK,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_percent,
    render_report,
    significance_mark,
)
from tests.html_tables import html_tables, texts
from tests.render.study_db import AGES, BODY_TYPES, ETHNICITIES, GENDERS
from tests.table_order import MAIN, SUPPLEMENTARY, misplaced, rendered_titles

DOCUMENT = CATALOG.document_path


@pytest.fixture(scope="module")
def rendered(analysed_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("out")
    result = render_report(analysed_db, document=DOCUMENT, out_dir=out, engine="jupyter")
    assert result.engine == FALLBACK
    assert result.models == ("sim-a", "sim-b")
    return dict(result.outputs)


@pytest.fixture(scope="module")
def html(rendered: dict[str, Path]) -> str:
    return rendered["html"].read_text(encoding="utf-8")


def _only_other_commands_missing(text: str) -> None:
    """Every table ``analyze`` writes is computed: the only "Not computed" notes are of the tables
    ``multiverse`` and ``check-invariance`` write, and name that command."""
    words = " ".join(re.sub(r"</?[a-zA-Z][^<>]*>", "", text).split())  # HTML tags out
    notes = re.findall(r"Not computed.*?to compute it", words)
    assert notes, "the multiverse and invariance tables are not in an analysed database"
    for note in notes:
        assert re.search(r"Run `?cueshift (multiverse|check-invariance)`? to compute it", note), note


def test_html_is_self_contained_with_figures(html: str) -> None:
    assert html.count('src="data:image/png;base64,') == 5  # Figures 2-5 and the Table 11 shrinkage plot
    assert not re.search(r'src="(?!data:)', html)
    _only_other_commands_missing(html)


def test_html_shows_main_tables_in_number_order_each_companion_after_its_table(html: str) -> None:
    """D65: the page's table titles, in page order: Table 3b and 3c right after Table 3, Table 5
    before Table 9 (Tables 3b and 11c came before Table 3, Table 3 after Table 10)."""
    titles = rendered_titles(html)
    assert misplaced(titles) == []
    assert misplaced(titles, SUPPLEMENTARY) == []
    shown = {f"{m.group(1)}{m.group(2)}" for t in titles if (m := MAIN.match(t))}
    assert {"2", "2b", "3", "3b", "3c", "4", "5", "9", "9b", "10", "11", "11b", "11c"} <= shown


def test_html_data_quality_tables_match_the_database(html: str, analysed_db: Path) -> None:
    import duckdb

    con = duckdb.connect(str(analysed_db), read_only=True)
    try:
        judgments = con.sql("SELECT model_id, outcome, scenario_id FROM judgment").pl()
        n_planned = con.sql("""SELECT (SELECT count(*) FROM image WHERE role = 'base' OR evaluated)
                                      * (SELECT count(*) FROM scenario) * 4 * 2""").fetchall()[0][0]
        scenarios = con.sql(
            "SELECT scenario_id, favorable || ' / ' || unfavorable AS label FROM scenario"
        ).pl()
    finally:
        con.close()
    tables = html_tables(html)
    per_model = (
        judgments.group_by("model_id")
        .agg(n=pl.len(), invalid=(pl.col("outcome") == "invalid").sum())
        .sort("model_id")
    )
    expected = [
        [
            r["model_id"],
            fmt_integer(r["n"]),
            fmt_percent(r["n"] / n_planned, 1),
            fmt_integer(r["invalid"]),
            fmt_percent(r["invalid"] / r["n"], 2),
            fmt_integer(n_planned // 8),
            "0",
        ]
        for r in per_model.iter_rows(named=True)
    ]
    assert texts(tables["judgments"]) == expected
    rates = (
        judgments.group_by("scenario_id", "model_id")
        .agg(rate=(pl.col("outcome") == "invalid").mean())
        .join(scenarios, on="scenario_id")
    )
    shown = {row[0]: row[1:] for row in texts(tables["invalid_by_scenario"])}
    for row in rates.iter_rows(named=True):
        column = ["sim-a", "sim-b"].index(row["model_id"])
        assert shown[row["label"]][column] == fmt_percent(row["rate"], 1)
    study_design = dict(texts(tables["benchmark"]))
    assert study_design["Judgments"] == fmt_integer(judgments.height)
    assert study_design["Faces (identities with a base image)"] == "24"


def test_html_result_tables_match_the_database(html: str, analysed_db: Path) -> None:
    import duckdb

    con = duckdb.connect(str(analysed_db), read_only=True)
    try:
        vs = con.sql("SELECT * FROM result_table2_vs").pl()
        t5 = con.sql("SELECT * FROM result_table5").pl()
        t11 = con.sql("SELECT * FROM result_table11").pl()
        asym = con.sql("SELECT * FROM result_negativity_asymmetry").pl()
    finally:
        con.close()
    tables = html_tables(html)
    # Table 2: every VS value and its interval, model rows then the average row
    dims = ["age", "gender", "ethnicity", "body_type"]
    expected_vs = []
    for model_id, label in (
        ("sim-a", "sim-a"),
        ("sim-b", "sim-b"),
        ("(mean of models)", "Average (all models)"),
    ):
        vs_cells = []
        for d in dims:  # VS [95% CI]; the average of models has no interval
            r = vs.filter((pl.col("model_id") == model_id) & (pl.col("dimension") == d)).row(0, named=True)
            interval = fmt_ci(r["ci_low"], r["ci_high"], 3, signed=False)
            vs_cells.append(fmt_number(r["estimate"]) + ("" if r["ci_low"] is None else f" {interval}"))
        expected_vs.append([label, *vs_cells])
    assert texts(tables["table2_vs"]) == expected_vs
    # Table 5: SBS with 4 decimals and its interval
    shown5 = {r[0]: r for r in texts(tables["table5_models"])}
    for row in t5.iter_rows(named=True):
        label = "Average (all models)" if row["model_id"] == "(mean of models)" else row["model_id"]
        assert shown5[label][1] == fmt_effect(row["estimate"], 4)
        assert shown5[label][2] == fmt_ci(row["ci_low"], row["ci_high"], 4)
    # Table 11: every cell's text, significance mark and colour
    groups = list(AGES + GENDERS + ETHNICITIES + BODY_TYPES)
    cells = {
        (r[0][0], groups[j]): r[j + 1] for r in tables["table11_demographic"] for j in range(len(groups))
    }
    assert len(tables["table11_demographic"]) == t11["variation_value"].n_unique()
    for row in t11.iter_rows(named=True):
        text, style = cells[(row["variation_value"], row["group"])]
        assert text == fmt_effect(row["estimate"])
        mark = significance_mark(row["p_adj"])
        assert ("font-weight: bold" in style) == (mark is not None and mark.value == "strong")
        assert ("underline" in style) == (mark is not None and mark.value == "ns")
        fill = delta_fill(row["estimate"])
        assert (fill is None and "background" not in style) or (fill is not None and fill in style)
    # negativity asymmetry: ratios with their marks
    shown_asym = texts(tables["negativity_asymmetry"])
    assert {r[4] for r in shown_asym} == {f"{fmt_number(x, 2)}×" for x in asym["estimate"]}


def test_pdf_pages_and_section_titles(rendered: dict[str, Path]) -> None:
    from pypdf import PdfReader

    reader = PdfReader(str(rendered["pdf"]))
    assert len(reader.pages) >= 5
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    for title in (
        "Summary",
        "Appendix: data quality",
        "Answer validity",
        "RQ1",
        "RQ2",
        "RQ3",
        "Provenance",
        "Variation Strength (VS) per model",
        "Mean prediction shift",
        "Per-model variation effects",
    ):
        assert title in text, title
    assert re.findall(r"Figure (\d)\.", text) == ["2", "3", "4", "5"]
    assert "Table 11. Mean prediction shift" in text
    _only_other_commands_missing(text)


def test_pdf_repeats_the_simulated_judges_warning_atop_every_page(rendered: dict[str, Path]) -> None:
    from pypdf import PdfReader

    reader = PdfReader(str(rendered["pdf"]))
    assert len(reader.pages) > 1
    header = "Simulated judges (sim-a, sim-b): the numbers say nothing about real models"
    for i, page in enumerate(reader.pages):
        assert " ".join(page.extract_text().split()).startswith(header), i


def _heading_lines(reader: object) -> list[tuple[int, int, str]]:
    """(page, line, text) of every numbered section heading in the body (the contents' dotted lines
    left out)."""
    found = []
    for i, page in enumerate(reader.pages):  # type: ignore[attr-defined]
        for j, line in enumerate(page.extract_text().splitlines()):
            if re.match(r"^\d+(\.\d+)* [A-Z]", line) and ". . ." not in line:
                found.append((i, j, line))
    return found


def test_pdf_answers_the_questions_before_the_data_quality_appendix(
    rendered: dict[str, Path], analysed_db: Path
) -> None:
    import duckdb
    from pypdf import PdfReader

    reader = PdfReader(str(rendered["pdf"]))
    headings = _heading_lines(reader)

    def where(prefix: str) -> tuple[int, int]:
        hits = [(page, line) for page, line, text in headings if text.split(" ", 1)[1].startswith(prefix)]
        assert len(hits) == 1, (prefix, headings)
        return hits[0]

    order = [where(t) for t in ("Summary", "RQ1:", "RQ2:", "RQ3:", "Appendix: data quality", "Provenance")]
    assert order == sorted(order)
    assert order[1][0] <= 2  # RQ1 starts on the first pages, not after the data-quality tables
    # the data-quality tables (answer validity, the edit audit, the noise floor) follow RQ3
    pages = [" ".join(page.extract_text().split()) for page in reader.pages]
    for title in ("Table S7. Why", "Table S9. Judgments", "Table S10. Invalid", "Table N1. The noise"):
        first = min(i for i, text in enumerate(pages) if title in text)
        assert first >= order[4][0], title
    # the summary up front answers each question with the stored numbers
    summary = pages[order[0][0]]
    assert all(f"RQ{k}" in summary for k in (1, 2, 3))
    with duckdb.connect(str(analysed_db), read_only=True) as con:
        (top, abs_sbs), *_ = con.execute(
            "SELECT variation_value, abs_sbs FROM result_sbs WHERE level = 'variation_value' "
            "AND model_id = '(pooled)' AND dimension IS NULL ORDER BY abs_sbs DESC"
        ).fetchall()

    def bare(text: str) -> str:  # prose may break a word with a hyphen at a line end
        return re.sub(r"[\s-]", "", text)

    assert bare(f"{top} (|SBS| {abs_sbs:.3f}") in bare(summary)


def test_pdf_table_headers_are_not_hyphenated(rendered: dict[str, Path]) -> None:
    """No word of a table header (the catalog's column labels, the dimensions) is split across
    lines with a hyphen, as typst's justified text does when hyphenation is on."""
    from pypdf import PdfReader

    labels = [c.label for spec in CATALOG.tables for c in spec.columns]
    labels += [v for spec in CATALOG.tables if spec.pivot for v in spec.pivot.labels.values()]
    words = {w.lower() for label in labels for w in re.findall(r"[A-Za-z]{4,}", label)}
    words |= {"ethnicity", "gender"}  # dimension headers of the pivoted tables
    reader = PdfReader(str(rendered["pdf"]))
    splits = {
        (m.group(1) + m.group(2)).lower()
        for page in reader.pages
        for m in re.finditer(r"([A-Za-z]+)-\n([a-z]+)", page.extract_text())
    }
    assert not splits & words, sorted(splits & words)


def test_missing_result_tables_render_a_note(raw_db: Path, tmp_path: Path) -> None:
    result = render_report(raw_db, document=DOCUMENT, out_dir=tmp_path, formats=["html"], engine="jupyter")
    page = result.outputs["html"].read_text(encoding="utf-8")
    tables = html_tables(page)
    assert {"benchmark", "judgments", "invalid_by_scenario"} <= set(tables)
    assert "table2_vs" not in tables
    for name in ("result_table2_vs", "result_table11", "result_sbs", "result_cross_model"):
        assert name in page, name
    assert page.count("Not computed") >= 10
    assert "cueshift analyze" in page
    assert "Not applicable" not in page  # nothing was analysed: every absent table is "not computed"


def test_analyses_that_do_not_apply_are_named_so(analysed_db: Path, tmp_path: Path) -> None:
    import duckdb

    from cueshift.designs.stylisticbias.report import CATALOG
    from cueshift.render import Report

    path = tmp_path / "no-noise.duckdb"
    path.write_bytes(analysed_db.read_bytes())
    with duckdb.connect(str(path)) as con:
        con.execute("DROP TABLE IF EXISTS result_table4")  # as analyze leaves it without fashion styles
    with Report.open(path, None, CATALOG) as report:
        note = report.table("table4_fashion_age")
    assert "Not applicable" in note.text and "result_table4" in note.text  # type: ignore[union-attr]


# ---------------------------------------------------------------------------------- quarto path


def test_quarto_on_path_is_used(raw_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in ``quarto`` records its arguments and writes the output file it is asked for."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.txt"
    script = bin_dir / "quarto"
    script.write_text(
        "#!/usr/bin/env bash\n"
        f'echo "$@" >> "{log}"\n'
        'out=""; to=""\n'
        'while [ $# -gt 0 ]; do case "$1" in\n'
        '  --output-dir) out="$2"; shift;; --to) to="$2"; shift;;\n'
        "esac; shift; done\n"
        'ext=html; [ "$to" = typst ] && ext=pdf\n'
        'echo fake > "$out/study.$ext"\n',
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    result = render_report(raw_db, document=DOCUMENT, out_dir=tmp_path / "out", models="sim-a")
    assert result.engine == "quarto"
    assert set(result.outputs) == {"html", "pdf"}
    calls = log.read_text(encoding="utf-8").splitlines()
    assert len(calls) == 2 and "--to html" in calls[0] and "--to typst" in calls[1]
    assert f"-P db:{raw_db.resolve()}" in calls[0] and "-P models:sim-a" in calls[0]
    assert str(DOCUMENT) in calls[0]


@pytest.mark.parametrize(
    ("key", "command"),
    [
        ("multiverse_fragile", "cueshift multiverse"),
        ("multiverse_joint", "cueshift multiverse"),
        ("invariance", "cueshift check-invariance"),
    ],
)
def test_a_table_another_command_writes_names_that_command(
    analysed_db: Path, key: str, command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """``analyze`` ran, ``multiverse``/``check-invariance`` did not: their tables are not computed
    yet (naming the command that computes them), not "not applicable" to the study."""
    from cueshift.render import Report
    from cueshift.render.cli import print_tables

    with Report.open(analysed_db, None, CATALOG) as report:
        note = report.table(key)
    text = note.text  # type: ignore[union-attr]
    assert text.startswith("> **Not computed:**") and f"Run `{command}`" in text, text
    assert "cueshift analyze" not in text
    title = CATALOG.table(key).title
    capsys.readouterr()
    print_tables(analysed_db, CATALOG)
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith(title))
    assert f"run `{command}`)" in line and "cueshift analyze" not in line, line
