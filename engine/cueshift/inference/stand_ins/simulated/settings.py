"""Settings of the simulated judge (``[models.settings]``), validated into one-line errors."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, field_validator

from cueshift.inference.backends.model_settings import validate_settings
from cueshift.inference.parser import parse_answer
from cueshift.inference.stand_ins.simulated.defaults import (
    DEFAULT_ANSWER_STYLES,
    DEFAULT_CATEGORY_SCALE,
    DEFAULT_DEMOGRAPHIC_EFFECTS,
    DEFAULT_INVALID_MIX,
    DEFAULT_VARIATION_EFFECTS,
    SAMPLE_MAPPINGS,
    DemographicAttribute,
    InvalidKind,
)
from cueshift.study.config import ModelConfig


class GroupVariationEffect(BaseModel):
    """An extra logit shift of variation ``value`` for faces whose ``attribute`` is ``group``."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    feature_key: str | None = Field(default=None, description="None matches the value under any feature")
    value: str = Field(min_length=1)
    attribute: DemographicAttribute
    group: str = Field(min_length=1)
    shift: float


def default_group_effects() -> list[GroupVariationEffect]:
    """The default group-specific shifts (seed 000 Table 10 patterns)."""
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
    group_variation_effects: list[GroupVariationEffect] = Field(default_factory=default_group_effects)
    letter_bias: float = Field(default=0.15, description="logit toward answering letter (a)")
    first_position_bias: float = Field(default=0.1, description="logit toward the option written first")
    invalid_rate: float = Field(
        default=0.02, ge=0.0, lt=1.0, description="P(invalid answer), content-independent"
    )
    variation_invalid_rates: dict[str, Annotated[float, Field(ge=0.0, lt=1.0)]] = Field(
        default_factory=dict,
        description="'<feature_key>=<value>' or '<value>' -> P(invalid answer) for images of that variation "
        "instead of invalid_rate (a cue that raises refusals; 'key=value' wins)",
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

    @field_validator("variation_effects", "variation_invalid_rates")
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
            for mapping in SAMPLE_MAPPINGS:
                for letter, descriptor in mapping.items():
                    text = render_style(template, letter, descriptor)
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
    return validate_settings(SimulatedSettings, model)


def render_style(template: str, letter: str, descriptor: str) -> str:
    """An answer style with its slots filled (``{letter}``, ``{LETTER}``, ``{descriptor}``)."""
    return (
        template.replace("{letter}", letter)
        .replace("{LETTER}", letter.upper())
        .replace("{descriptor}", descriptor)
    )


__all__ = [
    "GroupVariationEffect",
    "SimulatedSettings",
    "default_group_effects",
    "parse_settings",
    "render_style",
]
