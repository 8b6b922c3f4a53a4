r"""The terms of the simulated judge's logit :math:`\eta`, row by row.

:math:`\eta = \beta_s + u_f + \sum_A \delta_{A,g_A} + \kappa_{c(s)}(\theta_v + \sum_k \gamma_k[\dots])
+ \lambda\sigma^{letter}_o + \pi\sigma^{first}_o` (the model of
:mod:`cueshift.inference.stand_ins.simulated`): each function here computes one term for a
column of rows, so the backend and the exact truth (:mod:`.truth`) share them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from cueshift._types import F64
from cueshift.inference.stand_ins.simulated.columns import StrColumn, factorize, fold_label
from cueshift.inference.stand_ins.simulated.rng import (
    mix,
    seed_key,
    standard_normal,
    string_hashes,
)
from cueshift.inference.stand_ins.simulated.settings import SimulatedSettings
from cueshift.study.scenarios import ORDERING_BY_ID

# stream tags (arbitrary distinct constants)
_TAG_SCENARIO: Final = 0x5C3A_0001
_TAG_FACE: Final = 0xFACE_0002


def logistic(logit: F64) -> F64:
    r"""The logistic function :math:`1 / (1 + e^{-\eta})`, computed stably."""
    out: F64 = 0.5 * (1.0 + np.tanh(0.5 * np.asarray(logit, dtype=np.float64)))
    return out


def face_effect(seed: int, face_ids: StrColumn, face_sd: float) -> F64:
    r"""Per-identity random intercepts :math:`u_f = \tau z_f`, :math:`z_f \sim N(0, 1)`.

    :math:`z_f` is a deterministic function of ``(seed, face_id)`` only, so an
    identity keeps its intercept across images, scenarios, runs and batches.

    Parameters
    ----------
    seed
        ``SimulatedSettings.seed``.
    face_ids
        One identity per row (may repeat).
    face_sd
        :math:`\tau`.

    Returns
    -------
    numpy.ndarray
        The intercept of each row's identity.
    """
    codes, uniques = factorize(face_ids)
    z = standard_normal(mix(seed_key(seed, _TAG_FACE), string_hashes(uniques)))
    return face_sd * z[codes]


def scenario_base_logits(settings: SimulatedSettings, scenario_ids: Sequence[str]) -> F64:
    r"""Base logit :math:`\beta_s` per scenario: the override, else
    :math:`\mu_\beta + \sigma_\beta z_s` with :math:`z_s` drawn from ``(seed, scenario_id)``."""
    z = standard_normal(mix(seed_key(settings.seed, _TAG_SCENARIO), string_hashes(list(scenario_ids))))
    derived = settings.base_logit_mean + settings.base_logit_sd * z
    overrides = np.array(
        [settings.scenario_base_logit.get(s, math.nan) for s in scenario_ids], dtype=np.float64
    )
    return np.where(np.isnan(overrides), derived, overrides)


def category_scales(settings: SimulatedSettings, categories: Sequence[str | None]) -> F64:
    return np.array([settings.category_scale.get(c, 1.0) if c else 1.0 for c in categories], dtype=np.float64)


def variation_effect(settings: SimulatedSettings, feature_key: str | None, value: str | None) -> float:
    r""":math:`\kappa_{c(s)}` per row: the category's multiplier on variation effects (1 if unlisted)."""
    if value is None:
        return 0.0
    if feature_key is not None:
        keyed = settings.variation_effects.get(f"{feature_key}={value}")
        if keyed is not None:
            return keyed
    return settings.variation_effects.get(value, 0.0)


def demographic_offset(settings: SimulatedSettings, demographics: Mapping[str, StrColumn], n: int) -> F64:
    r""":math:`\theta_v`: the shift of ``feature_key=value`` (else of ``value``; 0 for a base image)."""
    r""":math:`\sum_A \delta_{A, g_A}` per row."""
    total = np.zeros(n, dtype=np.float64)
    for attribute, shift_by_label in settings.demographic_effects.items():
        if not shift_by_label:
            continue
        folded = {fold_label(label): shift for label, shift in shift_by_label.items()}
        codes, uniques = factorize(demographics[attribute])
        table = np.array([folded.get(fold_label(u), 0.0) for u in uniques], dtype=np.float64)
        total += table[codes]
    return total


def variation_shift(
    settings: SimulatedSettings,
    feature_keys: StrColumn,
    values: StrColumn,
    demographics: Mapping[str, StrColumn],
    n: int,
) -> F64:
    r""":math:`\theta_v + \sum_k \gamma_k [v = v_k, g_{A_k} = h_k]` per row (before :math:`\kappa`)."""
    key_codes, key_uniques = factorize(feature_keys)
    value_codes, value_uniques = factorize(values)
    n_values = len(value_uniques)
    pair_codes = key_codes * n_values + value_codes
    table = np.array(
        [variation_effect(settings, k, v) for k in key_uniques for v in value_uniques], dtype=np.float64
    )
    shift = table[pair_codes]
    for effect in settings.group_variation_effects:
        value_hit = np.array([v == effect.value for v in value_uniques], dtype=bool)[value_codes]
        if effect.feature_key is not None:
            value_hit &= np.array([k == effect.feature_key for k in key_uniques], dtype=bool)[key_codes]
        group_codes, group_uniques = factorize(demographics[effect.attribute])
        group_hit = np.array([fold_label(g) == fold_label(effect.group) for g in group_uniques], dtype=bool)[
            group_codes
        ]
        shift = shift + effect.shift * (value_hit & group_hit)
    return np.asarray(shift, dtype=np.float64)


def ordering_offset(settings: SimulatedSettings, orderings: npt.ArrayLike) -> F64:
    r""":math:`\lambda \sigma^{letter}_o + \pi \sigma^{first}_o` per row."""
    ordering_ids = np.asarray(orderings, dtype=np.int64)
    table = np.zeros(max(ORDERING_BY_ID) + 1, dtype=np.float64)
    for ordering_id, ordering in ORDERING_BY_ID.items():
        letter_sign = 1.0 if ordering.favorable_letter == "a" else -1.0
        first_sign = 1.0 if ordering.favorable_first else -1.0
        table[ordering_id] = settings.letter_bias * letter_sign + settings.first_position_bias * first_sign
    unknown = ~np.isin(ordering_ids, list(ORDERING_BY_ID))
    if unknown.any():
        raise ValueError(
            f"unknown ordering {int(ordering_ids[unknown][0])}; orderings are {sorted(ORDERING_BY_ID)}"
        )
    return table[ordering_ids]


__all__ = [
    "category_scales",
    "demographic_offset",
    "face_effect",
    "logistic",
    "ordering_offset",
    "scenario_base_logits",
    "variation_effect",
    "variation_shift",
]
