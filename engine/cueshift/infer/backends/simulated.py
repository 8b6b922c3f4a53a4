r"""The simulated judge: a seeded, biased forced-choice responder with planted effects.

It is the judge of the embedded default study and the ground truth against which the
statistics are validated, so every planted quantity is computable exactly. It answers
in raw text, the way a real model does, so every run goes through
:mod:`cueshift.infer.parser`.

Generative model
----------------
For a prompt showing image :math:`x` (identity :math:`f`, demographics :math:`g`,
variation :math:`v`, or none for a base image) under scenario :math:`s` (category
:math:`c(s)`) and ordering :math:`o`, the logit of naming the *favorable* descriptor is

.. math::

    \eta = \beta_s + u_f + \sum_{A} \delta_{A, g_A}
           + \kappa_{c(s)} \Big( \theta_v + \sum_{k} \gamma_k \,[v = v_k,\ g_{A_k} = h_k] \Big)
           + \lambda \,\sigma^{\text{letter}}_o + \pi \,\sigma^{\text{first}}_o ,

where :math:`\beta_s` is the scenario base logit, :math:`u_f \sim N(0, \tau^2)` the
identity's random intercept (``face_sd`` :math:`=\tau`, drawn deterministically from
``(seed, identity_id)``), :math:`\delta` the demographic effects, :math:`\theta_v` the
variation effect, :math:`\gamma_k` the group-specific extra shifts, :math:`\kappa` the
category scale (semantic alignment), :math:`\lambda` the letter bias with
:math:`\sigma^{\text{letter}}_o = +1` when the favorable descriptor carries letter
(a) and :math:`-1` otherwise, and :math:`\pi` the first-position bias with
:math:`\sigma^{\text{first}}_o = +1` when the favorable descriptor is written first.
Each prompt is answered independently:

.. math::

    \text{invalid} \sim \text{Bernoulli}(q), \qquad
    r \mid \text{valid} \sim \text{Bernoulli}\big(\operatorname{logistic}(\eta)\big),

with :math:`q` = ``invalid_rate`` independent of the content. There is no separate
temperature: it is implicit in the size of the logits. The answer's randomness is a
deterministic hash of ``(settings.seed, model_id, image_id, scenario_id, ordering,
seed)``, so re-running, resuming or re-batching yields identical answers.

Exact truth
-----------
Because invalid answers are independent of content and of the ordering, for a balanced
design (each ordering asked equally often) the expectation of seed 000 Eq. (1) given at
least one valid answer is exactly

.. math::

    \mathbb{E}[\phi_s(x) \mid n_s(x) \ge 1] = \frac{1}{|O|} \sum_{o \in O}
        \operatorname{logistic}(\eta_{x,s,o})

(:func:`expected_phi`): conditional on which prompts are valid, :math:`\phi` is the mean
of the valid prompts' probabilities, and every subset of a given size is equally likely.
The population-level shift of a variation (identity integrated out,
:func:`population_delta`) is

.. math::

    \Delta_s(v \mid g) = \int \frac{1}{|O|}\sum_{o}\Big[
        \operatorname{logistic}(\eta^{v}_{s,o,g} + u)
        - \operatorname{logistic}(\eta^{b}_{s,o,g} + u)\Big] \, N(u; 0, \tau^2)\, du .
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated, Any, Final, Literal, TypedDict, Unpack

import numpy as np
import numpy.typing as npt
import polars as pl
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from cueshift.errors import ConfigError
from cueshift.infer.backends.base import Backend, BackendAnswers, StudyContext
from cueshift.infer.parser import parse_answer
from cueshift.study.config import ModelConfig
from cueshift.study.scenario_sets import SCENARIO_SETS
from cueshift.study.scenarios import (
    BEHAVIORAL,
    INTERPERSONAL,
    ORDERING_BY_ID,
    PERSONALITY,
    SOCIOECONOMIC,
    Scenario,
)

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
UIntArray = npt.NDArray[np.uint64]
StrColumn = Sequence[str | None] | npt.NDArray[Any] | pl.Series

DEMOGRAPHIC_ATTRIBUTES: Final[tuple[str, ...]] = ("age", "gender", "ethnicity", "body_type")
DemographicAttribute = Literal["age", "gender", "ethnicity", "body_type"]
InvalidKind = Literal["refusal", "hedge", "both"]
INVALID_KINDS: Final[tuple[InvalidKind, ...]] = ("refusal", "hedge", "both")

# --------------------------------------------------------------------------- defaults

#: Logit shifts by perceived demographic group (labels matched case-insensitively).
#: Age and body type dominate, ethnicity and gender are small (seed 000 Table 10).
DEFAULT_DEMOGRAPHIC_EFFECTS: Final[dict[DemographicAttribute, dict[str, float]]] = {
    "age": {"young adult": 0.0, "middle-aged adult": -0.15, "elderly": -0.35},
    "gender": {"male": 0.0, "female": 0.05},
    "ethnicity": {"Asian": 0.03, "African": -0.04, "European": 0.0, "Middle Eastern": -0.05, "Latino": -0.02},
    "body_type": {"thin": -0.1, "normal": 0.0, "obese": -0.45},
}

#: Logit shifts of the variations before the category scale, calibrated so that the
#: population-average Δ over the 25 scenarios and the demographic grid (settings seed 7)
#: lands near the all-model means of seed 000 Table 11.
DEFAULT_VARIATION_EFFECTS: Final[dict[str, float]] = {
    "skin_irregularities=Acne": -0.23,
    "skin_irregularities=Freckles": 0.0,
    "skin_irregularities=Moles": -0.01,
    "hair_color=Black": 0.01,
    "hair_color=Blonde": 0.04,
    "hair_color=Brown": 0.0,
    "hair_color=Gray": 0.05,
    "hair_length=Bald": 0.05,
    "hair_length=Long": -0.09,
    "hair_length=Short": 0.03,
    "hair_style=Messy": -0.25,
    "hair_style=Mohawk": -0.05,
    "hair_style=Slicked back": 0.02,
    "facial_hair_male=Clean-shaven": 0.02,
    "facial_hair_male=Full beard": 0.33,
    "makeup_female=Heavy": 0.15,
    "makeup_female=Light": 0.03,
    "lip_makeup_female=Red lipstick": 0.3,
    "tattoos=Facial tattoo": -0.03,
    "fashion_style=Casual": 0.2,
    "fashion_style=Formal / Evening wear": 0.53,
    "fashion_style=Functional / outdoor wear": 0.24,
    "fashion_style=Professional / Business formal": 0.4,
    "fashion_style=Smart casual": 0.53,
    "fashion_style=Sporty / Athletic wear": 0.2,
    "fashion_style=Streetwear": -0.27,
    "fashion_style=Vintage / Retro": 0.41,
    "fashion_style=Worn / Distressed clothing": -0.79,
    "eyewear=Sunglasses": 0.09,
    "eyewear=Thick-rimmed": 0.2,
    "piercings=Multiple": -0.1,
    "piercings=Single nose": 0.01,
    "accessories=Beanie": -0.01,
    "accessories=Cap": -0.03,
}

#: Multiplier on the variation effects per scenario category (semantic alignment: an
#: appearance cue moves socioeconomic and appearance judgments most).
DEFAULT_CATEGORY_SCALE: Final[dict[str, float]] = {
    PERSONALITY: 0.8,
    INTERPERSONAL: 0.6,
    BEHAVIORAL: 0.7,
    SOCIOECONOMIC: 2.5,
}


class GroupVariationEffect(BaseModel):
    """An extra logit shift of variation ``value`` for faces whose ``attribute`` is ``group``."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    feature_key: str | None = Field(default=None, description="None matches the value under any feature")
    value: str = Field(min_length=1)
    attribute: DemographicAttribute
    group: str = Field(min_length=1)
    shift: float


