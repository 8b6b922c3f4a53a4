"""Every interval of every result table of every design contains its estimate and lies in the
statistic's declared range (docs/decisions.md#d3).

The four designs' studies run small (the report tests' simulated StylisticBias study, and the
seed study files of the others with their simulated judges); then each ``result_*`` table is read
back from the database and scanned here, independently of the schema checks that ran on write: every
``(estimate, ci_low, ci_high)`` triple and every other interval pair (``abs_sbs`` with
``abs_ci_low/abs_ci_high``) must hold its estimate (or the row's ``ci_note`` says why), and
both bounds must lie in the range the table's schema declares on the estimate (a share's
interval in [0, 1], a correlation's in [-1, 1], |SBS| ≥ 0, VS ≤ 0.5). The schema checks are
tested too: a frame whose interval excludes its estimate, or leaves the range, is refused.
"""

from __future__ import annotations

import math
from pathlib import Path

import duckdb
import polars as pl
import pytest

from cueshift.designs.paired.attractiveness import attractiveness_bias
from cueshift.errors import SchemaViolation
from cueshift.schemas.results import RESULT_SCHEMAS, validate_result
from cueshift.stats import welch_interval
from tests.designs.review_dbs import STUDY_FILES, analysed_dbs
from tests.render.shared_dbs import analysed_study_db
from tests.scalars import real

PREFIXES = {"paired": "paired_", "pairwise": "pairwise_", "probe": "probe_"}
TOL = 1e-12


def _triples(columns: list[str]) -> list[tuple[str, str, str]]:
    """Interval columns of a table, found by name here (not by the schema module's helper)."""
    out = [("estimate", "ci_low", "ci_high")] if {"estimate", "ci_low", "ci_high"} <= set(columns) else []
    if {"abs_sbs", "abs_ci_low", "abs_ci_high"} <= set(columns):
        out.append(("abs_sbs", "abs_ci_low", "abs_ci_high"))
    return out


def _declared(name: str, column: str) -> tuple[float, float]:
    """The schema's ``ge``/``le`` on ``column`` (read from pandera's column checks)."""
    low, high = -math.inf, math.inf
    for check in RESULT_SCHEMAS[name].to_schema().columns[column].checks:
        low = max(low, float(check.statistics.get("min_value", -math.inf)))
        high = min(high, float(check.statistics.get("max_value", math.inf)))
    return low, high


