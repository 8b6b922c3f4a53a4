"""The second report review: every stored interval and degree of freedom shown in the house form
(``[a, b]``, F's two dfs), the notes' faces per group and tested cells, one count of sign reversals
shared by the console and the report, signed shifts, and supplementary tables in number order.

Expected texts are built here from the stored rows with ``cueshift.render``'s plain formatters
(``fmt_number``, ``fmt_ci``, ``fmt_effect``), never from the report output being checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.render import Report, ci_label, fmt_ci, fmt_effect, fmt_number
from cueshift.schemas.invariance import INVARIANCE_LEVEL
from cueshift.stats import MEAN_OF_MODELS
from tests.designs.report_db import query
from tests.table_order import MAIN, SUPPLEMENTARY, document_titles, misplaced


def _faces_per_group(path: Path, dimension: str) -> str:
    """``gender 16 male, 14 female`` or ``age 10 per group (3 groups)``, counted from the face table."""
    faces = query(
        path,
        f"SELECT DISTINCT f.face_id, f.{dimension} AS g FROM face f JOIN image m "
        f"ON m.face_id = f.face_id AND m.role = 'base' WHERE f.{dimension} IS NOT NULL",
    )
    counts = faces.group_by("g").len().sort(["len", "g"], descending=[True, False])
    label = dimension.replace("_", " ")
    if counts["len"].n_unique() == 1:
        return f"{label} {counts['len'][0]} per group ({counts.height} groups)"
    return label + " " + ", ".join(f"{n} {g}" for g, n in counts.iter_rows())


def test_table2_shows_each_vs_with_its_stored_interval_method_and_faces(report_study: Path) -> None:
    stored = query(report_study, "SELECT * FROM result_table2_vs")
    with Report.open(report_study, None, CATALOG) as report:
        table = report.styled("table2_vs")
    shown = {row[0]: dict(zip(table.labels[1:], row[1:], strict=True)) for row in table.texts()}
    labels = {"age": "Age", "gender": "Gender", "ethnicity": "Ethnicity", "body_type": "Body type"}
    for r in stored.filter(pl.col("model_id") != MEAN_OF_MODELS).iter_rows(named=True):
        expected = f"{fmt_number(r['estimate'])} {fmt_ci(r['ci_low'], r['ci_high'], 3, signed=False)}"
        assert shown[r["model_id"]][labels[r["dimension"]]] == expected
    notes = " ".join(table.notes)
    assert "VS [95% CI]" in notes and "confidence ball" in notes and "not a bootstrap" in notes
    for dimension in labels:
        assert _faces_per_group(report_study, dimension) in notes, dimension


def test_table10_shows_both_degrees_of_freedom_as_the_console(report_study: Path) -> None:
    stored = query(
        report_study,
        "SELECT statistic, df, df_resid FROM result_mixed_model WHERE test = 'wald-F' "
        "UNION ALL SELECT statistic, df, df_resid FROM result_face_anova",
    )
    with Report.open(report_study, None, CATALOG) as report:
        table = report.styled("table10_eta")
    shown = {(row[1], row[2]) for row in table.texts()}
    for r in stored.iter_rows(named=True):  # the console's F(df, df_resid)
        assert (f"{r['df']:.0f}, {r['df_resid']:.0f}", fmt_number(r["statistic"], 2)) in shown, r
    assert any("denominator" in note for note in table.notes)


def test_table4_shows_the_contrast_interval_in_one_column(report_study: Path) -> None:
    stored = query(report_study, "SELECT * FROM result_table4 WHERE \"group\" = 'elderly - young adult'")
    assert stored.height
    with Report.open(report_study, None, CATALOG) as report:
        table = report.styled("table4_fashion_age")
    assert table.labels[-2:] == ("E − Y", "E − Y 95% CI")
    shown = {row[0]: row for row in table.texts()}
    for r in stored.iter_rows(named=True):
        assert shown[r["variation_value"]][-1] == fmt_ci(r["ci_low"], r["ci_high"], 3)


def test_shifts_in_the_invariance_and_audit_tables_keep_their_sign() -> None:
    from cueshift.designs.stylisticbias.report.audit import AUDIT_SENSITIVITY
    from cueshift.designs.stylisticbias.report.invariance import INVARIANCE

    invariance = INVARIANCE.build(
        pl.DataFrame(
            {
                "model_id": ["m"],
                "comparison": ["one at a time"],
                "share_identical": [0.98],
                "n": [200],
                "kappa": [0.95],
                "phi_diff": [-0.0123],
                "phi_diff_ci_low": [-0.021],
                "phi_diff_ci_high": [0.004],
                "verdict": ["ok"],
            }
        )
    )
    row = dict(zip(invariance.labels, invariance.texts()[0], strict=True))
    assert row["Δφ"] == fmt_effect(-0.0123) and row[ci_label(INVARIANCE_LEVEL)] == fmt_ci(-0.021, 0.004)
    assert "95 %" not in " ".join((*invariance.labels, *invariance.notes))
    sbs = {name: [-0.0412] for name in ("all_sbs", "audited_sbs", "adjusted_sbs", "bound_sbs")}
    change = {"change_audited": [0.0051], "change_adjusted": [-0.0007]}
    bounds = {
        f"{s}_ci_{e}": [-0.05] if e == "low" else [0.01]
        for s in ("all", "audited", "adjusted")
        for e in ("low", "high")
    }
    audit = AUDIT_SENSITIVITY.build(
        pl.DataFrame(
            {
                "model": ["m"],
                "feature_key": ["Fashion"],
                **sbs,
                **change,
                **bounds,
                "n_variations": [10],
                "n_failed": [1],
                "p": [0.3],
                "rv": [0.1],
                "rv_alpha": [0.02],
            }
        )
    )
    row = dict(zip(audit.labels, audit.texts()[0], strict=True))
    for label in ("SBS (all)", "SBS (audited)", "SBS (adjusted)", "SBS (1× probe)"):
        assert row[label] == fmt_effect(-0.0412, 4), label
    assert row["Δ audited"] == fmt_effect(0.0051, 4) and row["Δ adjusted"] == fmt_effect(-0.0007, 4)


def _reversal_counts(path: Path) -> str:
    """The pooled sign-reversal counts per dimension, counted here from ``result_table11``."""
    stored = query(path, "SELECT * FROM result_table11")
    parts = []
    for dimension in ("age", "gender", "ethnicity", "body_type"):
        rows = stored.filter(pl.col("dimension") == dimension)

        def values(condition: pl.Expr, rows: pl.DataFrame = rows) -> int:
            return rows.filter(condition)["variation_value"].n_unique()

        counts = (
            values(pl.col("sign_reversal_both").fill_null(False)),
            values(pl.col("reversal_evidence") == "difference significant"),
            values(pl.col("reversal_evidence") == "not distinguishable"),
        )
        if sum(counts):
            parts.append(
                f"{dimension.replace('_', ' ')}: {counts[0]} with evidence (both sides significant), "
                f"{counts[1]} difference only (signs not shown), {counts[2]} not distinguishable"
            )
    assert parts  # the simulated study has sign changes to count
    return "; ".join(parts)


def test_table11_note_and_console_print_the_same_pooled_reversal_counts(
    report_study: Path, tmp_path: Path
) -> None:
    import io
    import shutil

    import duckdb
    from rich.console import Console

    from cueshift.designs.stylisticbias.console import print_headlines

    path = tmp_path / "reversals.duckdb"  # the simulated groups never change sign: plant one of each kind
    shutil.copy(report_study, path)
    with duckdb.connect(str(path)) as con:
        for value, dimension, evidence in (
            ("Acne", "gender", "both significant"),
            ("Beanie", "gender", "difference significant"),
            ("Beanie", "age", "not distinguishable"),
        ):
            con.execute(
                "UPDATE result_table11 SET reversal_evidence = ?, sign_reversal_both = ? "
                "WHERE variation_value = ? AND dimension = ?",
                [evidence, evidence == "both significant", value, dimension],
            )
    report_study = path
    expected = _reversal_counts(report_study)
    with Report.open(report_study, None, CATALOG) as report:
        notes = " ".join(report.styled("table11_demographic").notes)
    assert f"pooled over models, as cueshift analyze prints them; per model: Table 11b): {expected}." in notes
    buffer = io.StringIO()
    with duckdb.connect(str(report_study), read_only=True) as con:
        print_headlines(con, Console(file=buffer, width=2000))
    said = " ".join(buffer.getvalue().split())
    assert f"(Table 11; variation values pooled over models): {expected}" in said
    cells = query(
        report_study, "SELECT count(p_adj) AS k, min(n) AS lo, max(n) AS hi FROM result_table11"
    ).row(0)
    assert f"Cells tested: {cells[0]:,} (variation value × group" in notes
    assert f"faces per cell (the group's faces with the variation): {cells[1]} to {cells[2]}" in notes


def _headlines(path: Path) -> str:
    import io

    import duckdb
    from rich.console import Console

    from cueshift.designs.stylisticbias.console import print_headlines

    buffer = io.StringIO()
    with duckdb.connect(str(path), read_only=True) as con:
        print_headlines(con, Console(file=buffer, width=2000))
    return buffer.getvalue()


def test_the_console_says_the_judges_are_simulated_as_the_report_does(
    report_study: Path, tmp_path: Path
) -> None:
    import shutil

    import duckdb

    warning = (
        "m1, m2 use a simulated backend (a seeded generative judge with planted effects): the numbers "
        "test the pipeline and the statistics and say nothing about any real model."
    )
    said = _headlines(report_study).splitlines()
    assert said[0] == f"Simulated judges. {warning}"
    with Report.open(report_study, None, CATALOG) as report:
        preamble = report.preamble().text
    assert warning.replace("m1, m2", "`m1`, `m2`") in preamble
    real = tmp_path / "real.duckdb"
    shutil.copy(report_study, real)
    with duckdb.connect(str(real)) as con:
        con.execute("UPDATE model SET backend = 'transformers'")
    assert "imulated" not in _headlines(real)


def test_supplementary_tables_appear_in_number_order() -> None:
    """Tables S1, S2, ... in the order ``study.qmd`` shows them (a lettered table, S12b, after its own)."""
    import re

    text = CATALOG.document_path.read_text(encoding="utf-8")
    sections = dict(CATALOG.sections)
    titles = {t.key: t.title for t in CATALOG.tables}
    shown = []
    for kind, key in re.findall(r'report\.(table|section)\("([^"]+)"\)', text):
        shown += [key] if kind == "table" else [k for k in sections[key] if k in titles]
    numbers = [
        (int(m.group(1)), m.group(2))
        for key in shown
        if (m := re.match(r"Table S(\d+)([a-z]?)\. ", titles[key]))
    ]
    assert numbers == sorted(numbers), numbers
    assert sorted({n for n, _ in numbers}) == list(range(1, len({n for n, _ in numbers}) + 1))


def test_main_tables_appear_in_number_order_each_companion_after_its_table() -> None:
    """Tables 2, 2b, 3, 3b, 3c, 4, 5, 9, 9b, 10, 11, 11b, 11c in the order ``study.qmd`` shows them
    (D65; were 2, 9, 10, 11c, 3c, 2b, 9b, 3b, 11b, 3, 4, 11, 5, the companions unlettered)."""
    titles = document_titles(CATALOG)
    assert misplaced(titles) == []
    assert misplaced(titles, SUPPLEMENTARY) == []  # D59 still holds
    shown = [f"{m.group(1)}{m.group(2)}" for t in titles if (m := MAIN.match(t))]
    assert shown == ["2", "2b", "3", "3b", "3c", "4", "5", "9", "9b", "10", "11", "11b", "11c"]
    # every table carries its own label, the per-model and crossed versions too (D54)
    unlabelled = [t.title for t in CATALOG.tables if not re.match(r"Table [A-Z]*\d+[a-z]?\. ", t.title)]
    assert unlabelled == []


def test_only_simulated_judges_ask_for_a_running_pdf_header(report_study: Path, tmp_path: Path) -> None:
    import shutil

    import duckdb

    with Report.open(report_study, None, CATALOG) as report:
        simulated = report.preamble().text
    assert '#metadata("Simulated judges (m1, m2): the numbers say nothing about real models")' in simulated
    real = tmp_path / "real.duckdb"
    shutil.copy(report_study, real)
    with duckdb.connect(str(real)) as con:
        con.execute("UPDATE model SET backend = 'transformers'")
    with Report.open(real, None, CATALOG) as report:
        assert "#metadata" not in report.preamble().text
