"""Notes name the test and interval that made their table (cueshift.render._methods): a StylisticBias
study analysed with ``--test permutation --ci percentile`` reads "sign-flip permutation test",
"label-permutation test" and "percentile" in the report's notes, texts and the console, never
"WSRT" or "BCa"; the default study keeps its words. Tests the options do not switch (Table 11's
Mann–Whitney U of sign reversals, Table 10's percentile intervals) keep theirs in both.

The expected words follow from what the statistics engine stored in each table's own ``test`` and
``ci_method`` columns (checked first), not from the report being checked. A study whose tables were
analysed in separate runs with different tests names each table's own test in its notes.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest
from rich.console import Console

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.console import print_headlines
from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.render import (
    Report,
    StoredMethods,
    TableMethods,
    by_ci_method,
    by_test,
    fill_methods,
    scoped,
    stored_methods,
)
from cueshift.stats import Resampling
from tests.designs.report_db import build_analysed_study, query, shared_analysed_study

_NOTE = (
    by_test(rank="WSRT", permutation="sign-flip permutation test")
    + ", "
    + by_ci_method(bca="BCa", percentile="percentile")
)
#: The default run's words, which no note of a permutation + percentile study may say.
_DEFAULT_WORDS = re.compile(r"WSRT|BCa|Wilcoxon|signed-rank|Kruskal")
_PLACEHOLDER = re.compile(r"\{(test|ci_method)\?")


@pytest.fixture(scope="module")
def permutation_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("permutation")
    return build_analysed_study(folder / "study.duckdb", test="permutation", ci_method="percentile")


@pytest.fixture(scope="module")
def default_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_analysed_study(tmp_path_factory)


def _notes(path: Path) -> dict[str, str]:
    """Every computed table's notes and every text, by key."""
    shown: dict[str, str] = {}
    with Report.open(path, None, CATALOG) as report:
        for spec in CATALOG.tables:
            if not report.missing(spec.requires):
                shown[spec.key] = " ".join(report.styled(spec.key).notes)
        for text in CATALOG.texts:
            if not report.missing(text.requires):
                shown[text.key] = text.write(report)
    return shown


def test_a_placeholder_takes_the_words_of_the_recorded_method() -> None:
    assert fill_methods(_NOTE, StoredMethods(("permutation",), ("percentile",))) == (
        "sign-flip permutation test, percentile"
    )
    assert fill_methods(_NOTE, StoredMethods(("rank",), ("bca",))) == "WSRT, BCa"
    assert fill_methods(_NOTE, StoredMethods()) == "WSRT, BCa"  # an older manifest: analyze's defaults
    with pytest.raises(ValueError, match="'a|b'"):
        by_test(rank="a|b", permutation="c")
    with pytest.raises(ValueError, match="'a,b'"):
        by_test(rank="a", permutation="c", tables=("a,b",))


def test_a_placeholder_reads_the_methods_of_its_own_tables() -> None:
    """Tables of separate runs: a placeholder scoped to some tables says theirs; one on tables whose
    methods differ names each table's (it said "WSRT or sign-flip permutation test")."""
    runs = StoredMethods(
        rows=(
            TableMethods("result_a", "rank", "bca"),
            TableMethods("result_b", "permutation", "percentile"),
            TableMethods("result_c", "rank", "bca"),
        )
    )
    assert fill_methods(scoped(_NOTE, "result_b"), runs) == "sign-flip permutation test, percentile"
    assert fill_methods(scoped(_NOTE, "result_a", "result_c"), runs) == "WSRT, BCa"
    assert fill_methods(_NOTE, runs) == (
        "WSRT (result_a, result_c) and sign-flip permutation test (result_b), "
        "BCa (result_a, result_c) and percentile (result_b)"
    )
    assert fill_methods(scoped(_NOTE, "result_x"), runs) == "WSRT, BCa"  # no row: analyze's defaults
    scoped_note = by_test(rank="WSRT", permutation="sign-flip", tables=("result_b",))
    assert fill_methods(scoped_note, runs) == "sign-flip"
    assert fill_methods(scoped_note, StoredMethods(("rank",))) == "WSRT"  # one run: its test


