"""Interval labels say the level the results were computed at (cueshift.render._levels): a
StylisticBias study analysed at 90 % shows "90% CI" in every report table, text and the console,
and never "95%" beside an interval."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm
from rich.console import Console
from scipy import stats as st

from cueshift.cli.invariance import check_invariance
from cueshift.designs.stylisticbias.console import print_headlines
from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.designs.stylisticbias.report.invariance import INVARIANCE
from cueshift.execution.invariance_sample import compare
from cueshift.render import Report, ci_label, fill_level, level_percent, stored_level
from cueshift.render._levels import FALLBACK_LEVEL
from cueshift.schemas.invariance import INVARIANCE_LEVEL
from cueshift.stats import Resampling
from tests.designs.report_db import shared_analysed_study

#: A 95 % interval label: "95% CI", "95% Wilson CI", "95% confidence" (not "95th percentile").
_NINETY_FIVE = re.compile(r"95\s?%")
#: Tables computed outside ``analyze`` at a level of their own: the face audit (its stored level,
#: tests/render/test_report_face_models.py) and the invariance re-asks (INVARIANCE_LEVEL, below).
_FIXED_LEVEL = {"audit_skin_tone", "result_invariance"}


@pytest.fixture(scope="module")
def study_at_90(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return shared_analysed_study(tmp_path_factory, confidence_level=0.9)


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


def test_invariance_interval_is_headed_with_the_level_check_invariance_computes_it_at() -> None:
    """Table B1 and the check-invariance console wrote a literal "95% CI"; they now say the one
    level the interval is computed at (INVARIANCE_LEVEL; the command has no option for another),
    checked against statsmodels' face-clustered interval of the mean difference at that level."""
    rng = np.random.default_rng(3)
    n, faces = 80, [f"f{i % 16}" for i in range(80)]
    before = rng.choice(["favorable", "unfavorable"], n)
    after = np.where(rng.random(n) < 0.3, rng.choice(["favorable", "unfavorable"], n), before)
    sampled = pl.DataFrame(
        {"model_id": ["m"] * n, "outcome": before, "face_id": faces, "p_favorable": [0.5] * n}
    )
    reasked = pl.DataFrame({"outcome": after, "p_favorable": [0.5] * n})
    row = compare(
        sampled, reasked, comparison="batched", mode="score", batch_size=4, bound=0.99, checked=True
    )
    d = (after == "favorable").astype(float) - (before == "favorable").astype(float)
    groups = np.unique(faces, return_inverse=True)[1]
    fit = sm.OLS(d, np.ones((n, 1))).fit(cov_type="cluster", cov_kwds={"groups": groups})
    half = st.t.ppf(0.5 + INVARIANCE_LEVEL / 2, 15) * float(fit.bse[0])
    assert (row["phi_diff_ci_low"], row["phi_diff_ci_high"]) == pytest.approx(
        (d.mean() - half, d.mean() + half)
    )
    label = ci_label(INVARIANCE_LEVEL)
    texts = " ".join((*(c.label for c in INVARIANCE.columns), *INVARIANCE.notes))
    assert label in [c.label for c in INVARIANCE.columns] and texts.count(label) == 2  # header, note
    assert set(re.findall(r"\d+(?:\.\d+)?\s?%", texts)) == {level_percent(INVARIANCE_LEVEL)}
    source = inspect.getsource(check_invariance)
    assert "ci_label(INVARIANCE_LEVEL)" in source and not _NINETY_FIVE.search(source)


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
