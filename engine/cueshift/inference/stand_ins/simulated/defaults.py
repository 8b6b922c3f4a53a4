"""The simulated judge's defaults: planted effects, answer styles and invalid answers.

The effects are on the logit scale of "names the favorable descriptor" (see
:mod:`cueshift.inference.stand_ins.simulated`); :class:`~.settings.SimulatedSettings` starts from them.
"""

from __future__ import annotations

from typing import Final, Literal

DEMOGRAPHIC_ATTRIBUTES: Final[tuple[str, ...]] = ("age", "gender", "ethnicity", "body_type")
DemographicAttribute = Literal["age", "gender", "ethnicity", "body_type"]
InvalidKind = Literal["refusal", "hedge", "both"]
INVALID_KINDS: Final[tuple[InvalidKind, ...]] = ("refusal", "hedge", "both")


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
#: appearance cue moves socioeconomic and appearance judgments most). The keys are the
#: StylisticBias categories (:data:`cueshift.designs.stylisticbias.scenarios.SCENARIO_CATEGORIES`).
DEFAULT_CATEGORY_SCALE: Final[dict[str, float]] = {
    "Personality & Social": 0.8,
    "Interpersonal": 0.6,
    "Behavioral": 0.7,
    "Socioeconomic & Appearance": 2.5,
}


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

SAMPLE_MAPPINGS: Final[tuple[dict[str, str], ...]] = (
    {"a": "Competent", "b": "Incompetent"},
    {"a": "Renter", "b": "Home owner"},
    {"a": "Open-minded", "b": "Closed-minded"},
)


__all__ = [
    "DEFAULT_ANSWER_STYLES",
    "DEFAULT_CATEGORY_SCALE",
    "DEFAULT_DEMOGRAPHIC_EFFECTS",
    "DEFAULT_INVALID_MIX",
    "DEFAULT_VARIATION_EFFECTS",
    "DEMOGRAPHIC_ATTRIBUTES",
    "INVALID_KINDS",
    "INVALID_TEXTS",
    "SAMPLE_MAPPINGS",
    "DemographicAttribute",
    "InvalidKind",
]
