"""The pairwise report's rating notes name the study's rating scale as its runs stored it
(``run.config``'s ``[pairwise] rating_min``/``rating_max``), not a fixed "0–10": a seed 002 study
re-scaled to 1–7 reads "1–7" in Tables 5, 5b and 7 (it read "0–10 ratings" in their titles and
notes). The expected scale is the one the test writes into the study, not read from the report.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from cueshift.designs import load_study
from cueshift.designs.pairwise.report import CATALOG as PAIRWISE
from cueshift.designs.pairwise.section import PairwiseStudy
from cueshift.render import Report
from tests.designs.review_dbs import STUDIES, inferred_and_analysed

RATING_TABLES = ("pairwise_rating_bins", "pairwise_rating_summary", "pairwise_rating_model_human")


@pytest.fixture(scope="module")
def one_to_seven(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seed 002's study file on a 1–7 scale (the models' answers and the synthetic humans), inferred
    and analysed."""
    tmp = tmp_path_factory.mktemp("scale17")
    study = load_study(STUDIES / "pairwise-002.toml")
    assert isinstance(study, PairwiseStudy)
    humans = study.pairwise.synthetic_humans
    assert humans is not None
    pairwise = study.pairwise.model_copy(
        update={
            "rating_min": 1.0,
            "rating_max": 7.0,
            "synthetic_humans": humans.model_copy(update={"scale_min": 1.0, "scale_max": 7.0}),
        }
    )
    return inferred_and_analysed(study.model_copy(update={"pairwise": pairwise}), tmp)


def _texts(db: Path) -> dict[str, str]:
    """Title and notes of each rating table, by key."""
    with Report.open(db, None, PAIRWISE) as report:
        shown = {key: report.styled(key) for key in RATING_TABLES}
    return {key: " | ".join((styled.title, *styled.notes)) for key, styled in shown.items()}


def test_the_notes_name_the_stored_scale(one_to_seven: Path) -> None:
    with duckdb.connect(str(one_to_seven), read_only=True) as con:  # what the run stored
        low, high = con.execute(
            "SELECT min(rating), max(rating) FROM rating WHERE rater_kind = 'human'"
        ).fetchall()[0]
    assert low >= 1.0 and high <= 7.0
    texts = _texts(one_to_seven)
    for key, text in texts.items():
        assert "Ratings on the study’s 1–7 rating scale ([pairwise] rating_min to rating_max" in text, key
        assert "0–10" not in text and "0-10" not in text, key


def _with_runs(db: Path, target: Path, sql: str) -> Path:
    shutil.copy(db, target)
    with duckdb.connect(str(target)) as con:
        con.execute(sql)
    return target


def test_runs_of_two_scales_name_both(one_to_seven: Path, tmp_path: Path) -> None:
    """A database whose runs recorded different scales says so (its ratings are pooled)."""
    rescaled = """json_merge_patch(config, '{"pairwise": {"rating_min": 0, "rating_max": 10}}')"""
    copy = _with_runs(
        one_to_seven,
        tmp_path / "two.duckdb",
        f"INSERT INTO run SELECT * REPLACE ('other' AS run_id, {rescaled} AS config) FROM run LIMIT 1",
    )
    for text in _texts(copy).values():
        assert "recorded different rating scales ([pairwise] rating_min to rating_max): 0–10, 1–7" in text


def test_a_database_without_the_scale_reads_the_fields(one_to_seven: Path, tmp_path: Path) -> None:
    """No run records the scale (rows written by other means): the notes name the fields."""
    copy = _with_runs(one_to_seven, tmp_path / "none.duckdb", "DELETE FROM run")
    for text in _texts(copy).values():
        assert (
            "Ratings on the study’s rating scale, [pairwise] rating_min to rating_max (0–10 by default"
            in text
        )
        assert "1–7" not in text
