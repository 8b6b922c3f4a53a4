"""The joint test of each model's SBS of each attribute (``result_multiverse_joint``, kind
``sbs_attribute``, D80): its null distribution and p-values against a plain numpy/scipy
re-implementation on the shared face draws, its BH adjustment against scipy and statsmodels, and
under planted data: the attribute with an effect rejected, the null attributes not."""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy.stats import false_discovery_control
from statsmodels.stats.multitest import multipletests

from cueshift.designs.stylisticbias.multiverse.joint import JOINT_STATISTICS
from cueshift.designs.stylisticbias.multiverse.joint_table import SpecificationFaces, joint_table
from cueshift.stats import Resampling, face_multiplicities
from tests.designs.multiverse_reference import ALPHA, joint_statistics

MODEL = "m"


def _by_hand(blocks: list[SpecificationFaces], claim: tuple[str, str, str], draws: np.ndarray) -> np.ndarray:
    """The claim's p-values: its observed statistics against the forced null, each draw taking
    every face ``draws[b, f]`` times (faces sorted), every specification shifted by its own mean."""
    faces = sorted({f for block in blocks for f in block.faces})
    columns, weights = [], []
    for block in blocks:
        if claim in block.claims:
            column = np.full(len(faces), np.nan)
            for f, face in enumerate(block.faces):
                column[faces.index(face)] = block.values[f, block.claims.index(claim)]
            columns.append(column)
            weights.append(block.n_specifications)
    observed = np.array(joint_statistics(np.column_stack(columns), np.array(weights)))
    null = []
    for counts in draws:
        centred = [c - np.nanmean(c) for c in columns]
        drawn = [np.concatenate([[c[f]] * int(counts[f]) for f in range(len(faces))]) for c in centred]
        null.append(joint_statistics(np.column_stack(drawn), np.array(weights)))
    null_array = np.array(null)
    null_array[:, 0] = np.abs(null_array[:, 0])
    extreme = np.array([abs(observed[0]), observed[1], observed[2]])
    as_extreme: np.ndarray = (null_array >= extreme - 1e-12).sum(axis=0)
    return (1 + as_extreme) / (1 + len(draws))


def _claims(attributes: list[str]) -> list[tuple[str, str, str]]:
    return [("sbs_attribute", MODEL, a) for a in attributes]


def test_each_attribute_is_a_plain_forced_null_face_bootstrap_and_bh_within_the_model():
    rng = np.random.default_rng(11)
    faces = [f"f{i:02d}" for i in range(20)]
    attributes = ["a", "b", "c", "d"]
    face_effect = rng.normal(0, 1, size=(20, 1))
    blocks = []
    for k, weight in enumerate([2, 1, 3]):
        kept = [a for a in attributes if not (k == 1 and a == "d")]  # an attribute absent on one path
        values = (
            face_effect + np.array([0.6, 0.0, -0.3, 0.0])[: len(kept)] + rng.normal(0, 0.8, (20, len(kept)))
        )
        block_faces = faces if k != 2 else faces[1:]  # a face without rows on one path
        blocks.append(SpecificationFaces(block_faces, _claims(kept), values[: len(block_faces)], weight))
    resampling = Resampling(resamples=40, seed=4)
    table = joint_table(blocks, resampling=resampling, alpha=ALPHA)
    assert table.select("kind", "model_id", "subject").unique(maintain_order=True).rows() == _claims(
        attributes
    )
    draws = face_multiplicities(len(faces), resampling.resamples, resampling.seed)
    for attribute in attributes:
        rows = table.filter(subject=attribute)
        assert rows["statistic"].to_list() == list(JOINT_STATISTICS)
        expected = _by_hand(blocks, ("sbs_attribute", MODEL, attribute), draws)
        assert np.allclose(rows["p"].to_numpy(), expected), attribute
    assert table.filter(subject="d")["n_specifications"].unique().to_list() == [5]
    for statistic in JOINT_STATISTICS:
        rows = table.filter(statistic=statistic)
        assert np.allclose(rows["p_adj"], false_discovery_control(rows["p"].to_numpy(), method="bh"))
        assert np.allclose(rows["p_adj"], multipletests(rows["p"].to_numpy(), method="fdr_bh")[1])


def _planted_blocks(rng: np.random.Generator, effects: np.ndarray) -> list[SpecificationFaces]:
    """60 faces × 6 dependent specifications; one column per attribute with its planted effect."""
    faces = [f"f{i:02d}" for i in range(60)]
    shared = rng.normal(0, 0.5, size=(60, 1)) + rng.normal(0, 1, size=(60, len(effects)))
    attributes = [f"attr{a}" for a in range(len(effects))]
    return [
        SpecificationFaces(faces, _claims(attributes), effects + shared + rng.normal(0, 0.7, shared.shape), 1)
        for _ in range(6)
    ]


def test_a_planted_attribute_is_rejected_and_the_null_attributes_are_not():
    rng = np.random.default_rng(21)
    effects = np.array([0.8, 0.0, 0.0, 0.0])
    resampling = Resampling(resamples=149, seed=5)
    planted_p_adj, null_p, null_p_adj = [], [], []
    for _ in range(6):
        table = joint_table(_planted_blocks(rng, effects), resampling=resampling, alpha=ALPHA)
        by_statistic = table.pivot("statistic", index="subject", values=["p", "p_adj"]).sort("subject")
        p = by_statistic.select(f"p_{s}" for s in JOINT_STATISTICS).to_numpy()
        p_adj = by_statistic.select(f"p_adj_{s}" for s in JOINT_STATISTICS).to_numpy()
        planted_p_adj.append(p_adj[0])
        null_p.append(p[1:])
        null_p_adj.append(p_adj[1:])
        for statistic in JOINT_STATISTICS:
            rows = table.filter(pl.col("statistic") == statistic)
            assert np.allclose(rows["p_adj"], false_discovery_control(rows["p"].to_numpy()))
    planted = np.array(planted_p_adj)
    assert np.all(planted[:, [0, 2]] <= ALPHA), planted  # median and Stouffer Z: every dataset
    # the count is capped at the 6 paths, which are dependent: all significant in a null draw now and then
    assert np.all(planted[:, 1] <= 0.15), planted
    rejected = (np.vstack(null_p_adj) <= ALPHA).mean(axis=0)
    assert np.all(rejected <= 0.15), rejected  # 18 null attributes (3 per dataset, dependent)
    continuous = np.vstack(null_p)[:, [0, 2]].mean(axis=0)  # the count's p is 1 when none is significant
    assert np.all((continuous > 0.3) & (continuous < 0.7)), continuous
