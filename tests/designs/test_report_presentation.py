"""What a reviewer reads in the StylisticBias report: p-values as bounds (never 0.0000), one label per
table, the summary's claims with their test, interval and n, signed shifts with their sign, display
names instead of stored identifiers, differences of percentages in percentage points, and a note
where Table 3's columns agree because every group holds equally many faces.

Every expected text is built here from the stored row (``cueshift.render`` formatters on the value
the statistics engine wrote), never from the report output being checked.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path

import duckdb
import polars as pl
import pytest

from cueshift.designs.paired.report import CATALOG as PAIRED
from cueshift.designs.pairwise.report import CATALOG as PAIRWISE
from cueshift.designs.probe.report import CATALOG as PROBE
from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.render import Catalog, Col, Report, fmt_ci, fmt_effect, fmt_integer, fmt_percent, fmt_pvalue
from cueshift.stats import MEAN_OF_MODELS, POOLED
from tests.designs.report_db import query

CATALOGS = {"stylisticbias": CATALOG, "paired": PAIRED, "pairwise": PAIRWISE, "probe": PROBE}
_P_COLUMN = re.compile(r"(^|_)p(_adj|_shift_adj)?$")
_LABEL = re.compile(r"^(Table|Figure) ([A-Z]*\d+[a-z]?)\. ")
_DERIVED = re.compile(r"^Table \d+ (by|with|per|shrinkage) ")


def _p_columns(catalog: Catalog) -> list[tuple[str, str, Col]]:
    return [
        (table.key, column.name, column)
        for table in catalog.tables
        for column in table.columns
        if _P_COLUMN.search(column.name)
    ]


@pytest.mark.parametrize("design", sorted(CATALOGS))
def test_p_value_columns_show_a_bound_below_their_precision(design: str) -> None:
    columns = _p_columns(CATALOGS[design])
    assert columns, design
    for key, name, column in columns:
        for p in (1e-6, 0.0):
            text = column.fmt(p)
            assert "<" in text or "×10" in text, (key, name, text)  # never '0.0000' for a tiny p
        assert column.fmt(0.0321).startswith("0.03"), (key, name)


def test_every_table_and_figure_has_its_own_label() -> None:
    titles = [t.title for t in CATALOG.tables] + [f.title for f in CATALOG.figures]
    labels = []
    for title in titles:
        match = _LABEL.match(title)
        assert match or _DERIVED.match(title), f"no 'Table X.' label a reviewer can cite: {title!r}"
        if match:
            labels.append(match.group(0))
    repeated = {label: n for label, n in Counter(labels).items() if n > 1}
    assert not repeated, repeated


def test_summary_names_simulated_judges_and_quotes_test_interval_and_n(report_study: Path) -> None:
    with Report.open(report_study, None, CATALOG) as report:
        summary = report.text("key_findings").text
    assert summary.startswith("*Simulated judges (m1, m2)")
    pair = query(report_study, "SELECT * FROM result_cross_model").row(0, named=True)
    assert (
        f"r = {fmt_effect(pair['estimate'], 2)} (95% CI {fmt_ci(pair['ci_low'], pair['ci_high'], 2)}, "
        f"p {fmt_pvalue(pair['p'])}, {fmt_integer(pair['n'])} scenarios)"
    ) in summary
    top = query(
        report_study,
        f"SELECT * FROM result_sbs WHERE level = 'variation_value' AND model_id = '{POOLED}' "
        "AND dimension IS NULL AND lower(variation_category) <> 'placebo' ORDER BY abs_sbs DESC LIMIT 1",
    ).row(0, named=True)
    assert (
        f"{top['variation_value']} (|SBS| {top['abs_sbs']:.3f}, SBS {fmt_effect(top['estimate'])}, "
        f"95% CI {fmt_ci(top['ci_low'], top['ci_high'])}, p_adj {fmt_pvalue(top['p_adj'])}, "
        f"{top['n']} faces)"
    ) in summary
    shares = query(report_study, f"SELECT * FROM result_table9 WHERE model_id = '{MEAN_OF_MODELS}'")
    for row in shares.iter_rows(named=True):  # the test behind the VS ranking
        assert f"{row['dimension'].replace('_', ' ')} {fmt_percent(row['estimate'])}" in summary
    assert "5 scenarios per model" in summary and "differ most" not in summary


def test_summary_says_nothing_of_simulation_for_real_judges(report_study: Path, tmp_path: Path) -> None:
    path = tmp_path / "real.duckdb"
    shutil.copy(report_study, path)
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE model SET backend = 'transformers'")
    with Report.open(path, None, CATALOG) as report:
        summary = report.text("key_findings").text
    assert summary.startswith("- **RQ1**") and "imulated" not in summary


def test_placebo_sbs_keeps_its_sign_in_the_summary_and_table_n1(report_study: Path) -> None:
    stored = query(report_study, "SELECT * FROM result_noise_floor")
    with Report.open(report_study, None, CATALOG) as report:
        summary = report.text("noise_floor_summary").text
        shown = [row[1] for row in report.styled("noise_floor").texts()]
    pooled = stored.filter(pl.col("model_id") == POOLED).filter(pl.col("variation_value") == "(all placebos)")
    row = pooled.row(0, named=True)
    assert (
        f"the placebo SBS is {fmt_effect(row['estimate'], 4)} (95% CI "
        f"{fmt_ci(row['ci_low'], row['ci_high'], 4)}, which"
    ) in summary
    assert all(text[0] in "+−" for text in shown), shown
    assert sorted(shown) == sorted(fmt_effect(v, 4) for v in stored["estimate"])


def test_equivalence_tables_print_small_p_values_as_a_bound(report_study: Path) -> None:
    with Report.open(report_study, None, CATALOG) as report:
        rows = report.styled("equivalence").texts() + report.styled("vs_equivalence").texts()
    cells = [cell for row in rows for cell in row]
    assert "< 0.001" in cells  # the planted Worn / Distressed shift
    assert not any(re.fullmatch(r"[01]\.0000", cell) for cell in cells)


def test_notes_and_cells_use_display_names_not_stored_identifiers(report_study: Path) -> None:
    with Report.open(report_study, None, CATALOG) as report:
        notes = " ".join(report.styled("table9_significant").notes + report.styled("missing_shift").notes)
        dimensions = {row[0] for row in report.styled("vs_equivalence").texts()}
        summary = report.text("equivalence_summary").text
    assert "Kruskal–Wallis (age, body type, ethnicity)" in notes and "Mann–Whitney U (gender)" in notes
    assert "Wilcoxon signed-rank test" in notes
    assert not re.search(r"body_type|kruskal-wallis|mann-whitney|wilcoxon|\bbca\b", notes)
    assert dimensions == {"Age", "Gender", "Ethnicity", "Body type"}
    tested = query(
        report_study,
        "SELECT count(*) AS n FROM result_equivalence WHERE quantity = 'delta' "
        "AND level = 'variation_category' AND scenario_category IS NULL AND verdict IS NOT NULL",
    )["n"][0]
    assert f"Of the {tested} attribute × model SBS rows tested" in summary and "body_type" not in summary


def test_shifts_of_percentages_are_shown_in_percentage_points(report_study: Path) -> None:
    stored = query(
        report_study,
        "SELECT * FROM result_missing_shift WHERE dimension = '(all)' AND rate = 'invalid' "
        "AND model_id = 'm1' ORDER BY abs(estimate) DESC LIMIT 1",
    ).row(0, named=True)
    with Report.open(report_study, None, CATALOG) as report:
        table = report.styled("missing_shift")
    assert "Δ invalid (pp)" in table.labels and "Δ refusals (pp)" in table.labels
    column = table.labels.index("Δ invalid (pp)")
    row = next(r for r in table.texts() if r[0] == stored["variation_value"])
    assert row[column] == fmt_effect(100 * stored["estimate"], 2)
    assert row[column + 1] == fmt_ci(100 * stored["ci_low"], 100 * stored["ci_high"], 2)


def test_table3_says_why_its_columns_agree_only_when_groups_are_balanced(
    report_study: Path, tmp_path: Path
) -> None:
    faces = query(report_study, "SELECT gender, count(*) AS n FROM face GROUP BY gender")
    assert faces["n"].n_unique() > 1  # the simulated faces are not balanced ...
    with Report.open(report_study, None, CATALOG) as report:
        unbalanced = report.styled("table3_category")
    assert any(len(set(row[1:])) > 1 for row in unbalanced.texts())  # ... so the columns differ
    assert not any(note.startswith("The columns agree") for note in unbalanced.notes)
    path = tmp_path / "balanced.duckdb"  # the default study's design: equally many faces per group
    shutil.copy(report_study, path)
    with duckdb.connect(str(path)) as con:
        con.execute("UPDATE result_table3 SET n = 6 WHERE \"group\" <> '(mean of groups)'")
    with Report.open(path, None, CATALOG) as report:
        notes = report.styled("table3_category").notes
    assert any(note.startswith("The columns agree") for note in notes)
