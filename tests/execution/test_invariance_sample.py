"""The stratified sample of ``check-invariance`` and its comparison row, on planted tables."""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl
import pytest
from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

from cueshift.execution.invariance_sample import compare, stratified_sample


@pytest.fixture
def con() -> duckdb.DuckDBPyConnection:
    """Two models; 3 categories (one with 3 scenarios, the others 1) x 4 orderings x 10 images."""
    con = duckdb.connect()
    con.execute("CREATE TABLE scenario AS SELECT 's' || r AS scenario_id, "
                "CASE WHEN r < 3 THEN 'big' WHEN r = 3 THEN 'mid' ELSE 'small' END AS category "
                "FROM range(5) t(r)")  # fmt: skip
    con.execute("CREATE TABLE image AS SELECT 'i' || r AS image_id, 'f' || (r // 2) AS face_id "
                "FROM range(10) t(r)")  # fmt: skip
    con.execute("""
        CREATE TABLE judgment AS
        SELECT m AS model_id, i.image_id, s.scenario_id, o AS ordering, 0 AS seed, 'favorable' AS outcome,
               NULL::DOUBLE AS p_favorable
        FROM image i, scenario s, (VALUES (1), (2), (3), (4)) o(o), (VALUES ('m1'), ('m2')) m(m)""")
    return con


def test_every_stratum_gets_its_turn(con: duckdb.DuckDBPyConnection) -> None:
    sample = stratified_sample(con, [], 36, seed=3)
    for model in ("m1", "m2"):
        counts = sample.filter(pl.col("model_id") == model).group_by("category", "ordering").len()["len"]
        assert counts.len() == 12 and counts.min() == counts.max() == 3  # 12 strata, 36 rows
    assert sample.select(["model_id", "image_id", "scenario_id", "ordering"]).is_unique().all()
    assert not sample.equals(stratified_sample(con, [], 36, seed=4))
    assert sample.equals(stratified_sample(con, [], 36, seed=3))


def test_more_than_stored_takes_everything_and_models_filter(con: duckdb.DuckDBPyConnection) -> None:
    assert stratified_sample(con, ["m2"], 10_000, seed=0).height == 200
    assert set(stratified_sample(con, ["m2"], 5, seed=0)["model_id"]) == {"m2"}


def test_compare_against_counted_agreement() -> None:
    rng = np.random.default_rng(7)
    labels = np.array(["favorable", "unfavorable", "invalid"])
    before = rng.choice(labels, 60, p=[0.5, 0.45, 0.05])
    after = np.where(rng.random(60) < 0.15, rng.choice(labels, 60), before)
    faces = [f"f{i % 12}" for i in range(60)]
    sampled = pl.DataFrame({"model_id": ["m"] * 60, "outcome": before, "face_id": faces,
                            "p_favorable": rng.random(60)})  # fmt: skip
    reasked = pl.DataFrame({"outcome": after, "p_favorable": sampled["p_favorable"] + 0.01})
    row = compare(
        sampled, reasked, comparison="one_at_a_time", mode="score", batch_size=1, bound=0.99, checked=True
    )
    table = np.array([[np.sum((before == a) & (after == b)) for b in labels] for a in labels])
    assert row["n_identical"] == int(np.trace(table)) and row["share_identical"] == np.trace(table) / 60
    assert row["kappa"] == pytest.approx(float(sm_kappa(table, return_results=False)))
    fav = (after == "favorable").mean() - (before == "favorable").mean()
    assert row["phi_diff"] == pytest.approx(fav) and row["phi_diff_ci_low"] <= fav <= row["phi_diff_ci_high"]
    assert row["max_abs_p_diff"] == pytest.approx(0.01) and row["flagged"] == (np.trace(table) < 60 * 0.99)