def _default_group_effects() -> list[GroupVariationEffect]:
    rows: list[tuple[str, str, DemographicAttribute, str, float]] = [
        ("tattoos", "Facial tattoo", "gender", "female", 0.17),
        ("piercings", "Multiple", "gender", "female", 0.14),
        ("hair_length", "Long", "gender", "female", 0.11),
        ("fashion_style", "Professional / Business formal", "body_type", "obese", 0.38),
        ("fashion_style", "Worn / Distressed clothing", "body_type", "obese", 0.17),
        ("fashion_style", "Streetwear", "age", "elderly", 0.34),
    ]
    return [
        GroupVariationEffect(feature_key=k, value=v, attribute=a, group=g, shift=s) for k, v, a, g, s in rows
    ]


#: How valid answers are written: template -> weight. Slots: {letter}, {LETTER}, {descriptor}.
DEFAULT_ANSWER_STYLES: Final[dict[str, float]] = {
    "({letter})": 0.55,
    "({LETTER})": 0.08,
    "({letter}) '{descriptor}'": 0.1,
    "Answer: ({letter})": 0.06,
    "{letter}": 0.05,
    "**({letter})**": 0.04,
    "{LETTER}.": 0.04,
    "({letter}) {descriptor}": 0.04,
    "'{descriptor}'": 0.02,
    "The answer is ({letter}).": 0.02,
}

#: Relative weights of the kinds of invalid answer.
DEFAULT_INVALID_MIX: Final[dict[InvalidKind, float]] = {"refusal": 0.5, "hedge": 0.25, "both": 0.25}

#: What invalid answers look like, per kind. Slots: {favorable}, {unfavorable}.
INVALID_TEXTS: Final[dict[InvalidKind, tuple[str, ...]]] = {
    "refusal": (
        "I cannot determine this from appearance alone.",
        "Sorry, I can't make judgments about people based on their appearance.",
        "It is impossible to tell from a photo.",
        "I can't say whether someone is '{favorable}' or '{unfavorable}' from a picture.",
    ),
    "hedge": (
        "It could be either.",
        "Maybe (a), but it is hard to say.",
        "I'm not sure.",
    ),
    "both": (
        "(a) or (b)",
        "Both (a) and (b) could apply.",
        "(a)/(b)",
    ),
}

