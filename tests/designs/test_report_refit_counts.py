"""Table 10 and Table R2 say how many bootstrap draws their intervals rest on, of how many drawn
(D62 leaves out the draws that admit no estimate; D65 prints "196 of 200 bootstrap refits").

Failed draws come from studies of 3 and 4 simulated faces (a draw of one distinct face admits no
model, as in tests/stats/test_refit_failures.py); the draws made are known here from the settings
(200 resamples; the crossed model refits at most ``CROSSED_REFITS``), not read from the code under test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.render import Report
from cueshift.stats import CROSSED_REFITS, Resampling
from tests.designs.report_db import query
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

RESAMPLES = 200
DRAWN = {"result_mixed_model": RESAMPLES, "result_crossed_model": min(RESAMPLES, CROSSED_REFITS)}


@pytest.fixture(scope="module", params=[4, 3], ids=["4 faces", "3 faces"])
def few_faces(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-model study of ``request.param`` faces with Table 10's and Table R2's analyses only."""
    path = tmp_path_factory.mktemp("refits") / "study.duckdb"
    spec = SimulationSpec(
        n_faces=request.param,
        models=("m1",),
        scenario_ids=("independent", "obedient", "wealthy"),
        variation_values=("Acne", "Freckles", "Beanie"),
        seed=5,
    )
    con = store.open_study(path)
    try:
        write_study(con, simulate_study(spec))
        run_analyses(
            con,
            Resampling(resamples=RESAMPLES, seed=1),
            only=["mixed_model", "crossed_model", "face_anova"],
            progress=False,
        )
    finally:
        con.close()
    return path


def _expected(kept: int, drawn: int, noun: str) -> str:
    """The count as a reader should see it, at 95 %: no interval past α/2 = 2.5 % of the draws."""
    if kept == drawn:
        return f"{drawn:,} bootstrap {noun}"
    failed = drawn - kept
    beyond = "; more than α/2 of them, so no interval" if failed > 0.025 * drawn else ""
    draws = "draw" if failed == 1 else "draws"
    return f"{kept:,} of {drawn:,} bootstrap {noun} ({failed:,} {draws} admitted no estimate{beyond})"


def _notes(path: Path, key: str) -> str:
    with Report.open(path, None, CATALOG) as report:
        return " ".join(report.styled(key).notes)


@pytest.mark.parametrize(
    ("key", "table"), [("table10_eta", "result_mixed_model"), ("crossed_vs_face", "result_crossed_model")]
)
def test_failed_refits_are_counted_of_the_draws_made(few_faces: Path, key: str, table: str) -> None:
    stored = query(few_faces, f"SELECT n_refits, ci_low FROM {table}")
    (kept,) = stored["n_refits"].unique().to_list()
    assert kept < DRAWN[table]  # the study is small enough for some draws to hold one face
    expected = _expected(kept, DRAWN[table], "refits")
    assert f"; {expected}." in _notes(few_faces, key)
    # "no interval" is said exactly where the stored intervals are missing
    assert ("so no interval" in expected) == (stored["ci_low"].null_count() == stored.height)


def test_the_face_anovas_name_each_that_kept_fewer_draws(few_faces: Path) -> None:
    stored = query(few_faces, "SELECT outcome, dimension, n_resamples FROM result_face_anova")
    notes = _notes(few_faces, "table10_eta")
    assert stored["n_resamples"].max() < RESAMPLES  # type: ignore[operator]
    if stored["n_resamples"].n_unique() == 1:
        assert f"faces; {_expected(stored['n_resamples'][0], RESAMPLES, 'resamples')}." in notes
        return
    assert f"faces; {RESAMPLES:,} bootstrap resamples, except " in notes
    for r in stored.iter_rows(named=True):
        outcome = "mean Δ" if r["outcome"] == "delta" else "mean base φ"
        label = f"{outcome} by {r['dimension'].replace('_', ' ')}: "
        assert label + _expected(r["n_resamples"], RESAMPLES, "resamples") in notes, label


def test_one_count_where_every_draw_gave_an_estimate(report_study: Path) -> None:
    # The presentation study: 30 faces, 60 resamples (below both refit caps), no draw fails.
    mixed = query(report_study, "SELECT DISTINCT n_refits FROM result_mixed_model")
    crossed = query(report_study, "SELECT DISTINCT n_refits FROM result_crossed_model")
    anova = query(report_study, "SELECT DISTINCT n_resamples FROM result_face_anova")
    assert (
        mixed["n_refits"].to_list() == crossed["n_refits"].to_list() == anova["n_resamples"].to_list() == [60]
    )
    table10 = _notes(report_study, "table10_eta")
    assert "; 60 bootstrap refits." in table10 and "faces; 60 bootstrap resamples." in table10
    assert "; 60 bootstrap refits." in _notes(report_study, "crossed_vs_face")
    assert " of 60 " not in table10 and "admitted no estimate" not in table10
