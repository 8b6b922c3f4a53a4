"""``result_equivalence`` on a simulated study with planted shifts and planted zeros.

References: statsmodels' ``DescrStatsW.ttost_mean`` on per-face means recomputed from the Δ rows
with polars (not the face sums the table reads); the planted truth of ``tests.simulate``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from rich.console import Console
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.weightstats import DescrStatsW

from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.console_equivalence import print_equivalence
from cueshift.designs.stylisticbias.stats import equivalence_table, summed_delta
from cueshift.schemas.results_stylisticbias_equivalence import EquivalenceSchema
from cueshift.stats import Resampling
from cueshift.study.equivalence import EquivalenceConfig
from tests.simulate.outputs import delta_frame
from tests.simulate.study import SimulationSpec, simulate_study

MARGINS = EquivalenceConfig(delta=0.04, model_difference=0.06)


@pytest.fixture(scope="module")
def planted() -> tuple[pl.DataFrame, pl.DataFrame]:
    spec = SimulationSpec(
        n_faces=80,
        models=("m1", "m2"),
        scenario_ids=("independent", "obedient", "peaceful", "friendly"),
        variation_values=("Beanie", "Cap", "Freckles", "Moles", "Facial tattoo", "Acne"),
        interactions=False,
        null_fraction=0.5,
        effect_scale=0.12,
        seed=4,
    )
    study = simulate_study(spec)
    return delta_frame(study), study.truth


def test_rows_agree_with_statsmodels_on_face_means(planted: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    delta, _ = planted
    table = equivalence_table(summed_delta(delta), MARGINS)
    EquivalenceSchema.validate(table)
    valid = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
    keys = ["model_id", "variation_category", "variation_value", "scenario_category"]
    means = valid.group_by(["face_id", *keys]).agg(pl.col("delta").mean())
    rows = table.filter((pl.col("quantity") == "delta") & (pl.col("level") == "variation_value"))
    assert rows.height == means.select(keys).unique().height + means.select(keys[:3]).unique().height
    for row in rows.filter(pl.col("scenario_category").is_not_null()).iter_rows(named=True):
        x = means.filter(*(pl.col(k) == row[k] for k in keys))["delta"].to_numpy()
        p = DescrStatsW(x).ttost_mean(-MARGINS.delta, MARGINS.delta)[0]
        assert (row["p"], row["n"], row["margin"]) == (pytest.approx(p, rel=1e-9, abs=1e-14), x.size, 0.04)
    # BH within a family, as statsmodels' fdr_bh gives it
    family = table.filter(
        (pl.col("quantity") == "model_difference") & (pl.col("level") == "variation_category")
    )
    assert family["p_adj"].to_list() == pytest.approx(multipletests(family["p"], method="fdr_bh")[1].tolist())


def test_model_difference_is_the_paired_face_difference(planted: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    delta, _ = planted
    table = equivalence_table(summed_delta(delta), MARGINS)
    row = table.filter(
        (pl.col("quantity") == "model_difference")
        & (pl.col("level") == "variation_category")
        & pl.col("scenario_category").is_null()
    ).row(0, named=True)
    category = pl.col("variation_category") == row["variation_category"]
    valid = delta.filter(pl.col("delta").is_not_null() & category)
    per_face = valid.group_by("face_id", "model_id").agg(pl.col("delta").mean())
    wide = per_face.pivot(on="model_id", index="face_id", values="delta").drop_nulls()
    x = (wide[row["model_id"]] - wide[row["other_model_id"]]).to_numpy()
    p = DescrStatsW(x).ttost_mean(-MARGINS.model_difference, MARGINS.model_difference)[0]
    assert (row["model_id"], row["other_model_id"]) == ("m1", "m2")
    assert row["p"] == pytest.approx(p, rel=1e-9, abs=1e-14)
    assert row["estimate"] == pytest.approx(x.mean())


def test_verdicts_follow_the_planted_truth(planted: tuple[pl.DataFrame, pl.DataFrame]) -> None:
    delta, truth = planted
    table = equivalence_table(summed_delta(delta), MARGINS)
    true_values = truth.group_by("model_id", "variation_value").agg(pl.col("delta_true").mean().alias("true"))
    rows = table.filter(
        (pl.col("quantity") == "delta")
        & (pl.col("level") == "variation_value")
        & pl.col("scenario_category").is_null()
    ).join(true_values, on=["model_id", "variation_value"])
    big = rows.filter(pl.col("true").abs() > 2 * MARGINS.delta)
    zero = rows.filter(pl.col("true") == 0.0)
    assert big.height >= 2 and zero.height >= 2
    assert set(big["verdict"]) == {"shift"}
    assert "shift" not in set(zero["verdict"])
    assert "equivalent to no shift" in set(zero["verdict"])


def test_analyze_writes_it_only_with_declared_margins(tmp_path: Path) -> None:
    from cueshift import store
    from tests.simulate.outputs import write_study

    spec = SimulationSpec(n_faces=12, models=("m1",), scenario_ids=("independent",), seed=2)
    con = store.open_study(tmp_path / "eq.duckdb")
    try:
        write_study(con, simulate_study(spec))
        run = Resampling(resamples=100, seed=1)
        assert "equivalence" not in run_analyses(con, run, only=["equivalence"], progress=False)
        results = run_analyses(con, run, equivalence=MARGINS, only=["equivalence"], progress=False)
        stored = con.sql("SELECT * FROM result_equivalence").pl()
        console = Console(record=True, width=200)
        print_equivalence(con, console)
        printed = console.export_text()
    finally:
        con.close()
    assert stored.height == results["equivalence"].height > 0
    assert set(stored["quantity"]) == {"delta", "vs"}  # one model: no model differences
    assert stored["ci_level"].to_list() == pytest.approx([0.9] * stored.height)
    shown = stored.filter((pl.col("level") == "variation_category") & pl.col("scenario_category").is_null())
    assert shown["quantity"].unique().to_list() == ["delta"]
    assert "90% CI" in printed and "|Δ| < 0.040" in printed
    for row in shown.iter_rows(named=True):  # each attribute's verdict, not a bare "n.s."
        lines = printed.splitlines()
        assert any(row["variation_category"] in line and row["verdict"] in line for line in lines)