def test_the_methods_are_read_per_table(tmp_path: Path) -> None:
    with duckdb.connect(str(tmp_path / "m.duckdb")) as con:
        con.execute('CREATE TABLE result_manifest ("table" VARCHAR)')
        assert stored_methods(con, ("result_sbs",)) == StoredMethods()  # columns not recorded
        con.execute(
            'CREATE OR REPLACE TABLE result_manifest ("table" VARCHAR, test VARCHAR, ci_method VARCHAR)'
        )
        con.execute(
            "INSERT INTO result_manifest VALUES ('result_a', 'permutation', 'percentile'), "
            "('result_b', 'rank', 'bca')"
        )
        a = TableMethods("result_a", "permutation", "percentile")
        assert stored_methods(con, ("result_a",)) == StoredMethods(("permutation",), ("percentile",), (a,))
        assert stored_methods(con) == StoredMethods(
            ("permutation", "rank"), ("bca", "percentile"), (a, TableMethods("result_b", "rank", "bca"))
        )


def test_the_permutation_study_stored_sign_flips_and_percentile_intervals(permutation_study: Path) -> None:
    sbs = query(permutation_study, "SELECT DISTINCT test, ci_method FROM result_sbs")
    assert sbs.rows() == [("sign-flip", "percentile")]
    contrast = query(
        permutation_study, "SELECT DISTINCT test FROM result_table4 WHERE \"group\" LIKE '% - %'"
    )
    assert contrast["test"].to_list() == ["label-permutation"]


def test_notes_name_the_permutation_tests_and_percentile_intervals(permutation_study: Path) -> None:
    notes = _notes(permutation_study)
    assert not {k: n for k, n in notes.items() if _DEFAULT_WORDS.search(n)}
    assert not {k: n for k, n in notes.items() if _PLACEHOLDER.search(n)}
    assert "test: sign-flip permutation test on per-face mean Δ" in notes["table3_category"]
    assert "with a label-permutation test of their per-face means" in notes["table4_fashion_age"]
    assert "the analysis' CI method, percentile)" in notes["table4_fashion_age"]
    assert "one-sided sign-flip permutation test that the unfavorable" in notes["negativity_asymmetry"]
    assert "Face-level sign-flip permutation test, BH over all cells" in notes["table11_demographic"]
    assert (
        "face-level percentile bootstrap CI, which should contain 0; p: two-sided sign-flip"
        in notes["noise_floor"]
    )
    assert "passes: one-sided sign-flip permutation test of that" in notes["noise_floor_attributes"]
    assert "sign-flip permutation test on the per-face differences" in notes["model_differences_pairs"]
    assert "CI: face-clustered percentile bootstrap." in notes["model_differences_pairs"]
    assert "(sign-flip permutation test, BH within model over scenarios" in notes["model_reversals"]
    assert "CI: face-level percentile bootstrap." in notes["table5_models"]
    assert "Crossed dimensions: label-permutation test over the crossed groups," in notes["table9_crossed"]
    assert "a two-sided sign-flip permutation test cannot reach" in notes["table11_crossed"]
    assert "(Table 9: label-permutation test, BH" in notes["key_findings"]
    assert (
        "(face-level percentile bootstrap CI; sign-flip permutation test on per-face mean Δ"
        in (notes["key_findings"])
    )
    # not switched by --test: the sign reversals' Mann–Whitney U, Table 10's percentile intervals
    assert "(two-sided Mann–Whitney U, BH over every opposite-signed pair" in notes["table11_demographic"]
    assert "the percentile interval re-centred on the bias-corrected value" in notes["table10_eta"]


def test_the_default_study_keeps_its_words(default_study: Path) -> None:
    notes = _notes(default_study)
    assert not {k: n for k, n in notes.items() if _PLACEHOLDER.search(n)}
    assert "test: WSRT on per-face mean Δ" in notes["table3_category"]
    assert "with a Mann–Whitney U test of their per-face means" in notes["table4_fashion_age"]
    assert "the analysis' CI method, BCa)" in notes["table4_fashion_age"]
    assert "face-level BCa bootstrap CI, which should contain 0; p: two-sided WSRT" in notes["noise_floor"]
    assert "CI: face-clustered BCa bootstrap." in notes["model_differences_pairs"]
    assert (
        "Crossed dimensions: Kruskal–Wallis over the crossed groups (a label-permutation"
        in (notes["table9_crossed"])
    )
    assert "a two-sided signed-rank test cannot reach" in notes["table11_crossed"]
    assert "(Table 9: Kruskal–Wallis or Mann–Whitney U, BH" in notes["key_findings"]
    assert (
        "(face-level BCa bootstrap CI; Wilcoxon signed-rank test on per-face mean Δ" in notes["key_findings"]
    )


