"""The variation space and the judgment-stage filter of seed 000 Appendix C.1.

Feature keys follow the release (``lip_makeup_female`` is named in the paper); values
use the Table 8 wording. The whitelist keeps the 34 values of 12 categories that
Table 11 reports; the plausibility rules are the four of the "Plausibility pass".
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field


@dataclass(frozen=True)
class Feature:
    feature_key: str
    category: str  # display category, as in Tables 3 and 11
    values: tuple[str, ...]
    framing: str = "face"
    only_gender: str | None = None  # 'male' / 'female' for (M)/(F) attributes


#: Full variation space of seed 000 Table 8 (55 values).
FEATURES: tuple[Feature, ...] = (
    Feature("skin_irregularities", "Skin irregularities", ("Freckles", "Acne", "Scars", "Moles")),
    Feature("hair_color", "Hair color", ("Black", "Brown", "Blonde", "Red", "Gray", "Unnatural")),
    Feature("hair_length", "Hair length", ("Bald", "Short", "Medium", "Long")),
    Feature(
        "hair_style",
        "Hair style",
        ("Messy", "Slicked back", "Ponytail", "Braid", "Bun", "Afro", "Buzz cut", "Mohawk"),
    ),
    Feature(
        "facial_hair_male",
        "Facial hair",
        ("Clean-shaven", "Stubble", "Mustache", "Full beard"),
        only_gender="male",
    ),
    Feature("eyewear", "Eyewear", ("Thick-rimmed", "Thin metal", "Sunglasses")),
    Feature("makeup_female", "Makeup", ("Light", "Heavy"), only_gender="female"),
    Feature("lip_makeup_female", "Lip makeup", ("Neutral", "Red lipstick", "Bold"), only_gender="female"),
    Feature(
        "piercings", "Piercings", ("Single nose", "Single lip", "Single eyebrow", "Multiple", "Earrings")
    ),
    Feature("tattoos", "Tattoos", ("Facial tattoo",)),
    Feature("accessories", "Accessories", ("Cap", "Beanie", "Hat", "Headscarf")),
    Feature(
        "fashion_style",
        "Fashion",
        (
            "Professional / Business formal",
            "Formal / Evening wear",
            "Casual",
            "Smart casual",
            "Sporty / Athletic wear",
            "Streetwear",
            "Functional / outdoor wear",
            "Luxury / High fashion",
            "Vintage / Retro",
            "Worn / Distressed clothing",
            "Daring / Provocative",
        ),
        framing="body",
    ),
)
FEATURE_BY_KEY: dict[str, Feature] = {f.feature_key: f for f in FEATURES}

#: ``feature_key`` and ``variation_category`` of the noise-floor placebos (docs/decisions.md#d1): variations
#: of a base image whose pixels are the base's, so their true Δ is zero. Every filter keeps them.
PLACEBO_FEATURE_KEY = "placebo"
#: The two placebos planned per base image: the same file under a new image id, and its pixels
#: re-encoded losslessly (PNG) into a file of other bytes.
IDENTICAL_COPY = "Identical copy"
LOSSLESS_REENCODE = "Lossless re-encode"
PLACEBO_VALUES: tuple[str, ...] = (IDENTICAL_COPY, LOSSLESS_REENCODE)

#: Curation pass: the values Table 11 evaluates (34 values, 12 categories).
PAPER_WHITELIST: dict[str, list[str]] = {
    "skin_irregularities": ["Acne", "Freckles", "Moles"],
    "hair_color": ["Black", "Blonde", "Brown", "Gray"],
    "hair_length": ["Bald", "Long", "Short"],
    "hair_style": ["Messy", "Mohawk", "Slicked back"],
    "facial_hair_male": ["Clean-shaven", "Full beard"],
    "makeup_female": ["Heavy", "Light"],
    "lip_makeup_female": ["Red lipstick"],
    "tattoos": ["Facial tattoo"],
    "fashion_style": [
        "Casual",
        "Formal / Evening wear",
        "Functional / outdoor wear",
        "Professional / Business formal",
        "Smart casual",
        "Sporty / Athletic wear",
        "Streetwear",
        "Vintage / Retro",
        "Worn / Distressed clothing",
    ],
    "eyewear": ["Sunglasses", "Thick-rimmed"],
    "piercings": ["Multiple", "Single nose"],
    "accessories": ["Beanie", "Cap"],
}


class ExclusionRule(BaseModel):
    """Drop ``values`` of ``feature_key`` (for faces of ``gender`` only, when given)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    feature_key: str
    values: list[str] = Field(min_length=1)
    gender: str | None = None
    reason: str


#: Plausibility pass of seed 000 Appendix C.1.
PAPER_RULES: list[ExclusionRule] = [
    ExclusionRule(
        feature_key="hair_style",
        values=["Braid", "Bun"],
        gender="male",
        reason="plausibility: braid/bun on male faces (generation-quality confound)",
    ),
    ExclusionRule(
        feature_key="lip_makeup_female",
        values=["Neutral", "Bold"],
        reason="plausibility: neutral lipstick is the baseline; bold is redundant with red",
    ),
    ExclusionRule(
        feature_key="fashion_style",
        values=["Daring / Provocative"],
        reason="plausibility: daring/provocative is ill-defined and triggers refusals",
    ),
    ExclusionRule(
        feature_key="fashion_style",
        values=["Luxury / High fashion"],
        reason="plausibility: luxury/high fashion is not comparable across faces",
    ),
]


class VariationFilter(BaseModel):
    """Which variations reach the judgment stage; excluded images are kept with a reason."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    whitelist: dict[str, list[str]] | None = Field(
        default_factory=lambda: {k: list(v) for k, v in PAPER_WHITELIST.items()},
        description="feature_key -> allowed values; None keeps every value",
    )
    rules: list[ExclusionRule] = Field(default_factory=lambda: list(PAPER_RULES))

    def exclusion_reason(self, feature_key: str, value: str, gender: str | None) -> str | None:
        """Why a variation is not evaluated, or None when it is (rules first, then whitelist);
        noise-floor placebos (:data:`PLACEBO_FEATURE_KEY`) are always evaluated."""
        if feature_key.casefold() == PLACEBO_FEATURE_KEY:
            return None
        feature = FEATURE_BY_KEY.get(feature_key)
        if feature is not None and feature.only_gender and gender and gender != feature.only_gender:
            return f"applies to {feature.only_gender} faces only"
        for rule in self.rules:
            if rule.feature_key == feature_key and value in rule.values and rule.gender in (None, gender):
                return rule.reason
        if self.whitelist is not None and value not in self.whitelist.get(feature_key, []):
            return "curation: not on the whitelist"
        return None
