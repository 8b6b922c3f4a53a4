r"""The simulated judge's planted truth, exactly: :math:`\eta`, :math:`\mathbb{E}[\phi]` and :math:`\Delta`.

See :mod:`cueshift.inference.stand_ins.simulated` for the model and for why
:func:`expected_phi` is exact (invalid answers independent of content and ordering).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TypedDict, Unpack

import numpy as np
import numpy.typing as npt

from cueshift._types import F64
from cueshift.inference.stand_ins.simulated.columns import StrColumn, check_lengths, factorize
from cueshift.inference.stand_ins.simulated.settings import SimulatedSettings
from cueshift.inference.stand_ins.simulated.terms import (
    category_scales,
    demographic_offset,
    face_effect,
    logistic,
    ordering_offset,
    scenario_base_logits,
    variation_shift,
)


class ContentColumns(TypedDict):
    r"""The row columns that fix :math:`\eta` up to the ordering term: the keyword arguments
    shared by :func:`favorable_logit`, :func:`favorable_probability` and :func:`expected_phi`
    (documented at :func:`favorable_logit`)."""

    scenario_ids: StrColumn
    scenario_categories: StrColumn
    face_ids: StrColumn
    age: StrColumn
    gender: StrColumn
    ethnicity: StrColumn
    body_type: StrColumn
    feature_keys: StrColumn
    values: StrColumn


def content_logit(
    settings: SimulatedSettings,
    *,
    scenario_ids: StrColumn,
    scenario_categories: StrColumn,
    face_ids: StrColumn,
    age: StrColumn,
    gender: StrColumn,
    ethnicity: StrColumn,
    body_type: StrColumn,
    feature_keys: StrColumn,
    values: StrColumn,
) -> F64:
    r""":math:`\eta` without the ordering term, per row (the columns of :class:`ContentColumns`)."""
    n = check_lengths(
        scenario_ids=scenario_ids,
        scenario_categories=scenario_categories,
        face_ids=face_ids,
        age=age,
        gender=gender,
        ethnicity=ethnicity,
        body_type=body_type,
        feature_keys=feature_keys,
        values=values,
    )
    demographics = {"age": age, "gender": gender, "ethnicity": ethnicity, "body_type": body_type}
    scenario_codes, scenario_uniques = factorize(scenario_ids)
    category_codes, category_uniques = factorize(scenario_categories)
    base = scenario_base_logits(settings, [s or "" for s in scenario_uniques])[scenario_codes]
    scale = category_scales(settings, category_uniques)[category_codes]
    return (
        base
        + face_effect(settings.seed, face_ids, settings.face_sd)
        + demographic_offset(settings, demographics, n)
        + scale * variation_shift(settings, feature_keys, values, demographics, n)
    )


def favorable_logit(
    settings: SimulatedSettings, *, orderings: npt.ArrayLike, **columns: Unpack[ContentColumns]
) -> F64:
    r"""The logit :math:`\eta` of naming the favorable descriptor, per prompt (row).

    Parameters
    ----------
    settings
        The judge.
    scenario_ids, scenario_categories
        Scenario of each row and its category (for :math:`\beta_s`, :math:`\kappa_{c(s)}`).
    face_ids
        Identity of each row's image (for :math:`u_f`).
    age, gender, ethnicity, body_type
        Perceived demographics of the identity (``None`` contributes nothing).
    feature_keys, values
        The variation shown (``None`` for a base image).
    orderings
        Ordering id (1-4) of each row: its favorable letter and position enter as
        :math:`\lambda\sigma^{letter}_o + \pi\sigma^{first}_o`.

    Returns
    -------
    numpy.ndarray
        :math:`\eta` per row (float64).
    """
    content = content_logit(settings, **columns)
    check_lengths(rows=content, orderings=np.asarray(orderings))
    return content + ordering_offset(settings, orderings)


def favorable_probability(
    settings: SimulatedSettings, *, orderings: npt.ArrayLike, **columns: Unpack[ContentColumns]
) -> F64:
    r"""P(the answer names the favorable descriptor | valid) = logistic(:math:`\eta`), per prompt.

    Same parameters as :func:`favorable_logit`.
    """
    return logistic(favorable_logit(settings, orderings=orderings, **columns))


def expected_phi(
    settings: SimulatedSettings,
    *,
    orderings: Sequence[int] = (1, 2, 3, 4),
    **columns: Unpack[ContentColumns],
) -> F64:
    r"""The exact expectation of :math:`\phi_s(x)` (seed 000 Eq. 1) per image × scenario row.

    .. math::

        \mathbb{E}[\phi_s(x) \mid n_s(x) \ge 1]
            = \frac{1}{|O|}\sum_{o\in O} \operatorname{logistic}(\eta_{x,s,o})

    This is exact (not a first-order approximation) because the judge's invalid answers
    are independent of content and ordering and each ordering is asked equally often
    (any number of seeds): given which prompts are valid, :math:`\phi` is the mean of
    their probabilities, and every valid subset of a given size is equally likely. It
    would *not* hold if invalidity depended on content. The event
    :math:`n_s(x) = 0` has probability ``invalid_rate ** (|O| K)``.

    Parameters
    ----------
    orderings
        The orderings the study asks (default all four).

    Other parameters are as in :func:`favorable_logit`, one row per image × scenario.
    """
    content = content_logit(settings, **columns)
    offsets = ordering_offset(settings, list(orderings))
    if offsets.size == 0:
        raise ValueError("expected_phi needs at least one ordering")
    phi: F64 = np.mean(logistic(content[:, None] + offsets[None, :]), axis=1)
    return phi


@lru_cache(maxsize=16)
def _hermgauss(n_nodes: int) -> tuple[F64, F64]:
    nodes, weights = np.polynomial.hermite.hermgauss(n_nodes)
    return nodes, weights


def population_delta(
    settings: SimulatedSettings,
    feature_key: str,
    value: str,
    scenario_id: str,
    *,
    scenario_category: str,
    age: str | None = None,
    gender: str | None = None,
    ethnicity: str | None = None,
    body_type: str | None = None,
    orderings: Sequence[int] = (1, 2, 3, 4),
    quadrature_nodes: int = 60,
) -> float:
    r"""The planted population shift :math:`\Delta_s(v \mid g)` with the identity integrated out.

    .. math::

        \Delta_s(v \mid g) = \int \frac{1}{|O|}\sum_{o\in O}\Big[
            \operatorname{logistic}(\eta^{v}_{s,o,g} + u)
            - \operatorname{logistic}(\eta^{b}_{s,o,g} + u)\Big] N(u; 0, \tau^2)\,du
        \approx \frac{1}{\sqrt{\pi}} \sum_{j} w_j \, h(\sqrt{2}\,\tau\, x_j)

    with Gauss-Hermite nodes :math:`x_j` and weights :math:`w_j`; :math:`\eta^{b}`
    is the base image's logit without the face term and :math:`\eta^{v}` adds
    :math:`\kappa_{c(s)}(\theta_v + \sum_k \gamma_k[\dots])`. This is the expected
    per-face :math:`\Delta` (seed 000 Eq. 2) over a population of identities of
    demographic cell :math:`g`, i.e. what SBS (Eq. 4) estimates for that cell.

    Parameters
    ----------
    feature_key, value
        The variation.
    scenario_id, scenario_category
        The scenario and its category (the design's; e.g. ``Scenario.category`` of
        :data:`cueshift.designs.stylisticbias.scenarios.STYLISTICBIAS_25`).
    age, gender, ethnicity, body_type
        The demographic cell (``None``: no demographic term).
    orderings
        Orderings averaged, as in :func:`expected_phi`.
    quadrature_nodes
        Gauss-Hermite nodes (60 gives ~1e-12 accuracy for any realistic :math:`\tau`).

    Returns
    -------
    float
        :math:`\Delta_s(v \mid g)` on the probability scale.
    """
    demographics: dict[str, StrColumn] = {
        "age": [age],
        "gender": [gender],
        "ethnicity": [ethnicity],
        "body_type": [body_type],
    }
    base = scenario_base_logits(settings, [scenario_id])[0] + demographic_offset(settings, demographics, 1)[0]
    shift = (
        category_scales(settings, [scenario_category])[0]
        * variation_shift(settings, [feature_key], [value], demographics, 1)[0]
    )
    offsets = ordering_offset(settings, list(orderings))
    nodes, weights = _hermgauss(quadrature_nodes)
    face = math.sqrt(2.0) * settings.face_sd * nodes  # u at the nodes
    logits = base + face[:, None] + offsets[None, :]
    per_node = np.mean(logistic(logits + shift) - logistic(logits), axis=1)
    return float(np.sum(weights * per_node) / math.sqrt(math.pi))


__all__ = [
    "ContentColumns",
    "content_logit",
    "expected_phi",
    "favorable_logit",
    "favorable_probability",
    "population_delta",
]
