"""The specification curve's joint test (``result_multiverse_joint``, Simonsohn, Simmons & Nelson
2020): its null distribution against a plain numpy re-implementation, its level under a planted
null, its power under a planted effect, and the table ``run_multiverse`` makes (each model's SBS and
each attribute's, D80) with Tables MV2 and MV3 reading it."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.multiverse import MultiverseConfig
from cueshift.designs.stylisticbias.multiverse.joint import JOINT_STATISTICS, joint_test
from cueshift.designs.stylisticbias.multiverse.run import run_multiverse
from cueshift.schemas.multiverse import validate_multiverse
from cueshift.stats import POOLED, Resampling
from tests.designs.multiverse_reference import ALPHA, joint_statistics
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study


def test_the_null_distribution_is_a_plain_forced_null_face_bootstrap():
    rng = np.random.default_rng(1)
    n_faces, n_draws = 20, 30
    face = rng.normal(0.2, 1.0, size=(n_faces, 1))
    values = face + rng.normal(0, 0.5, size=(n_faces, 3))
    values[3, 1] = np.nan  # a face without rows in one specification
    weights = np.array([2, 1, 3])
    draws = rng.multinomial(n_faces, np.full(n_faces, 1 / n_faces), size=n_draws).astype(float)
    test = joint_test(values, weights, draws, ALPHA)
    assert np.allclose(test.observed, joint_statistics(values, weights))
    expected = []
    for counts in draws:
        resampled = np.full((n_faces, 3), np.nan)
        for k in range(3):
            centred = values[:, k] - np.nanmean(values[:, k])
            resampled[:, k] = np.concatenate([[centred[f]] * int(counts[f]) for f in range(n_faces)])
        expected.append(joint_statistics(resampled, weights))
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
    everything = validate_multiverse("multiverse_joint", result.joint)
    joint = everything.filter(kind="sbs_model")
    assert joint.select("model_id", "statistic").rows() == [
        (m, s) for m in ("m-a", "m-b", POOLED) for s in JOINT_STATISTICS
    ]
    assert (joint["subject"] == "all attributes").all() and (joint["p_adj"] == joint["p"]).all()
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
    _attributes_match_their_claims(everything, result.claims)
    _tables_mv2_and_mv3_read_it(con, everything)


def _attributes_match_their_claims(joint: pl.DataFrame, claims: pl.DataFrame) -> None:
    """Every ``sbs_attribute`` claim of cueshift's paths has its joint test, its median the claims'."""
    attributes = joint.filter(kind="sbs_attribute", statistic="median")
    cueshift = claims.filter(kind="sbs_attribute", path="cueshift")
    medians = cueshift.group_by("model_id", "subject").agg(pl.col("estimate").median(), n=pl.len())
    both = attributes.join(medians, on=["model_id", "subject"], how="full", coalesce=True)
    assert both.height == attributes.height == medians.height > 0
    assert np.allclose(both["observed"], both["estimate"]) and (both["n_specifications"] == both["n"]).all()


def _tables_mv2_and_mv3_read_it(con, joint: pl.DataFrame) -> None:
    from cueshift.designs.stylisticbias.report.multiverse_joint import (
        MULTIVERSE_JOINT,
        MULTIVERSE_JOINT_ATTRIBUTES,
    )

    def shown(spec):
        return store.query(con, spec.sql.replace("$models", "['m-a', 'm-b']"))

    store.replace_results(con, {"multiverse_joint": joint})
    models = shown(MULTIVERSE_JOINT)
    assert models["model_id"].to_list() == ["m-a", "m-b", POOLED]
    pooled = joint.filter(kind="sbs_model", model_id=POOLED)
    row = models.row(2, named=True)
    assert row["stouffer_p"] == pooled.filter(statistic="stouffer")["p"].item()
    assert row["n_significant"] == pooled.filter(statistic="n_significant")["observed"].item()
    attributes = shown(MULTIVERSE_JOINT_ATTRIBUTES)
    stored = joint.filter(kind="sbs_attribute", statistic="stouffer").sort("model_id", "subject")
    assert attributes.height == stored.height
    assert set(attributes["stouffer_p"].to_list()) <= set(stored["p_adj"].to_list())
    for spec, frame in ((MULTIVERSE_JOINT, models), (MULTIVERSE_JOINT_ATTRIBUTES, attributes)):
        assert [c.name for c in spec.columns if c.name not in frame.columns] == []
    # a joint table an older cueshift wrote (no kind, subject, p_adj): Table MV2 as before, MV3 empty
    store.replace_results(
        con, {"multiverse_joint": joint.filter(kind="sbs_model").drop("kind", "subject", "p_adj")}
    )
    assert shown(MULTIVERSE_JOINT).equals(models)
    assert shown(MULTIVERSE_JOINT_ATTRIBUTES).height == 0
