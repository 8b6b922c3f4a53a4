"""The specification curve's joint test (``result_multiverse_joint``, Simonsohn, Simmons & Nelson
2020): its null distribution against a plain numpy re-implementation, its level under a planted
null, its power under a planted effect, and the table ``run_multiverse`` makes."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import norm, wilcoxon

from cueshift import store
from cueshift.designs.stylisticbias.multiverse import MultiverseConfig, run_multiverse
from cueshift.designs.stylisticbias.multiverse.joint import JOINT_STATISTICS, joint_test
from cueshift.schemas.multiverse import validate_multiverse
from cueshift.stats import POOLED, Resampling
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

ALPHA = 0.05


def _by_hand(values: np.ndarray, weights: np.ndarray) -> tuple[float, float, float]:
    """The three statistics, one specification at a time, with scipy's Wilcoxon."""
    estimates, ps = [], []
    for k in range(values.shape[1]):
        column = values[:, k][~np.isnan(values[:, k])]
        estimates.append(column.mean())
        ps.append(wilcoxon(column).pvalue)
    median = float(np.median(np.repeat(estimates, weights)))
    sign = 1.0 if median >= 0 else -1.0
    n_significant, z = 0.0, 0.0
    for estimate, p, weight in zip(estimates, ps, weights, strict=True):
        agrees = np.sign(estimate) == sign
        n_significant += weight * (p < ALPHA and agrees)
        z += weight * norm.isf(p / 2 if agrees else 1 - p / 2)
    return median, n_significant, z / np.sqrt(weights.sum())


def test_the_null_distribution_is_a_plain_forced_null_face_bootstrap():
    rng = np.random.default_rng(1)
    n_faces, n_draws = 20, 30
    face = rng.normal(0.2, 1.0, size=(n_faces, 1))
    values = face + rng.normal(0, 0.5, size=(n_faces, 3))
    values[3, 1] = np.nan  # a face without rows in one specification
    weights = np.array([2, 1, 3])
    draws = rng.multinomial(n_faces, np.full(n_faces, 1 / n_faces), size=n_draws).astype(float)
    test = joint_test(values, weights, draws, ALPHA)
    assert np.allclose(test.observed, _by_hand(values, weights))
    expected = []
    for counts in draws:
        resampled = np.full((n_faces, 3), np.nan)
        for k in range(3):
            centred = values[:, k] - np.nanmean(values[:, k])
            resampled[:, k] = np.concatenate([[centred[f]] * int(counts[f]) for f in range(n_faces)])
        expected.append(_by_hand(resampled, weights))
    null = np.array(expected)
    null[:, 0] = np.abs(null[:, 0])
    assert np.allclose(test.null, null)
    observed = np.array([abs(test.observed[0]), test.observed[1], test.observed[2]])
    assert np.allclose(test.p, (1 + (null >= observed - 1e-12).sum(axis=0)) / (1 + n_draws))


def _dataset(rng: np.random.Generator, effect: float) -> np.ndarray:
    """30 faces × 6 specifications sharing each face's effect (dependent specifications)."""
    return effect + rng.normal(0, 1, size=(30, 1)) + rng.normal(0, 0.7, size=(30, 6))


def test_a_planted_null_rejects_at_about_alpha_and_an_effect_always():
    rng = np.random.default_rng(7)
    weights = np.array([1, 2, 1, 1, 3, 1])
    draws = rng.multinomial(30, np.full(30, 1 / 30), size=99).astype(float)
    null_p = np.array([joint_test(_dataset(rng, 0.0), weights, draws, ALPHA).p for _ in range(80)])
    rejected = (null_p <= 0.10).mean(axis=0)
    assert np.all(rejected <= 0.22), rejected  # 0.10 expected; 80 datasets
    continuous = null_p[:, [0, 2]].mean(axis=0)  # the count is discrete: p = 1 when none is significant
    assert np.all((continuous > 0.35) & (continuous < 0.65)), continuous
    effect_p = np.array([joint_test(_dataset(rng, 0.8), weights, draws, ALPHA).p for _ in range(10)])
    assert np.all(effect_p <= 0.05), effect_p


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    connection = store.open_study(tmp_path_factory.mktemp("joint") / "study.duckdb")
    write_study(connection, simulate_study(SimulationSpec(n_faces=20, models=("m-a", "m-b"), seed=5)))
    yield connection
    connection.close()


def test_run_multiverse_tests_each_model_and_the_pool_over_cueshift_paths(con):
    config = MultiverseConfig(phi=["greedy"], orderings=["all", "2"])
    result = run_multiverse(con, config, resampling=Resampling(resamples=100, seed=3))
    joint = validate_multiverse("multiverse_joint", result.joint)
    assert joint.select("model_id", "statistic").rows() == [
        (m, s) for m in ("m-a", "m-b", POOLED) for s in JOINT_STATISTICS
    ]
    cueshift = result.claims.filter(kind="sbs_model", path="cueshift")
    assert (joint["n_specifications"] == cueshift.filter(model_id="m-a").height).all()
    assert (joint["n_resamples"] == 100).all() and (joint["n_faces"] == 20).all()
    medians = cueshift.group_by("model_id").agg(pl.col("estimate").median())
    observed = joint.filter(statistic="median").join(medians, on="model_id")
    assert np.allclose(observed["observed"], observed["estimate"])
    significant = joint.filter(statistic="n_significant").join(
        cueshift.group_by("model_id").agg(
            n=((pl.col("p_adj") < config.alpha) & (pl.col("verdict") != "0")).sum()
        ),
        on="model_id",
    )
    assert (significant["observed"] <= significant["n"]).all()
    assert ((joint["p"] > 0) & (joint["p"] <= 1)).all()
    store.replace_results(con, {"multiverse_joint": joint})
    from cueshift.designs.stylisticbias.report.multiverse import MULTIVERSE_JOINT

    shown = store.query(con, MULTIVERSE_JOINT.sql.replace("$models", "['m-a', 'm-b']"))
    assert shown["model_id"].to_list() == ["m-a", "m-b", POOLED]
    pooled = joint.filter(model_id=POOLED)
    row = shown.row(2, named=True)
    assert row["stouffer_p"] == pooled.filter(statistic="stouffer")["p"].item()
    assert row["n_significant"] == pooled.filter(statistic="n_significant")["observed"].item()
    assert [c.name for c in MULTIVERSE_JOINT.columns if c.name not in shown.columns] == []