@pytest.fixture(scope="module")
def design_dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An analysed study database per design: the report tests' small simulated StylisticBias
    study (100 resamples), and the seed study files of the others with their simulated judges."""
    core = analysed_study_db(tmp_path_factory, n_faces=24, resamples=100, seed=1)
    return {"stylisticbias": core, **analysed_dbs(tmp_path_factory)}


def _result_tables(db: Path) -> dict[str, pl.DataFrame]:
    with duckdb.connect(str(db), read_only=True) as con:
        names = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_name LIKE 'result_%' "
                "AND table_name != 'result_manifest'"
            ).fetchall()
        ]
        return {n.removeprefix("result_"): con.sql(f"SELECT * FROM {n}").pl() for n in names}


DESIGNS = ("stylisticbias", *STUDY_FILES)


@pytest.mark.parametrize("design", DESIGNS)
def test_every_interval_holds_its_estimate_within_range(design_dbs: dict[str, Path], design: str) -> None:
    tables = _result_tables(design_dbs[design])
    prefix = PREFIXES.get(design, "")
    assert tables and all(name.startswith(prefix) or not prefix for name in tables), sorted(tables)
    n_checked = 0
    for name, frame in tables.items():
        assert name in RESULT_SCHEMAS, name
        for est, low, high in _triples(frame.columns):
            rows = frame.filter(
                pl.col(low).is_not_null() & pl.col(high).is_not_null() & pl.col(est).is_not_null()
            )
            if "ci_note" in frame.columns:
                rows = rows.filter(pl.col("ci_note").is_null())
            outside = rows.filter((pl.col(est) < pl.col(low) - TOL) | (pl.col(est) > pl.col(high) + TOL))
            assert outside.height == 0, f"result_{name}: {est} outside [{low}, {high}]: {outside.head(3)}"
            lowest, highest = _declared(name, est)
            for bound in (low, high):
                values = frame[bound].drop_nulls()
                assert values.is_between(lowest - TOL, highest + TOL).all(), (name, bound, lowest, highest)
            n_checked += rows.height
    assert n_checked > 0  # some table of the design has intervals, and they were scanned


@pytest.mark.parametrize("design", DESIGNS)
def test_ranged_estimates_declare_ranges_for_their_intervals(design: str) -> None:
    # shares, correlations, |SBS| and VS declare their range on the estimate, so the bounds get it too
    expected = {
        "stylisticbias": {"sbs": (-1.0, 1.0), "table2_vs": (0.0, 0.5**0.5), "table5": (-1.0, 1.0)},
        "paired": {"paired_significance_share": (0.0, 1.0)},
        "pairwise": {"pairwise_cohort": (0.0, 1.0), "pairwise_rating_bins": (0.0, 1.0)},
        "probe": {"probe_similarity": (-1.0, 1.0), "probe_reliability_similarity": (-1.0, 1.0)},
    }[design]
    for name, (low, high) in expected.items():
        declared = _declared(name, "estimate")
        assert declared[0] == pytest.approx(low) and declared[1] == pytest.approx(high, abs=1e-9), name
    if design == "stylisticbias":
        assert _declared("sbs", "abs_sbs") == (0.0, 1.0)


def _vs_frame(estimate: float, low: float, high: float, ddof: int = 0) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "model_id": ["m"],
            "dimension": ["gender"],
            "estimate": [estimate],
            "ci_low": [low],
            "ci_high": [high],
            "plugin_estimate": [estimate],
            "n_groups": [2],
            "n": [25],
            "ddof": pl.Series([ddof], dtype=pl.Int32),
        }
    )


def test_schema_refuses_incoherent_intervals_on_write() -> None:
    validate_result("table2_vs", _vs_frame(0.02, 0.01, 0.03))  # coherent: passes
    with pytest.raises(SchemaViolation, match="ci_contains_estimate"):
        validate_result("table2_vs", _vs_frame(0.013, 0.0, 0.0127))  # the gender row of docs/decisions.md#d3
    with pytest.raises(SchemaViolation, match="ci_within_range"):
        validate_result("table2_vs", _vs_frame(0.02, -0.01, 0.03))  # below VS's 0
    with pytest.raises(SchemaViolation, match="population_std_range"):
        validate_result("table2_vs", _vs_frame(0.4, 0.3, 0.6))  # above 0.5 with the population std
    validate_result("table2_vs", _vs_frame(0.4, 0.3, 0.6, ddof=1))  # the sample std reaches √½


def test_paired_difference_interval_is_clamped_to_its_range() -> None:
    # three individuals, s in {0, 1}: Welch's interval of the difference reaches beyond [-1, 1]
    original, filtered = [0.0, 1.0, 0.0], [1.0, 0.0, 1.0]
    _, raw_low, raw_high = welch_interval(filtered, original)
    assert raw_low < -1.0 or raw_high > 1.0
    keys = {
        k: "x" for k in ("model_id", "family", "scenario_category", "scenario_id", "choice_1", "choice_2")
    }
    scores = pl.DataFrame(
        [
            {**keys, "face_id": f"i{i}", "condition": condition, "s": s}
            for condition, values in (("original", original), ("filtered", filtered))
            for i, s in enumerate(values)
        ]
    )
    table = attractiveness_bias(scores)
    assert real(table["ci_low"].min()) >= -1.0 and real(table["ci_high"].max()) <= 1.0
    assert ((table["ci_low"] <= table["estimate"]) & (table["estimate"] <= table["ci_high"])).all()
