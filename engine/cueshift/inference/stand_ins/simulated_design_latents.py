r"""The shared latent truth of the simulated design judge and the synthetic human raters.

Stimulus latents :math:`\ell_j` (:func:`stimulus_latent`), latent impressions
:math:`z_{f,a}` (:func:`latent_impressions`) and the exact pairwise win probability of the
simulated judge (:func:`pairwise_win_probability`, the planted truth), all drawn from the fixed
seed :data:`LATENT_SEED` (the "society"), independent of any model's ``settings.seed``, so
humans and every simulated model see the same truth (see
:mod:`~cueshift.inference.stand_ins.simulated_designs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np

from cueshift._types import F64
from cueshift.inference.stand_ins.simulated import logistic
from cueshift.inference.stand_ins.simulated.rng import (
    mix,
    seed_key,
    standard_normal,
    string_hash,
    string_hashes,
)
from cueshift.inference.stand_ins.simulated_design_settings import PairwiseJudgeSettings

#: Seed of the shared latent truth (stimulus latents, latent impressions).
LATENT_SEED: Final = 4004
_TAG_STIMULUS: Final = 0x5717_0001
_TAG_FACTOR: Final = 0xFAC7_0002
_TAG_UNIQUE: Final = 0x0A77_0003


def stimulus_latent(
    image_ids: Sequence[str], groups: Sequence[str | None], group_latent: dict[str, float], sd: float = 0.5
) -> F64:
    r""":math:`\ell_j = \gamma_{g_j} + \sigma z_j`, :math:`z_j \sim N(0, 1)` drawn from
    ``(LATENT_SEED, image_id)``."""
    z = standard_normal(mix(seed_key(LATENT_SEED, _TAG_STIMULUS), string_hashes(list(image_ids))))
    shift = np.array([group_latent.get(g or "", 0.0) for g in groups], dtype=np.float64)
    return shift + sd * z


def default_impression_maps() -> tuple[dict[str, float], dict[str, str]]:
    """(consistency, clusters) of the synthetic OMI attributes."""
    from cueshift.inference.stand_ins.impressions import SYNTHETIC_CLUSTERS, SYNTHETIC_CONSISTENCY

    return dict(SYNTHETIC_CONSISTENCY), dict(SYNTHETIC_CLUSTERS)


def latent_impressions(
    face_ids: Sequence[str],
    attributes: Sequence[str],
    clusters: dict[str, str],
    factor_loading: float = 0.7,
) -> F64:
    r"""Latent societal impression :math:`z_{f,a}` per identity (rows) × attribute (columns).

    .. math::

        z_{f,a} = \lambda F_{f, k(a)} + \sqrt{1 - \lambda^2}\, e_{f,a}

    for an attribute in cluster :math:`k(a)` (:math:`z_{f,a} = e_{f,a}` otherwise), with
    :math:`F, e \sim N(0, 1)` drawn from ``(LATENT_SEED, identity, cluster / attribute)``: unit
    variance, correlation :math:`\lambda^2` within a cluster and 0 across clusters.
    """
    ids = string_hashes(list(face_ids))
    out = np.empty((len(face_ids), len(attributes)))
    for j, attribute in enumerate(attributes):
        unique = standard_normal(
            mix(mix(seed_key(LATENT_SEED, _TAG_UNIQUE), ids), np.uint64(string_hash(attribute)))
        )
        cluster = clusters.get(attribute)
        if cluster is None:
            out[:, j] = unique
            continue
        factor = standard_normal(
            mix(mix(seed_key(LATENT_SEED, _TAG_FACTOR), ids), np.uint64(string_hash(cluster)))
        )
        out[:, j] = factor_loading * factor + np.sqrt(1.0 - factor_loading**2) * unique
    return out


def pairwise_win_probability(
    settings: PairwiseJudgeSettings,
    left: Sequence[str],
    right: Sequence[str],
    left_groups: Sequence[str],
    right_groups: Sequence[str],
    cohorts: Sequence[str],
) -> F64:
    r"""Exact :math:`P(\text{left wins} \mid \text{valid})` of each trial (the planted truth)."""

    def strength(ids: Sequence[str], groups: Sequence[str]) -> F64:
        extra = np.array(
            [settings.cohort_group_effects.get(f"{c}|{g}", 0.0) for c, g in zip(cohorts, groups, strict=True)]
        )
        total: F64 = stimulus_latent(ids, groups, settings.group_effects, settings.stimulus_sd) + extra
        return total

    return logistic(strength(left, left_groups) - strength(right, right_groups) + settings.position_bias)


__all__ = [
    "LATENT_SEED",
    "default_impression_maps",
    "latent_impressions",
    "pairwise_win_probability",
    "stimulus_latent",
]
