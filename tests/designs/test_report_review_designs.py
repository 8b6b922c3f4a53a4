"""What a reviewer reads in the paired (001), pairwise (002) and probe (004) reports (D64): every
table labelled and numbered in page order, each p column saying whether it is adjusted, the n behind
each test, the paper's names and column order, zero counts as 0, a split spread not called an
interval, and no title citing a paper table it does not reproduce.

Expected texts are built here from the stored rows (``cueshift.render`` formatters on what the
statistics engine wrote) or from the report sources, never from the output being checked.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pytest

from cueshift.designs.paired.report import CATALOG as PAIRED
from cueshift.designs.pairwise.report import CATALOG as PAIRWISE
from cueshift.designs.probe.report import CATALOG as PROBE
from cueshift.render import (
    MarkdownOutput,
    Report,
    Styled,
    fmt_ci,
    fmt_integer,
    fmt_number,
    fmt_percent,
    fmt_pvalue,
)
from tests.designs.review_dbs import rows, styled_table

CATALOGS = {"paired": PAIRED, "pairwise": PAIRWISE, "probe": PROBE}
_CALL = re.compile(r"report\.table\(\"([^\"]+)\"\)")
_LABEL = re.compile(r"^Table (\d+)([a-z]?)\. ")


_rows = rows


def _column(styled: Styled, label: str) -> list[str]:
    j = styled.labels.index(label)
    return [row[j].text for row in styled.rows]


@pytest.mark.parametrize("design", sorted(CATALOGS))
def test_tables_are_labelled_and_numbered_in_page_order(design: str) -> None:
    catalog = CATALOGS[design]
    order = _CALL.findall(catalog.document_path.read_text(encoding="utf-8"))
    titles = {t.key: t.title for t in catalog.tables}
    assert sorted(order) == sorted(titles), "every declared table is shown once"
    labels = []
    for key in order:
        match = _LABEL.match(titles[key])
        assert match, f"no 'Table N.' label a reviewer can cite: {titles[key]!r}"
        labels.append((int(match.group(1)), match.group(2)))
    assert len(set(labels)) == len(labels), labels
    assert labels == sorted(labels), labels  # in the order of the page
    assert sorted({n for n, _ in labels}) == list(range(1, max(n for n, _ in labels) + 1))


def test_no_label_is_skipped_where_an_optional_table_is_absent() -> None:
    """A lettered table that only some studies compute comes last among its letters, so a study
    without it shows 4, 4b, not 4, 4c (the probe's structure ANOVA was 4b before the clusters' 4c)."""
    for catalog in CATALOGS.values():
        order = _CALL.findall(catalog.document_path.read_text(encoding="utf-8"))
        specs = {t.key: t for t in catalog.tables}
        for optional in (key for key in order if specs[key].optional):
            match = _LABEL.match(specs[optional].title)
            assert match, optional
            later = [
                key
                for key in order[order.index(optional) + 1 :]
                if (m := _LABEL.match(specs[key].title)) and int(m.group(1)) == int(match.group(1))
            ]
            assert all(specs[key].optional for key in later), (optional, later)


@pytest.mark.parametrize("correction", ["none", "bh"])
def test_paired_p_notes_say_the_stored_correction_and_the_images_per_test(
    design_dbs: dict[str, Path], tmp_path: Path, correction: str
) -> None:
    db = tmp_path / "paired.duckdb"
    shutil.copy(design_dbs["paired"], db)
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE result_paired_attractiveness SET correction = ?", [correction])
    expected = "unadjusted, as in the paper" if correction == "none" else "Benjamini–Hochberg adjusted"
    keys = (
        "paired_share",
        "paired_halo",
        "paired_gender_jobs",
        "paired_race_jobs",
        "paired_table1",
        "paired_strongest",
    )
    for key in keys:
        notes = " ".join(styled_table(db, PAIRED, key).notes)
        assert f"p: {expected}" in notes, (key, notes)
    halo = _rows(db, "SELECT min(n) AS lo, max(n) AS hi FROM result_paired_halo")[0]
    span = str(halo["lo"]) if halo["lo"] == halo["hi"] else f"{halo['lo']}–{halo['hi']}"
    assert f"n: {span} images per test" in " ".join(styled_table(db, PAIRED, "paired_halo").notes)
    race = _rows(db, "SELECT min(n) AS n FROM result_paired_race_jobs")[0]["n"]
    assert f"n: {race} images per test" in " ".join(styled_table(db, PAIRED, "paired_race_jobs").notes)


def test_paired_table1_has_the_papers_columns_and_zero_counts_as_zero(design_dbs: dict[str, Path]) -> None:
    styled = styled_table(design_dbs["paired"], PAIRED, "paired_table1")
    outcomes = ["stronger in original", "stronger in filtered", "no impact"]
    assert styled.labels[-3:] == ("Stronger in originals (F)", "Stronger in filtered (Fᵇ)", "No impact")
    stored = _rows(design_dbs["paired"], "SELECT * FROM result_paired_attractiveness_vs_demographic")
    counts = {(r["dimension"], r["outcome"]): r["n_scenarios"] for r in stored}
    totals = {r["dimension"]: r["n"] for r in stored}
    assert len(counts) < 3 * len(totals), "the check needs an outcome no scenario has"
    for row in styled.rows:
        dimension = row[1].text
        assert row[2].text == fmt_integer(totals[dimension])
        assert [c.text for c in row[3:]] == [fmt_integer(counts.get((dimension, o), 0)) for o in outcomes]


def test_pairwise_names_bh_p_alike_and_shows_the_trials_and_ratings_counted(
    design_dbs: dict[str, Path],
) -> None:
    db = design_dbs["pairwise"]
    for key in ("pairwise_cohort", "pairwise_group_effect"):
        styled = styled_table(db, PAIRWISE, key)
        assert "q (BH)" in styled.labels and "p (BH)" not in styled.labels, key
        assert any("q (BH): Benjamini–Hochberg" in note for note in styled.notes), key
    effect = styled_table(db, PAIRWISE, "pairwise_group_effect")
    stored = _rows(db, "SELECT * FROM result_pairwise_group_effect ORDER BY cohort, model_id")
    assert _column(effect, "n") == [fmt_integer(r["n"]) for r in stored]
    position = styled_table(db, PAIRWISE, "pairwise_position")
    stored = _rows(db, "SELECT * FROM result_pairwise_position ORDER BY model_id")
    assert _column(position, "k") == [fmt_integer(r["k"]) for r in stored]
    assert _column(position, "n") == [fmt_integer(r["n"]) for r in stored]
    assert any("exact two-sided binomial test" in note for note in position.notes)
    bins = styled_table(db, PAIRWISE, "pairwise_rating_bins")
    stored = _rows(
        db,
        "SELECT rater, cohort, max(n) AS n, rater = '(humans)' AS humans FROM result_pairwise_rating_bins "
        "GROUP BY rater, cohort ORDER BY humans DESC, rater, cohort",
    )
    assert _column(bins, "Ratings") == [fmt_integer(r["n"]) for r in stored]


def test_probe_split_spread_is_not_called_an_interval(design_dbs: dict[str, Path]) -> None:
    styled = styled_table(design_dbs["probe"], PROBE, "probe_reliability")
    assert "Splits 2.5–97.5%" in styled.labels
    notes = " ".join(styled.notes)
    assert "not a confidence interval" in notes
    splits = _rows(design_dbs["probe"], "SELECT max(n_splits) AS n FROM result_probe_reliability")[0]["n"]
    assert f"{splits} random splits per attribute" in notes


def test_probe_titles_cite_only_the_paper_tables_they_reproduce() -> None:
    titles = {t.key: t.title for t in PROBE.tables}
    # seed 004 Table 1 is mean (SD), maximum and Cohen's d per dataset size, not per-model ρ
    assert "Table 1)" not in titles["probe_similarity"] and "Table 1," not in titles["probe_similarity"]
    assert "seed 004 Table 2" in titles["probe_scale_regression"]


def test_probe_regression_reads_as_the_papers_table2(design_dbs: dict[str, Path]) -> None:
    styled = styled_table(design_dbs["probe"], PROBE, "probe_scale_regression")
    names = {
        "reliability": "Human IRR (split-half reliability)",
        "dataset_size": "Dataset size",
        "samples_seen": "Total samples",
        "const": "Constant",
    }
    stored = {r["term"]: r for r in _rows(design_dbs["probe"], "SELECT * FROM result_probe_scale_regression")}
    order = [t for t in names if t in stored]  # the paper's order, the constant last
    assert [row[0].text for row in styled.rows] == [names[t] for t in order]
    for row, term in zip(styled.rows, order, strict=True):
        r = stored[term]
        assert row[1].text == fmt_number(r["estimate"], 4)
        assert row[2].text == fmt_ci(r["ci_low"], r["ci_high"], 4)  # as many decimals as the coefficient
        assert row[styled.labels.index("p")].text == fmt_pvalue(r["p"])
    assert any("OLS" in note and "t intervals" in note for note in styled.notes)


def test_probe_structure_anova_is_shown_when_analyze_computed_it(
    design_dbs: dict[str, Path], tmp_path: Path
) -> None:
    with Report.open(design_dbs["probe"], None, PROBE) as report:
        assert not report.has("result_probe_structure_anova")  # one model per size but 2B: not computed
        shown = report.table("probe_structure_anova")
        assert isinstance(shown, MarkdownOutput) and shown.text == ""  # left out, no note
    db = tmp_path / "probe.duckdb"
    shutil.copy(design_dbs["probe"], db)
    with duckdb.connect(str(db)) as con:
        con.execute(
            "CREATE TABLE result_probe_structure_anova AS SELECT 'anova-F' AS test, 15.71 AS statistic, "
            "2.0 AS df, 24.0 AS df_resid, 4.2e-5 AS p, 27 AS n"
        )
    styled = styled_table(db, PROBE, "probe_structure_anova")
    assert [c.text for c in styled.rows[0]] == ["anova-F", "15.71", "2", "24", fmt_pvalue(4.2e-5), "27"]


def test_pairwise_shows_the_papers_per_image_win_rates(design_dbs: dict[str, Path]) -> None:
    db = design_dbs["pairwise"]
    styled = styled_table(db, PAIRWISE, "pairwise_stimulus")
    stored = _rows(
        db,
        "SELECT s.* FROM result_pairwise_stimulus s JOIN (SELECT DISTINCT model_id, cohort, target_group "
        "FROM result_pairwise_cohort) t USING (model_id, cohort) WHERE s.stimulus_group = t.target_group "
        "ORDER BY s.cohort, s.model_id, s.image_id",
    )
    models = sorted({str(r["model_id"]) for r in stored})
    assert [label for label, _, _ in styled.spanners] == models
    expected: dict[str, list[str]] = {}
    for r in stored:
        expected.setdefault(str(r["cohort"]), []).append(fmt_percent(r["estimate"], 0))
    assert {row[0].text: [c.text for c in row[1:]] for row in styled.rows} == expected
    low, high = min(int(str(r["n"])) for r in stored), max(int(str(r["n"])) for r in stored)
    span = str(low) if low == high else f"{low}–{high}"
    assert f"n: {span} valid trials per portrait." in styled.notes
