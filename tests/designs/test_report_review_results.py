"""The paired (001), pairwise (002) and probe (004) reports after the D64 review's follow-ups: the
results ``cueshift analyze`` stores are shown, the scale regression's between-model terms say how
few models they rest on, the filtered-image set reads Fᵇ (not a literal caret) and the baselines
table drops the random-twin columns when no model has a twin.

Expected texts are built here from the stored rows (``cueshift.render`` formatters on what the
statistics engine wrote), or from an independent fit, never from the output being checked.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest

from cueshift.designs.paired.report import CATALOG as PAIRED
from cueshift.designs.pairwise.report import CATALOG as PAIRWISE
from cueshift.designs.probe.report import CATALOG as PROBE
from cueshift.designs.probe.report_structure import draw_matrices
from cueshift.render import (
    Catalog,
    FigureOutput,
    Report,
    TableOutput,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_pvalue,
)
from tests.designs.review_dbs import rows, styled_table


def test_paired_table6_writes_the_filtered_set_as_a_superscript_not_a_caret(
    design_dbs: dict[str, Path],
) -> None:
    styled = styled_table(design_dbs["paired"], PAIRED, "paired_table1")
    texts = [*styled.labels, *styled.notes]
    assert not [t for t in texts if "^" in t], "a caret shows literally in HTML and typst"
    assert "Stronger in filtered (Fᵇ)" in styled.labels
    assert any("filtered images (Fᵇ)" in note for note in styled.notes)


def test_probe_baselines_drop_the_twin_columns_when_no_model_has_a_twin(
    design_dbs: dict[str, Path], tmp_path: Path
) -> None:
    stored = rows(
        design_dbs["probe"], "SELECT count(random_similarity) AS k, count(*) AS n FROM result_probe_baselines"
    )
    assert stored[0]["k"] == 0 and stored[0]["n"] != 0, "the seed study runs no random twin"
    styled = styled_table(design_dbs["probe"], PROBE, "probe_baselines")
    assert "ρ random twin" not in styled.labels
    assert len(styled.labels) == len(PROBE.table("probe_baselines").columns) - 2  # ρ and its interval
    assert all(len(row) == len(styled.labels) for row in styled.rows)
    notes = " ".join(styled.notes)
    assert "No random twin was run" in notes and "ρ random twin:" not in notes
    # one model with a twin: the columns come back, blank for the models without one
    db = tmp_path / "probe.duckdb"
    shutil.copy(design_dbs["probe"], db)
    first = rows(db, "SELECT min(model_id) AS m FROM result_probe_baselines")[0]["m"]
    with duckdb.connect(str(db)) as con:
        con.execute(
            "UPDATE result_probe_baselines SET random_similarity = 0.125, random_low = 0.0, "
            "random_high = 0.25 WHERE model_id = ?",
            [first],
        )
    styled = styled_table(db, PROBE, "probe_baselines")
    j = styled.labels.index("ρ random twin")
    twin = [row[j].text for row, group in zip(styled.rows, styled.groups, strict=True) if group == first]
    assert twin and set(twin) == {fmt_number(0.125, 2)}
    notes = " ".join(styled.notes)
    assert "ρ random twin:" in notes and "No random twin was run" not in notes


def test_paired_shows_the_bias_within_each_group(design_dbs: dict[str, Path]) -> None:
    db = design_dbs["paired"]
    stored = rows(db, "SELECT * FROM result_paired_attractiveness_by_group WHERE test = 'kruskal-wallis'")
    alpha = float(str(rows(db, "SELECT max(alpha) AS a FROM result_paired_significance_share")[0]["a"]))
    largest: dict[tuple[object, ...], float] = {}
    for r in stored:
        key = (r["model_id"], r["dimension"], r["scenario_id"])
        if r["statistic"] is not None:
            largest[key] = max(largest.get(key, float("-inf")), float(str(r["statistic"])))
    expected: dict[tuple[str, str, str], list[int]] = {}
    for r in stored:
        counts = expected.setdefault((str(r["model_id"]), str(r["dimension"]), str(r["group"])), [0, 0, 0])
        counts[0] += r["p_adj"] is not None and float(str(r["p_adj"])) < alpha
        top = largest.get((r["model_id"], r["dimension"], r["scenario_id"]))
        counts[1] += r["statistic"] is not None and float(str(r["statistic"])) == top
        counts[2] += 1
    styled = styled_table(db, PAIRED, "paired_by_group")
    shown = {(row[0].text, row[1].text, row[2].text): [c.text for c in row[3:6]] for row in styled.rows}
    assert shown == {k: [fmt_integer(v) for v in c] for k, c in expected.items()}
    female, male = (expected[("sim-llava", "gender", g)][1] for g in ("female", "male"))
    assert female + male >= 91 and female > male  # the study plants the filter's shift in women
    with Report.open(db, None, PAIRED) as report:
        assert isinstance(report.figure("paired_by_group_h"), FigureOutput)


def test_pairwise_shows_bradley_terry_strengths_and_model_human_agreement(
    design_dbs: dict[str, Path],
) -> None:
    db = design_dbs["pairwise"]
    stored = rows(
        db,
        "SELECT b.*, b.stimulus_group = t.target_group AS target FROM result_pairwise_bradley_terry b "
        "JOIN (SELECT DISTINCT model_id, cohort, target_group FROM result_pairwise_cohort) t "
        "USING (model_id, cohort)",
    )
    cells: dict[tuple[str, str], dict[str, list[float]]] = {}
    for r in stored:
        cell = cells.setdefault((str(r["cohort"]), str(r["model_id"])), {"h": [], "lo": [], "t": [], "o": []})
        if r["term"] == "position":
            cell["h"], cell["lo"] = [float(str(r["estimate"]))], [float(str(r["ci_low"]))]
        else:
            cell["t" if r["target"] else "o"].append(float(str(r["estimate"])))
    styled = styled_table(db, PAIRWISE, "pairwise_bradley_terry")
    labels = styled.labels
    for row in styled.rows:
        cell = cells[(row[0].text, row[1].text)]
        assert row[labels.index("Position h")].text == fmt_effect(cell["h"][0], 2)
        assert row[labels.index("Mean θ target")].text == fmt_effect(sum(cell["t"]) / len(cell["t"]), 2)
        assert row[labels.index("Mean θ other")].text == fmt_effect(sum(cell["o"]) / len(cell["o"]), 2)
        assert row[labels.index("Portraits")].text == fmt_integer(len(cell["t"]) + len(cell["o"]))
    assert len(styled.rows) == len(cells)
    notes = " ".join(styled.notes)
    assert "95% CI" in labels and "Wald interval" in notes and "1 virtual game(s) per portrait" in notes
    agreement = styled_table(db, PAIRWISE, "pairwise_rating_model_human")
    stored = rows(db, "SELECT * FROM result_pairwise_rating_model_human ORDER BY attribute, model_id")
    assert [[c.text for c in row] for row in agreement.rows] == [
        [
            str(r["attribute"]),
            str(r["model_id"]),
            fmt_number(r["estimate"], 2),
            fmt_ci(r["ci_low"], r["ci_high"], 2),
            fmt_pvalue(r["p"]),
            fmt_effect(r["mean_difference"], 2),
            fmt_integer(r["n"]),
        ]
        for r in stored
    ]
    with Report.open(db, None, PAIRWISE) as report:
        assert isinstance(report.figure("pairwise_strengths"), FigureOutput)


def test_pairwise_shows_the_mean_rating_per_rater_cohort_and_group(design_dbs: dict[str, Path]) -> None:
    """Table 5b: ``result_pairwise_rating_summary`` (seed 002's means beside Fig. 6) on the page,
    right after the bins, humans first, with n, the rating scale and the t interval named."""
    db = design_dbs["pairwise"]
    stored = rows(db, "SELECT * FROM result_pairwise_rating_summary")
    assert {r["rater_kind"] for r in stored} == {"human", "model"}, "the seed study rates with both"
    stored.sort(
        key=lambda r: (
            r["rater"] != "(humans)",
            *(str(r[c]) for c in ("rater", "attribute", "cohort", "stimulus_group")),
        )
    )
    expected = [
        [
            str(r["rater"]),
            str(r["attribute"]),
            str(r["cohort"]),
            str(r["stimulus_group"]),
            fmt_number(r["estimate"], 2),
            fmt_ci(r["ci_low"], r["ci_high"], 2, signed=False),
            fmt_number(r["sd"], 2),
            fmt_integer(r["n"]),
            fmt_integer(r["n_invalid"]),
        ]
        for r in stored
    ]
    with Report.open(db, None, PAIRWISE) as report:
        table = report.table("pairwise_rating_summary")
    assert isinstance(table, TableOutput), "shown, not marked as not computed"
    styled = table.styled
    assert styled.title.startswith("Table 5b. Mean rating")
    assert list(styled.labels) == [
        "Rater",
        "Attribute",
        "Cohort",
        "Group",
        "Mean",
        "95% CI",
        "SD",
        "Ratings",
        "Invalid",
    ]
    assert [[c.text for c in row] for row in styled.rows] == expected
    notes = " ".join(styled.notes)
    assert "rating scale" in notes and "t interval of the mean" in notes and "Ratings: n" in notes
    html = table._repr_mimebundle_()["text/html"]
    assert "Table 5b. Mean rating per rater, cohort and portrait group" in html
    assert expected[0][5] in html and expected[-1][5] in html
    page = PAIRWISE.document_path.read_text(encoding="utf-8")
    bins, summary = (
        page.index('report.table("pairwise_rating_bins")'),
        page.index('report.table("pairwise_rating_summary")'),
    )
    assert bins < summary < page.index('report.table("pairwise_rating_reliability")')
    # --models keeps the human raters and the models named
    model = min(str(r["rater"]) for r in stored if r["rater_kind"] == "model")
    with Report.open(db, model, PAIRWISE) as report:
        kept = {row[0].text for row in report.styled("pairwise_rating_summary").rows}
    assert kept == {"(humans)", model}


def test_probe_shows_the_clusters_and_the_correlation_matrices(design_dbs: dict[str, Path]) -> None:
    db = design_dbs["probe"]
    clusters = rows(db, "SELECT * FROM result_probe_clusters")
    human = sorted(
        (r for r in clusters if r["source"] == "(humans)"), key=lambda r: int(str(r["leaf_order"]))
    )
    order = [str(r["attribute"]) for r in human]
    styled = styled_table(db, PROBE, "probe_clusters")
    sources = ["(humans)", *sorted({str(r["source"]) for r in clusters} - {"(humans)"})]
    assert list(styled.labels) == ["Attribute", *sources]
    assert [row[0].text for row in styled.rows] == order
    by = {(r["source"], r["attribute"]): r["cluster"] for r in clusters}
    for row in styled.rows:
        assert [c.text for c in row[1:]] == [fmt_integer(by[(s, row[0].text)]) for s in sources]
    # the figure's humans' panel is the stored matrix in the humans' dendrogram order
    correlations = {
        (r["attribute_a"], r["attribute_b"]): r["estimate"]
        for r in rows(db, "SELECT * FROM result_probe_correlations WHERE source = '(humans)'")
    }
    with Report.open(db, None, PROBE) as report:
        fig = draw_matrices(report)
    assert fig is not None
    shown = np.asarray(fig.axes[0].images[0].get_array())
    expected = np.array([[correlations[(a, b)] for b in order] for a in order], dtype=float)
    np.testing.assert_allclose(shown, expected)


def test_probe_regression_says_scale_rests_on_k_models_with_cluster_robust_se(
    design_dbs: dict[str, Path], tmp_path: Path
) -> None:
    db = design_dbs["probe"]
    stored = {r["term"]: r for r in rows(db, "SELECT * FROM result_probe_scale_regression")}
    models = rows(db, "SELECT count(DISTINCT model_id) AS k FROM result_probe_similarity")[0]["k"]
    assert {r["n_clusters"] for r in stored.values()} == {models}
    styled = styled_table(db, PROBE, "probe_scale_regression")
    se, cluster_se = styled.labels.index("SE"), styled.labels.index("Cluster SE (by model)")
    assert styled.labels[cluster_se + 1 :] == ("Cluster df", "Cluster p")
    names = {"Human IRR (split-half reliability)": "reliability", "Dataset size": "dataset_size"}
    names |= {"Total samples": "samples_seen", "Constant": "const"}
    for row in styled.rows:
        r = stored[names[row[0].text]]
        assert row[se].text == fmt_number(r["se"], 4)
        blank = r["cluster_se"] is None
        assert row[cluster_se].text == ("–" if blank else fmt_number(r["cluster_se"], 4))
        assert row[cluster_se + 1].text == ("–" if blank else fmt_number(r["cluster_df"], 1))
        assert row[cluster_se + 2].text == ("–" if blank else fmt_pvalue(r["cluster_p"]))
    notes = " ".join(styled.notes)
    assert "rest on k models, not N rows" in notes and f"k = {models} models (clusters)." in notes
    assert "CR2" in notes and "Satterthwaite" in notes and "Cameron & Miller" not in notes
    # the seed registry: only sim-2b-b saw 34B samples, so Total samples (and the constant) rest on it
    assert {t for t, r in stored.items() if r["cluster_reason"] is not None} == {"samples_seen", "const"}
    assert "Cluster columns blank for Total samples, Constant: CR2 undefined" in notes and "sim-2b-b" in notes
    assert "Caution: fewer than 4 effective degrees of freedom" in notes  # dataset size: df = 1
    many = tmp_path / "probe.duckdb"
    shutil.copy(db, many)
    with duckdb.connect(str(many)) as con:
        con.execute("UPDATE result_probe_scale_regression SET cluster_df = 12, cluster_reason = NULL")
    notes = " ".join(styled_table(many, PROBE, "probe_scale_regression").notes)
    assert "Caution" not in notes and "blank" not in notes


def test_probe_regression_shows_the_cluster_interval_at_the_stored_level(
    design_dbs_at_90: dict[str, Path],
) -> None:
    """Table 5 showed the cluster SE, df and p but not the stored cluster interval: it now stands
    beside the OLS interval, both headed with the level ``analyze`` stored (here 90 %)."""
    db = design_dbs_at_90["probe"]
    levels = rows(
        db,
        "SELECT DISTINCT confidence_level AS level FROM result_manifest "
        "WHERE name = 'probe_scale_regression'",
    )
    assert levels == [{"level": 0.9}]
    stored = rows(
        db, "SELECT term, ci_low, ci_high, cluster_ci_low, cluster_ci_high FROM result_probe_scale_regression"
    )
    by_label = {
        "Human IRR (split-half reliability)": "reliability",
        "Dataset size": "dataset_size",
        "Total samples": "samples_seen",
        "Constant": "const",
    }
    styled = styled_table(db, PROBE, "probe_scale_regression")
    ols, cluster = styled.labels.index("90% CI"), styled.labels.index("Cluster 90% CI")
    assert cluster == ols + 1
    expected = {str(r["term"]): r for r in stored}
    assert sorted(by_label[row[0].text] for row in styled.rows) == sorted(expected)
    defined = 0
    for row in styled.rows:
        r = expected[by_label[row[0].text]]
        assert row[ols].text == fmt_ci(r["ci_low"], r["ci_high"], 4)
        assert row[cluster].text == fmt_ci(r["cluster_ci_low"], r["cluster_ci_high"], 4)
        defined += r["cluster_ci_low"] is not None
    assert defined >= 2, "the seed study's reliability and dataset size terms have a cluster interval"
    notes = " ".join(styled.notes)
    assert "Cluster 90% CI: the t interval" in notes and "Satterthwaite df" in notes
    assert "95%" not in " ".join((*styled.labels, notes))


def test_probe_reproduces_table1_per_dataset_size(design_dbs: dict[str, Path], tmp_path: Path) -> None:
    db = design_dbs["probe"]
    stored = rows(db, "SELECT * FROM result_probe_size_summary")
    sizes = sorted({float(str(r["dataset_size"])) for r in stored}, reverse=True)
    styled = styled_table(db, PROBE, "probe_size_summary")
    assert [label for label, _, _ in styled.spanners] == ["2.32B", "407M", "80M"]
    assert list(styled.labels[1:]) == ["Mean", "SD", "Max"] * len(sizes)
    by = {(r["attribute"], r["dataset_size"]): r for r in stored}
    for row in styled.rows:
        cells = [by[(row[0].text, size)] for size in sizes]
        expected = [
            fmt_number(r[c], 2) if r[c] is not None else "–" for r in cells for c in ("estimate", "sd", "max")
        ]
        assert [c.text for c in row[1:]] == expected
    top = [float(str(by[(row[0].text, sizes[0])]["estimate"])) for row in styled.rows]
    assert top == sorted(top, reverse=True)  # the paper's order: the largest size's mean, descending
    assert "Models per size: 2.32B: 2, 407M: 1, 80M: 1." in styled.notes
    with Report.open(db, None, PROBE) as report:
        assert not report.has("result_probe_size_effect")  # one model at 407M and at 80M: no d
    copy = tmp_path / "probe.duckdb"
    shutil.copy(db, copy)
    with duckdb.connect(str(copy)) as con:
        con.execute(
            "CREATE TABLE result_probe_size_effect AS SELECT * FROM (VALUES "
            "('happy', 2.32e9, 4.07e8, 1.54, 3.1, 4.0, 0.036, 3, 3, 'student-t'), "
            "('happy', 4.07e8, 8e7, -0.84, -1.5, 4.0, 0.21, 3, 3, 'student-t')) "
            "AS t(attribute, size_a, size_b, estimate, statistic, df, p, n_a, n_b, test)"
        )
    effect = styled_table(copy, PROBE, "probe_size_effect")
    assert list(effect.labels) == ["Attribute", "2.32B–407M", "407M–80M"]
    assert [c.text for c in effect.rows[0]] == ["happy", fmt_effect(1.54, 2), fmt_effect(-0.84, 2)]
    assert effect.rows[0][2].underline and not effect.rows[0][1].underline  # p ≥ 0.05 underlined
    assert "n: 6 models per comparison." in effect.notes


#: A 95 % interval level in a label, note or caption ("95% CI", "95 % interval"; not "95th").
_NINETY_FIVE = re.compile(r"95\s?%")
_CATALOGS = {"paired": PAIRED, "pairwise": PAIRWISE, "probe": PROBE}


@pytest.mark.parametrize("design", sorted(_CATALOGS))
def test_an_analysis_at_90_names_no_95_percent_anywhere_in_the_report(
    design_dbs_at_90: dict[str, Path], design: str
) -> None:
    """Every table's title, headers, spanners and notes, every text, every figure's axes and the
    document's captions, and the console of ``analyze``, after an analysis at 90 %: a label that
    wrote a literal level instead of the stored one shows "95%" here."""
    db, catalog = design_dbs_at_90[design], _CATALOGS[design]
    assert rows(db, "SELECT DISTINCT confidence_level AS level FROM result_manifest") == [{"level": 0.9}]
    shown = _report_words(db, catalog)
    qmd = (Path(__file__).parents[2] / "reports" / f"{design}.qmd").read_text(encoding="utf-8")
    shown["document"] = qmd
    shown["console"] = (db.parent / "console.txt").read_text(encoding="utf-8")
    assert not {key: text for key, text in shown.items() if _NINETY_FIVE.search(text)}
    assert not [key for key, text in shown.items() if "{level}" in text or "{ci_level}" in text]
    assert sum("90%" in text for text in shown.values()) >= 2, "the stored level is shown"


def _report_words(db: Path, catalog: Catalog) -> dict[str, str]:
    """The words of every table, text and figure of ``catalog`` the database fills, by key."""
    shown: dict[str, str] = {}
    with Report.open(db, None, catalog) as report:
        for spec in catalog.tables:
            if not report.missing(spec.requires):
                styled = report.styled(spec.key)
                shown[spec.key] = " | ".join(
                    (styled.title, *styled.labels, *(s[0] for s in styled.spanners), *styled.notes)
                )
        for text in catalog.texts:
            if not report.missing(text.requires):
                shown[text.key] = text.write(report)
        for figure in catalog.figures:
            drawn = None if report.missing(figure.requires) else figure.draw(report)
            if drawn is not None:
                shown[figure.key] = " | ".join(
                    t for ax in drawn.axes for t in (ax.get_xlabel(), ax.get_ylabel(), ax.get_title())
                )
    return shown