@pytest.mark.parametrize(
    ("study", "words"), [("permutation_study", "sign-flip permutation test"), ("default_study", "WSRT")]
)
def test_console_names_the_floor_test(study: str, words: str, request: pytest.FixtureRequest) -> None:
    console = Console(record=True, width=200)
    with duckdb.connect(str(request.getfixturevalue(study)), read_only=True) as con:
        print_headlines(con, console)
    out = console.export_text()
    assert f"(one-sided {words}, BH)" in out
    if words != "WSRT":
        assert "WSRT" not in out


def test_the_manifest_describes_the_tests_that_ran(permutation_study: Path, default_study: Path) -> None:
    """``result_manifest.statistic``/``description`` said "WSRT", "MWU", "Kruskal-Wallis" beside
    ``test = 'permutation'``; they now say what ran (the report's settings table shows them)."""
    columns = "SELECT name, statistic || ' | ' || description AS text FROM result_manifest"
    permuted = dict(query(permutation_study, columns).rows())
    assert not {k: t for k, t in permuted.items() if re.search(r"WSRT|MWU|Kruskal|Mann|KW H", t)}
    assert not {k: t for k, t in permuted.items() if _PLACEHOLDER.search(t)}
    assert "sign-flip permutation test" in permuted["sbs"]
    assert "label-permutation test" in permuted["demographic_tests"]
    default = dict(query(default_study, columns).rows())
    assert not {k: t for k, t in default.items() if _PLACEHOLDER.search(t)}
    assert "WSRT" in default["sbs"] and "KW H" in default["demographic_tests"]


@pytest.fixture(scope="module")
def two_runs_study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default study (WSRT, Kruskal–Wallis, BCa), then Table 9b's crossed groups analysed again
    alone with ``--test permutation --ci percentile`` (``run_analyses(only=...)``)."""
    path = shared_analysed_study(tmp_path_factory)
    con = store.open_study(path)
    try:
        rerun = Resampling(resamples=60, seed=1, test="permutation", ci_method="percentile")
        run_analyses(con, rerun, only=["table9_crossed"], progress=False)
    finally:
        con.close()
    return path


def test_tables_of_two_runs_each_name_their_own_test(two_runs_study: Path) -> None:
    """Table 9b reads Table 9 (the first run: Kruskal–Wallis) and its crossed columns (the second:
    label permutations): its note said "Kruskal–Wallis … or label-permutation test over the crossed
    groups" under the crossed columns; each part now names its own, and every other table keeps
    the first run's words (the second run replaced the manifest by its one row before)."""
    crossed = query(two_runs_study, "SELECT DISTINCT test FROM result_table9_crossed WHERE test IS NOT NULL")
    marginal = query(two_runs_study, "SELECT DISTINCT test FROM result_table9 WHERE test IS NOT NULL")
    assert crossed["test"].to_list() == ["label-permutation"]
    assert "label-permutation" not in marginal["test"].to_list()
    manifest = dict(query(two_runs_study, "SELECT name, test FROM result_manifest").rows())
    assert manifest["table9_crossed"] == "permutation"
    assert manifest["table9"] == manifest["sbs"] == "rank"
    notes = _notes(two_runs_study)
    assert not {k: n for k, n in notes.items() if " or sign-flip" in n or " or label-permutation" in n}
    assert (
        "Marginal dimensions: Table 9 (Kruskal–Wallis or Mann–Whitney U, BH within model × dimension). "
        "Crossed dimensions: label-permutation test over the crossed groups, BH" in notes["table9_crossed"]
    )
    assert "(Table 9: Kruskal–Wallis or Mann–Whitney U, BH" in notes["key_findings"]
    assert "test: WSRT on per-face mean Δ" in notes["table3_category"]
    assert "the analysis' CI method, BCa)" in notes["table4_fashion_age"]
