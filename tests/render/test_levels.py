"""Interval labels say the level the results were computed at (cueshift.render._levels): a
StylisticBias study analysed at 90 % shows "90% CI" in every report table, text and the console,
and never "95%" beside an interval."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest
from rich.console import Console

from cueshift.designs.stylisticbias.console import print_headlines
from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.render import Report, ci_label, fill_level, stored_level
from cueshift.render._levels import FALLBACK_LEVEL
from cueshift.stats import Resampling
from tests.designs.report_db import build_analysed_study

#: A 95 % interval label: "95% CI", "95% Wilson CI", "95% confidence" (not "95th percentile").
_NINETY_FIVE = re.compile(r"95\s?%")
#: Tables computed outside ``analyze`` at a fixed 95 % (the face audit, the invariance re-asks).
_FIXED_LEVEL = {"audit_skin_tone", "result_invariance"}


@pytest.fixture(scope="module")
def study_at_90(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_analysed_study(tmp_path_factory.mktemp("level90") / "study.duckdb", confidence_level=0.9)


def test_labels_format_the_level() -> None:
    assert ci_label(0.9) == "90% CI"
    assert ci_label(0.95) == "95% CI"
    assert ci_label(0.99) == "99% CI"
    assert fill_level("{level} Wilson CI", 0.8) == "80% Wilson CI"


def test_manifest_records_the_level(study_at_90: Path) -> None:
    with duckdb.connect(str(study_at_90), read_only=True) as con:
        rows = con.execute("SELECT DISTINCT confidence_level FROM result_manifest").fetchall()
        levels = {r[0] for r in rows}
        assert levels == {0.9}
        assert stored_level(con, ("result_table5",)) == 0.9


def test_an_older_manifest_reads_as_95(tmp_path: Path) -> None:
    with duckdb.connect(str(tmp_path / "old.duckdb")) as con:
        con.execute('CREATE TABLE result_manifest (name VARCHAR, "table" VARCHAR)')
        con.execute("INSERT INTO result_manifest VALUES ('sbs', 'result_sbs')")
        assert stored_level(con, ("result_sbs",)) == 0.95


def test_report_tables_and_texts_show_the_stored_level(study_at_90: Path) -> None:
    shown: list[str] = []
    with Report.open(study_at_90, None, CATALOG) as report:
        for spec in CATALOG.tables:
            if report.missing(spec.requires) or _FIXED_LEVEL & set(spec.requires):
                continue
            styled = report.styled(spec.key)
            texts = [styled.title, *styled.labels, *(s[0] for s in styled.spanners), *styled.notes]
            assert not [t for t in texts if _NINETY_FIVE.search(t)], spec.key
            shown += texts
        for text in CATALOG.texts:
            if report.missing(text.requires) or _FIXED_LEVEL & set(text.requires):
                continue
            body = text.write(report)
            assert not _NINETY_FIVE.search(body), text.key
            shown.append(body)
    assert sum("90% CI" in t for t in shown) >= 10
    assert not [t for t in shown if "{level}" in t]


def test_equivalence_intervals_say_the_level_they_are_stored_at(study_at_90: Path) -> None:
    """Tables E1-E3 said "90% CI" (the 1 − 2α interval of a 95 % analysis) whatever level
    ``analyze`` used: at 90 % the stored intervals are 80 % ones (result_equivalence.ci_level)."""
    with duckdb.connect(str(study_at_90), read_only=True) as con:
        stored = con.execute("SELECT DISTINCT ci_level FROM result_equivalence").fetchall()
    assert len(stored) == 1 and stored[0][0] == pytest.approx(0.8)
    keys = ("equivalence", "model_equivalence", "vs_equivalence")
    with Report.open(study_at_90, None, CATALOG) as report:
        shown = {key: report.styled(key) for key in keys if not report.missing(CATALOG.table(key).requires)}
    assert set(shown) == set(keys)
    for key, styled in shown.items():
        assert "80% CI" in styled.labels, (key, styled.labels)
        assert not [t for t in (*styled.labels, *styled.notes) if "95%" in t or "{" in t], key
    assert "80% CI = the 1 − 2α interval, where 1 − α = 90%" in " ".join(shown["equivalence"].notes)


def test_console_shows_the_stored_level(study_at_90: Path) -> None:
    console = Console(record=True, width=200)
    with duckdb.connect(str(study_at_90), read_only=True) as con:
        print_headlines(con, console)
    out = console.export_text()
    assert "90% CI" in out
    assert not _NINETY_FIVE.search(out)


def test_the_fallback_level_is_analyze_default() -> None:
    assert Resampling().confidence_level == FALLBACK_LEVEL


def test_figures_and_their_captions_show_the_stored_level(study_at_90: Path) -> None:
    """Figures 3–4 said "95% CIs" in study.qmd's fixed captions; the axes now carry the level."""
    labels: list[str] = []
    with Report.open(study_at_90, None, CATALOG) as report:
        for spec in CATALOG.figures:
            if report.missing(spec.requires):
                continue
            figure = spec.draw(report)
            if figure is not None:
                labels += [
                    t for ax in figure.axes for t in (ax.get_xlabel(), ax.get_ylabel(), ax.get_title())
                ]
    assert not [t for t in labels if _NINETY_FIVE.search(t)]
    assert sum("90% CI" in t for t in labels) >= 3  # Figure 3's axis, both of Figure 4's
    qmd = (Path(__file__).parents[2] / "reports" / "study.qmd").read_text(encoding="utf-8")
    captions = [line for line in qmd.splitlines() if line.startswith("#| fig-cap:")]
    assert captions and not [c for c in captions if _NINETY_FIVE.search(c)]