_SAMPLE_MAPPINGS: Final[tuple[dict[str, str], ...]] = (
    {"a": "Competent", "b": "Incompetent"},
    {"a": "Renter", "b": "Home owner"},
    {"a": "Open-minded", "b": "Closed-minded"},
)


# --------------------------------------------------------------------------- settings

NonNegative = Annotated[float, Field(ge=0.0)]


class SimulatedSettings(BaseModel):
    """Settings of the simulated judge (``[models.settings]`` of a study; all optional).

    Every effect is on the logit scale of "names the favorable descriptor"; see the
    module docstring for the model. Demographic labels are matched case-insensitively
    (the defaults use the seed 000 Table 7 labels of :mod:`cueshift.images.labels`);
    a label or variation without an entry shifts nothing.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    seed: int = Field(default=0, ge=0, description="seeds the scenario logits, face intercepts and answers")
    base_logit_mean: float = Field(default=0.4, description="mean of the default scenario base logits")
    base_logit_sd: NonNegative = Field(default=0.8, description="sd of the default scenario base logits")
    scenario_base_logit: dict[str, float] = Field(
        default_factory=dict,
        description="scenario_id -> base logit; scenarios not listed get N(base_logit_mean, base_logit_sd) "
        "drawn deterministically from (seed, scenario_id)",
    )
    face_sd: NonNegative = Field(default=0.3, description="sd of the per-identity random intercept")
    demographic_effects: dict[DemographicAttribute, dict[str, float]] = Field(
        default_factory=lambda: {k: dict(v) for k, v in DEFAULT_DEMOGRAPHIC_EFFECTS.items()}
    )
    variation_effects: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_VARIATION_EFFECTS),
        description="'<feature_key>=<value>' or '<value>' -> logit shift ('key=value' wins)",
    )
    category_scale: dict[str, float] = Field(
        default_factory=lambda: dict(DEFAULT_CATEGORY_SCALE),
        description="scenario category -> multiplier on variation effects (unlisted: 1.0)",
    )
    group_variation_effects: list[GroupVariationEffect] = Field(default_factory=_default_group_effects)
    letter_bias: float = Field(default=0.15, description="logit toward answering letter (a)")
    first_position_bias: float = Field(default=0.1, description="logit toward the option written first")
    invalid_rate: float = Field(
        default=0.02, ge=0.0, lt=1.0, description="P(invalid answer), content-independent"
    )
    invalid_mix: dict[InvalidKind, NonNegative] = Field(
        default_factory=lambda: dict(DEFAULT_INVALID_MIX),
        description="relative weights of the kinds of invalid answer",
    )
    answer_styles: dict[str, NonNegative] = Field(
        default_factory=lambda: dict(DEFAULT_ANSWER_STYLES),
        description="template -> weight; slots {letter}, {LETTER}, {descriptor}",
    )
    latency_ms_mean: NonNegative = Field(default=40.0, description="mean simulated latency (uniform ±50%)")

    @field_validator("variation_effects")
    @classmethod
    def _variation_keys(cls, value: dict[str, float]) -> dict[str, float]:
        for key in value:
            feature_key, sep, variation_value = key.partition("=")
            if not key.strip() or (sep and (not feature_key.strip() or not variation_value.strip())):
                raise ValueError(f"key {key!r} is not '<feature_key>=<value>' or '<value>'")
        return value

    @field_validator("invalid_mix")
    @classmethod
    def _some_kind(cls, value: dict[str, float]) -> dict[str, float]:
        if sum(value.values()) <= 0:
            raise ValueError("needs a positive weight for at least one of refusal, hedge, both")
        return value

    @field_validator("answer_styles")
    @classmethod
    def _styles_parse(cls, value: dict[str, float]) -> dict[str, float]:
        if not value or sum(value.values()) <= 0:
            raise ValueError("needs at least one template with a positive weight")
        for template in value:
            rest = template.replace("{letter}", "").replace("{LETTER}", "").replace("{descriptor}", "")
            if "{" in rest or "}" in rest:
                raise ValueError(
                    f"template {template!r}: the only slots are {{letter}}, {{LETTER}}, {{descriptor}}"
                )
            if rest == template:
                raise ValueError(f"template {template!r} names neither {{letter}} nor {{descriptor}}")
            for mapping in _SAMPLE_MAPPINGS:
                for letter, descriptor in mapping.items():
                    text = _render_style(template, letter, descriptor)
                    parsed = parse_answer(text, mapping)
                    if parsed.letter != letter:
                        raise ValueError(
                            f"template {template!r} renders {text!r}, which the parser reads as "
                            f"{parsed.letter or 'invalid'} ({parsed.reason}), not ({letter})"
                        )
        return value


def parse_settings(model: ModelConfig) -> SimulatedSettings:
    """Validate ``model.settings``; a bad field raises a one-line :class:`ConfigError`.

    The message names the model and the field, e.g.
    ``model 'sim-judge': settings.letter_bias: Input should be a valid number``.
    """
    try:
        return SimulatedSettings.model_validate(model.settings)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(part) for part in err["loc"]) or "<settings>"
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise ConfigError(f"model {model.model_id!r}: settings.{field}: {err['msg']}{more}") from None


def _render_style(template: str, letter: str, descriptor: str) -> str:
    return (
        template.replace("{letter}", letter)
        .replace("{LETTER}", letter.upper())
        .replace("{descriptor}", descriptor)
    )


# --------------------------------------------------------------------------- hashing

_GOLDEN: Final = np.uint64(0x9E3779B97F4A7C15)
_MIX1: Final = np.uint64(0xBF58476D1CE4E5B9)
_MIX2: Final = np.uint64(0x94D049BB133111EB)
# stream tags (arbitrary distinct constants)
_TAG_SCENARIO: Final = 0x5C3A_0001
_TAG_FACE: Final = 0xFACE_0002
_TAG_ANSWER: Final = 0xA45E_0003
_STREAM_VALID: Final = np.uint64(0x1111_1111_1111_1111)
_STREAM_CHOICE: Final = np.uint64(0x2222_2222_2222_2222)
_STREAM_KIND: Final = np.uint64(0x3333_3333_3333_3333)
_STREAM_STYLE: Final = np.uint64(0x4444_4444_4444_4444)
_STREAM_LATENCY: Final = np.uint64(0x5555_5555_5555_5555)
_STREAM_NORMAL_1: Final = np.uint64(0x6666_6666_6666_6666)
_STREAM_NORMAL_2: Final = np.uint64(0x7777_7777_7777_7777)


def _splitmix64(x: UIntArray) -> UIntArray:
    """The splitmix64 finaliser, elementwise (uint64 arithmetic wraps modulo 2**64)."""
    with np.errstate(over="ignore"):
        z = x + _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


def _mix(h: UIntArray, x: UIntArray | np.uint64) -> UIntArray:
    return _splitmix64(h ^ x)


def _string_hash(text: str) -> int:
    """A stable 64-bit hash of a string (blake2b; Python's ``hash`` is salted per process)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")


def _string_hashes(texts: Sequence[str | None]) -> UIntArray:
    return np.array([_string_hash("\x00<null>" if t is None else t) for t in texts], dtype=np.uint64)


def _unit(h: UIntArray) -> FloatArray:
    """Uniform on [0, 1) from the top 53 bits."""
    return (h >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def _standard_normal(h: UIntArray) -> FloatArray:
    """Exact N(0, 1) draws by Box-Muller from two hash-derived uniforms."""
    u1 = _unit(_mix(h, _STREAM_NORMAL_1))
    u2 = _unit(_mix(h, _STREAM_NORMAL_2))
    return np.sqrt(-2.0 * np.log1p(-u1)) * np.cos(2.0 * np.pi * u2)


def _seed_key(seed: int, tag: int) -> UIntArray:
    return _splitmix64(np.array([(seed * 0x100000001B3 + tag) & 0xFFFFFFFFFFFFFFFF], dtype=np.uint64))


# --------------------------------------------------------------------------- vector helpers

_SMALL: Final = 2048  # below this many rows, factorize in Python (polars has a fixed cost)


def _factorize(values: StrColumn) -> tuple[IntArray, list[str | None]]:
    """Codes into the list of distinct values (in order of first appearance)."""
    if not isinstance(values, pl.Series) and len(values) <= _SMALL:
        index: dict[str | None, int] = {}
        small_codes = [index.setdefault(v, len(index)) for v in values]
        return np.array(small_codes, dtype=np.int64), list(index)
    series = values if isinstance(values, pl.Series) else pl.Series(values=list(values), dtype=pl.String)
    series = series.cast(pl.String)
    uniques = series.unique(maintain_order=True)
    codes = series.replace_strict(uniques, pl.int_range(0, len(uniques), eager=True), return_dtype=pl.Int64)
    return codes.to_numpy().astype(np.int64, copy=False), uniques.to_list()


def _fold(label: str | None) -> str | None:
    return None if label is None else " ".join(label.split()).casefold()


def logistic(logit: FloatArray) -> FloatArray:
    r"""The logistic function :math:`1 / (1 + e^{-\eta})`, computed stably."""
    out: FloatArray = 0.5 * (1.0 + np.tanh(0.5 * np.asarray(logit, dtype=np.float64)))
    return out


# --------------------------------------------------------------------------- model terms


def face_effect(seed: int, identity_ids: StrColumn, face_sd: float) -> FloatArray:
    r"""Per-identity random intercepts :math:`u_f = \tau z_f`, :math:`z_f \sim N(0, 1)`.

    :math:`z_f` is a deterministic function of ``(seed, identity_id)`` only, so an
    identity keeps its intercept across images, scenarios, runs and batches.

    Parameters
    ----------
    seed
        ``SimulatedSettings.seed``.
    identity_ids
        One identity per row (may repeat).
    face_sd
        :math:`\tau`.

    Returns
    -------
    numpy.ndarray
        The intercept of each row's identity.
    """
    codes, uniques = _factorize(identity_ids)
    z = _standard_normal(_mix(_seed_key(seed, _TAG_FACE), _string_hashes(uniques)))
    return face_sd * z[codes]


def scenario_base_logits(settings: SimulatedSettings, scenario_ids: Sequence[str]) -> FloatArray:
    r"""Base logit :math:`\beta_s` per scenario: the override, else
    :math:`\mu_\beta + \sigma_\beta z_s` with :math:`z_s` drawn from ``(seed, scenario_id)``."""
    z = _standard_normal(_mix(_seed_key(settings.seed, _TAG_SCENARIO), _string_hashes(list(scenario_ids))))
    derived = settings.base_logit_mean + settings.base_logit_sd * z
    overrides = np.array(
        [settings.scenario_base_logit.get(s, math.nan) for s in scenario_ids], dtype=np.float64
    )
    return np.where(np.isnan(overrides), derived, overrides)


def _category_scales(settings: SimulatedSettings, categories: Sequence[str | None]) -> FloatArray:
    return np.array([settings.category_scale.get(c, 1.0) if c else 1.0 for c in categories], dtype=np.float64)


def _variation_effect(settings: SimulatedSettings, feature_key: str | None, value: str | None) -> float:
    if value is None:
        return 0.0
    if feature_key is not None:
        keyed = settings.variation_effects.get(f"{feature_key}={value}")
        if keyed is not None:
            return keyed
    return settings.variation_effects.get(value, 0.0)


def _demographic_offset(
    settings: SimulatedSettings, demographics: Mapping[str, StrColumn], n: int
) -> FloatArray:
    r""":math:`\sum_A \delta_{A, g_A}` per row."""
    total = np.zeros(n, dtype=np.float64)
    for attribute, shift_by_label in settings.demographic_effects.items():
        if not shift_by_label:
            continue
        folded = {_fold(label): shift for label, shift in shift_by_label.items()}
        codes, uniques = _factorize(demographics[attribute])
        table = np.array([folded.get(_fold(u), 0.0) for u in uniques], dtype=np.float64)
        total += table[codes]
    return total


def _variation_shift(
    settings: SimulatedSettings,
    feature_keys: StrColumn,
    values: StrColumn,
    demographics: Mapping[str, StrColumn],
    n: int,
) -> FloatArray:
    r""":math:`\theta_v + \sum_k \gamma_k [v = v_k, g_{A_k} = h_k]` per row (before :math:`\kappa`)."""
    key_codes, key_uniques = _factorize(feature_keys)
    value_codes, value_uniques = _factorize(values)
    n_values = len(value_uniques)
    pair_codes = key_codes * n_values + value_codes
    table = np.array(
        [_variation_effect(settings, k, v) for k in key_uniques for v in value_uniques], dtype=np.float64
    )
    shift = table[pair_codes]
    for effect in settings.group_variation_effects:
        value_hit = np.array([v == effect.value for v in value_uniques], dtype=bool)[value_codes]
        if effect.feature_key is not None:
            value_hit &= np.array([k == effect.feature_key for k in key_uniques], dtype=bool)[key_codes]
        group_codes, group_uniques = _factorize(demographics[effect.attribute])
        group_hit = np.array([_fold(g) == _fold(effect.group) for g in group_uniques], dtype=bool)[
            group_codes
        ]
        shift = shift + effect.shift * (value_hit & group_hit)
    return np.asarray(shift, dtype=np.float64)


def _ordering_offset(settings: SimulatedSettings, orderings: npt.ArrayLike) -> FloatArray:
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


def _check_lengths(**columns: Any) -> int:
    lengths = {name: len(column) for name, column in columns.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"columns differ in length: {lengths}")
    return next(iter(lengths.values()), 0)


class ContentColumns(TypedDict):
    r"""The row columns that fix :math:`\eta` up to the ordering term: the keyword arguments
    shared by :func:`favorable_logit`, :func:`favorable_probability` and :func:`expected_phi`
    (documented at :func:`favorable_logit`)."""

    scenario_ids: StrColumn
    scenario_categories: StrColumn
    identity_ids: StrColumn
    age: StrColumn
    gender: StrColumn
    ethnicity: StrColumn
    body_type: StrColumn
    feature_keys: StrColumn
    values: StrColumn


def _content_logit(
    settings: SimulatedSettings,
    *,
    scenario_ids: StrColumn,
    scenario_categories: StrColumn,
    identity_ids: StrColumn,
    age: StrColumn,
    gender: StrColumn,
    ethnicity: StrColumn,
    body_type: StrColumn,
    feature_keys: StrColumn,
    values: StrColumn,
) -> FloatArray:
    """η without the ordering term."""
    n = _check_lengths(
        scenario_ids=scenario_ids,
        scenario_categories=scenario_categories,
        identity_ids=identity_ids,
        age=age,
        gender=gender,
        ethnicity=ethnicity,
        body_type=body_type,
        feature_keys=feature_keys,
        values=values,
    )
    demographics = {"age": age, "gender": gender, "ethnicity": ethnicity, "body_type": body_type}
    scenario_codes, scenario_uniques = _factorize(scenario_ids)
    category_codes, category_uniques = _factorize(scenario_categories)
    base = scenario_base_logits(settings, [s or "" for s in scenario_uniques])[scenario_codes]
    scale = _category_scales(settings, category_uniques)[category_codes]
    return (
        base
        + face_effect(settings.seed, identity_ids, settings.face_sd)
        + _demographic_offset(settings, demographics, n)
        + scale * _variation_shift(settings, feature_keys, values, demographics, n)
    )


# --------------------------------------------------------------------------- public truth


def favorable_logit(
    settings: SimulatedSettings, *, orderings: npt.ArrayLike, **columns: Unpack[ContentColumns]
) -> FloatArray:
    r"""The logit :math:`\eta` of naming the favorable descriptor, per prompt (row).

    Parameters
    ----------
    settings
        The judge.
    scenario_ids, scenario_categories
        Scenario of each row and its category (for :math:`\beta_s`, :math:`\kappa_{c(s)}`).
    identity_ids
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
    content = _content_logit(settings, **columns)
    _check_lengths(rows=content, orderings=np.asarray(orderings))
    return content + _ordering_offset(settings, orderings)


def favorable_probability(
    settings: SimulatedSettings, *, orderings: npt.ArrayLike, **columns: Unpack[ContentColumns]
) -> FloatArray:
    r"""P(the answer names the favorable descriptor | valid) = logistic(:math:`\eta`), per prompt.

    Same parameters as :func:`favorable_logit`.
    """
    return logistic(favorable_logit(settings, orderings=orderings, **columns))


def expected_phi(
    settings: SimulatedSettings,
    *,
    orderings: Sequence[int] = (1, 2, 3, 4),
    **columns: Unpack[ContentColumns],
) -> FloatArray:
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
    content = _content_logit(settings, **columns)
    offsets = _ordering_offset(settings, list(orderings))
    if offsets.size == 0:
        raise ValueError("expected_phi needs at least one ordering")
    phi: FloatArray = np.mean(logistic(content[:, None] + offsets[None, :]), axis=1)
    return phi


@lru_cache(maxsize=16)
def _hermgauss(n_nodes: int) -> tuple[FloatArray, FloatArray]:
    nodes, weights = np.polynomial.hermite.hermgauss(n_nodes)
    return nodes, weights


def _scenario_category(scenario_id: str) -> str:
    for scenarios in SCENARIO_SETS.values():
        for scenario in scenarios:
            if scenario.scenario_id == scenario_id:
                return str(scenario.category)
    raise ValueError(f"scenario {scenario_id!r} is in no known scenario set; pass scenario_category=")


def population_delta(
    settings: SimulatedSettings,
    feature_key: str,
    value: str,
    scenario_id: str,
    *,
    scenario_category: str | None = None,
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
    scenario_id
        The scenario; its category is looked up in the known scenario sets unless
        ``scenario_category`` is given.
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
    category = scenario_category if scenario_category is not None else _scenario_category(scenario_id)
    demographics: dict[str, StrColumn] = {
        "age": [age],
        "gender": [gender],
        "ethnicity": [ethnicity],
        "body_type": [body_type],
    }
    base = (
        scenario_base_logits(settings, [scenario_id])[0] + _demographic_offset(settings, demographics, 1)[0]
    )
    shift = (
        _category_scales(settings, [category])[0]
        * _variation_shift(settings, [feature_key], [value], demographics, 1)[0]
    )
    offsets = _ordering_offset(settings, list(orderings))
    nodes, weights = _hermgauss(quadrature_nodes)
    face = math.sqrt(2.0) * settings.face_sd * nodes  # u at the nodes
    logits = base + face[:, None] + offsets[None, :]
    per_node = np.mean(logistic(logits + shift) - logistic(logits), axis=1)
    return float(np.sum(weights * per_node) / math.sqrt(math.pi))


# --------------------------------------------------------------------------- drawing answers


@dataclass(frozen=True)
class SimulatedDraws:
    """Everything the simulated judge decided for a batch, row-aligned.

    Attributes
    ----------
    p_favorable
        P(names favorable | valid) of each prompt (the truth, not returned to the runner).
    valid
        Whether the answer is valid.
    chose_favorable
        Whether a valid answer names the favorable descriptor (False where invalid).
    chosen_letter
        ``'a'``/``'b'``, or ``''`` where invalid.
    invalid_kind
        ``'refusal'``/``'hedge'``/``'both'``, or ``''`` where valid.
    response_text
        The raw text.
    latency_ms
        The simulated latency.
    """

    p_favorable: FloatArray
    valid: npt.NDArray[np.bool_]
    chose_favorable: npt.NDArray[np.bool_]
    chosen_letter: npt.NDArray[np.str_]
    invalid_kind: npt.NDArray[np.str_]
    response_text: list[str]
    latency_ms: FloatArray


def _cumulative(weights: Sequence[float]) -> FloatArray:
    cumulative: FloatArray = np.cumsum(np.asarray(weights, dtype=np.float64))
    normalised: FloatArray = cumulative / cumulative[-1]
    return normalised


class SimulatedBackend(Backend):
    """The simulated judge as a backend (``backend = "simulated"``).

    Parameters
    ----------
    model
        Its ``settings`` are parsed into :class:`SimulatedSettings` (bad settings raise
        a one-line :class:`~cueshift.errors.ConfigError`).
    context
        Images (with demographics and variation metadata) and scenarios.
    """

    name = "simulated"
    scores = False

    def __init__(self, model: ModelConfig, context: StudyContext) -> None:
        super().__init__(model, context)
        self.settings = parse_settings(model)
        self._answer_key = _mix(
            _seed_key(self.settings.seed, _TAG_ANSWER), np.uint64(_string_hash(model.model_id))
        )
        self._styles = list(self.settings.answer_styles)
        self._style_cumulative = _cumulative(list(self.settings.answer_styles.values()))
        kinds = [kind for kind in INVALID_KINDS if self.settings.invalid_mix.get(kind, 0.0) > 0]
        self._invalid_kinds = kinds
        self._kind_cumulative = _cumulative([self.settings.invalid_mix[k] for k in kinds])
        self._invalid_texts = [(kind, text) for kind in kinds for text in INVALID_TEXTS[kind]]
        first_index = {
            kind: [i for i, (k, _) in enumerate(self._invalid_texts) if k == kind][0] for kind in kinds
        }
        self._kind_first = np.array([first_index[k] for k in kinds], dtype=np.int64)
        self._kind_count = np.array([len(INVALID_TEXTS[k]) for k in kinds], dtype=np.int64)

    # -- per-image and per-scenario terms (computed on the distinct ids of a batch)

    def _image_terms(self, image_ids: Sequence[str]) -> tuple[FloatArray, FloatArray, UIntArray]:
        """(logit offset without scenario, variation shift before κ, id hash) per image."""
        try:
            records = [self.context.images[image_id] for image_id in image_ids]
        except KeyError as exc:
            raise ValueError(f"image {exc.args[0]!r} is not in the study context") from None
        n = len(records)
        demographics: dict[str, StrColumn] = {
            "age": [r.age for r in records],
            "gender": [r.gender for r in records],
            "ethnicity": [r.ethnicity for r in records],
            "body_type": [r.body_type for r in records],
        }
        offset = face_effect(self.settings.seed, [r.identity_id for r in records], self.settings.face_sd)
        offset = offset + _demographic_offset(self.settings, demographics, n)
        shift = _variation_shift(
            self.settings,
            [r.feature_key for r in records],
            [r.variation_value for r in records],
            demographics,
            n,
        )
        return offset, shift, _string_hashes(list(image_ids))

    def _rows(self, frame: pl.DataFrame) -> tuple[IntArray, UIntArray, IntArray, list[Scenario], FloatArray]:
        """Factorize image_id/scenario_id of ``frame``: (image codes, image hash per code,
        scenario codes, scenarios, content logit per row i.e. η without the ordering term)."""
        image_codes, image_ids = _factorize(frame.get_column("image_id"))
        scenario_codes, scenario_ids = _factorize(frame.get_column("scenario_id"))
        try:
            scenarios = [self.context.scenarios[str(s)] for s in scenario_ids]
        except KeyError as exc:
            raise ValueError(f"scenario {exc.args[0]!r} is not in the study context") from None
        image_offset, image_shift, image_hash = self._image_terms([str(i) for i in image_ids])
        scenario_base = scenario_base_logits(self.settings, [s.scenario_id for s in scenarios])
        scenario_scale = _category_scales(self.settings, [s.category for s in scenarios])
        content = (
            scenario_base[scenario_codes]
            + image_offset[image_codes]
            + scenario_scale[scenario_codes] * image_shift[image_codes]
        )
        return image_codes, image_hash, scenario_codes, scenarios, content

    def expected_phi(self, pairs: pl.DataFrame, orderings: Sequence[int] = (1, 2, 3, 4)) -> FloatArray:
        r"""The exact :math:`\mathbb{E}[\phi_s(x)]` of each (image_id, scenario_id) row of
        ``pairs``, from the context's metadata (see the module function :func:`expected_phi`)."""
        content = self._rows(pairs)[4]
        offsets = _ordering_offset(self.settings, list(orderings))
        phi: FloatArray = np.mean(logistic(content[:, None] + offsets[None, :]), axis=1)
        return phi

    def simulate(self, batch: pl.DataFrame) -> SimulatedDraws:
        """Draw the answers of ``batch`` (columns image_id, scenario_id, ordering, seed)."""
        n = batch.height
        image_codes, image_hash, scenario_codes, scenarios, content = self._rows(batch)
        orderings = batch.get_column("ordering").to_numpy().astype(np.int64)
        seeds = batch.get_column("seed").to_numpy().astype(np.uint64)
        p_favorable = logistic(content + _ordering_offset(self.settings, orderings))

        # one 64-bit key per answer: (settings.seed, model_id) ⊕ image ⊕ scenario ⊕ ordering ⊕ seed
        scenario_hash = _string_hashes([s.scenario_id for s in scenarios])
        key = np.broadcast_to(self._answer_key, (n,))
        key = _mix(key, image_hash[image_codes])
        key = _mix(key, scenario_hash[scenario_codes])
        key = _mix(key, orderings.astype(np.uint64))
        key = _mix(key, seeds)

        valid = _unit(_mix(key, _STREAM_VALID)) >= self.settings.invalid_rate
        chose_favorable = valid & (_unit(_mix(key, _STREAM_CHOICE)) < p_favorable)
        u_style = _unit(_mix(key, _STREAM_STYLE))
        latency_ms = self.settings.latency_ms_mean * (0.5 + _unit(_mix(key, _STREAM_LATENCY)))

        favorable_is_a = np.array(
            [False] + [ORDERING_BY_ID[o].favorable_letter == "a" for o in range(1, max(ORDERING_BY_ID) + 1)]
        )[orderings]
        letter_is_a = favorable_is_a == chose_favorable  # chosen letter is (a)
        chosen_letter = np.where(valid, np.where(letter_is_a, "a", "b"), "")

        # valid text code: ((style * 2 + letter_is_b) * n_scenarios + scenario) * 2 + chose_unfavorable
        n_scenarios = len(scenarios)
        style = np.searchsorted(self._style_cumulative, u_style, side="right").clip(0, len(self._styles) - 1)
        valid_code = ((style * 2 + (~letter_is_a)) * n_scenarios + scenario_codes) * 2 + (~chose_favorable)
        n_valid_codes = len(self._styles) * 2 * n_scenarios * 2

        invalid_kind = np.full(n, "", dtype="<U7")
        code = valid_code.astype(np.int64)
        if self._invalid_kinds and not valid.all():
            kind_index = np.searchsorted(self._kind_cumulative, _unit(_mix(key, _STREAM_KIND)), side="right")
            kind_index = kind_index.clip(0, len(self._invalid_kinds) - 1)
            text_index = self._kind_first[kind_index] + np.minimum(
                (u_style * self._kind_count[kind_index]).astype(np.int64), self._kind_count[kind_index] - 1
            )
            invalid_code = n_valid_codes + text_index * n_scenarios + scenario_codes
            code = np.where(valid, code, invalid_code)
            invalid_kind = np.where(valid, "", np.array(self._invalid_kinds, dtype="<U7")[kind_index])

        used = np.unique(code)
        table = np.empty(n_valid_codes + len(self._invalid_texts) * n_scenarios, dtype=object)
        for c in used.tolist():
            table[c] = self._render(c, scenarios, n_scenarios, n_valid_codes)
        return SimulatedDraws(
            p_favorable=p_favorable,
            valid=valid,
            chose_favorable=chose_favorable,
            chosen_letter=chosen_letter,
            invalid_kind=invalid_kind,
            response_text=table[code].tolist(),
            latency_ms=latency_ms,
        )

    def _render(self, code: int, scenarios: Sequence[Scenario], n_scenarios: int, n_valid_codes: int) -> str:
        if code >= n_valid_codes:
            text_index, scenario_code = divmod(code - n_valid_codes, n_scenarios)
            scenario = scenarios[scenario_code]
            template = self._invalid_texts[text_index][1]
            return template.replace("{favorable}", scenario.favorable).replace(
                "{unfavorable}", scenario.unfavorable
            )
        rest, chose_unfavorable = divmod(code, 2)
        rest, scenario_code = divmod(rest, n_scenarios)
        style, letter_is_b = divmod(rest, 2)
        scenario = scenarios[scenario_code]
        descriptor = scenario.unfavorable if chose_unfavorable else scenario.favorable
        return _render_style(self._styles[style], "b" if letter_is_b else "a", descriptor)

    def judge(self, batch: pl.DataFrame) -> BackendAnswers:
        """Raw answer texts and simulated latencies; ``p_favorable`` is None (not a scorer)."""
        draws = self.simulate(batch)
        return BackendAnswers(response_text=draws.response_text, latency_ms=draws.latency_ms.tolist())


__all__ = [
    "DEFAULT_ANSWER_STYLES",
    "DEFAULT_CATEGORY_SCALE",
    "DEFAULT_DEMOGRAPHIC_EFFECTS",
    "DEFAULT_INVALID_MIX",
    "DEFAULT_VARIATION_EFFECTS",
    "ContentColumns",
    "INVALID_TEXTS",
    "GroupVariationEffect",
    "SimulatedBackend",
    "SimulatedDraws",
    "SimulatedSettings",
    "expected_phi",
    "face_effect",
    "favorable_logit",
    "favorable_probability",
    "logistic",
    "parse_settings",
    "population_delta",
    "scenario_base_logits",
]
