"""``[build]``: how ``cueshift build`` makes a study's image set (seed 000 Appendix B).

Two stages. *Bases*: ``count`` faces allocated evenly over the cells of a demographic grid
(default: seed 000 Table 7, 3 ages x 2 genders x 5 ethnicities x 3 body types = 90 cells), each
drawn from the ``base`` prompt of the prompt family with the cell's values in its slots.
*Variations*: one feature key and one value per edit of a base, from the ``face`` prompt (or the
``body`` prompt for the full-body features), restricted by group, minus the plausibility
exclusions, kept to the curation whitelist. Every list here is study configuration: the
release's ``config/variation_features.json`` and ``variation_features_whitelist.json`` are read
as they are (``features_file``, ``whitelist_file``).

>>> GridConfig().cells()[0]
{'age': 'young adult', 'gender': 'male', 'ethnicity': 'Asian', 'body_type': 'thin'}
>>> len(GridConfig().cells())
90
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from cueshift.study.sections import Section
from cueshift.study.variations import ExclusionRule

#: Seed 000 Table 7, in the paper's order (the same labels as cueshift.images.labels).
TABLE_7: dict[str, list[str]] = {
    "age": ["young adult", "middle-aged adult", "elderly"],
    "gender": ["male", "female"],
    "ethnicity": ["Asian", "African", "European", "Middle Eastern", "Latino"],
    "body_type": ["thin", "normal", "obese"],
}
#: The seed's base prompt family (Appendix B.2, the release's ``generate_prompt``), slots in braces.
BASE_PROMPT = (
    "Photorealistic studio portrait of an average-looking {body_type} build {age} {gender} person "
    "with {ethnicity} facial features. Front-facing, neutral expression, head-and-shoulders framing. "
    "Bare face with uncovered ears, no earings, no jewelry, no accessories, no glasses, no headwear. "
    "Plain white studio backdrop, soft even lighting, no dramatic shadows. Natural skin texture with "
    "visible pores, minor blemishes, slight facial asymmetry, real-world imperfections, non-model "
    "appearance, realistic proportions. Documentary-style photography, not fashion, not advertising."
)
FACE_PROMPT = (
    "Edit the reference portrait: change only the {feature} to {value}. Keep the same person: the same "
    "identity, face, expression, pose, head-and-shoulders framing, plain background and even lighting. "
    "Change nothing else."
)
BODY_PROMPT = (
    "Using the reference portrait, show the same person full-body wearing {value} clothing ({feature}). "
    "Keep the same identity and face, neutral expression, plain white studio backdrop, even lighting."
)
#: The edit-audit measures a build can gate on (cueshift.stimuli.audit_gate).
AuditMeasure = Literal["changed_pixels", "unintended", "identity", "cue"]
#: The slots each prompt of the family may name (a base's grid fields; an edit's feature and value).
EDIT_SLOTS: frozenset[str] = frozenset({"feature", "value"})


class GridConfig(Section):
    """``[build.grid]``: the demographic fields and their values; the cells are their product."""

    fields: dict[str, list[str]] = Field(default_factory=lambda: {k: list(v) for k, v in TABLE_7.items()})

    @field_validator("fields")
    @classmethod
    def _values(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        if not value:
            raise ValueError("the grid names no field; e.g. gender = ['male', 'female']")
        for name, values in value.items():
            if not values:
                raise ValueError(f"grid field {name!r} has no values")
            if any(not v.strip() for v in values):
                raise ValueError(f"grid field {name!r} has an empty value")
            if len(set(values)) != len(values):
                raise ValueError(f"grid field {name!r} repeats a value")
        return value

    def cells(self) -> list[dict[str, str]]:
        """Every combination of the fields' values, in the fields' order (last field fastest)."""
        names = list(self.fields)
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*self.fields.values())]


class PromptFamily(Section):
    """``[build.prompts]``: the prompt templates, ``{slot}`` filled per image; ``family = "release"``
    writes the release's prompts instead (:mod:`cueshift.stimuli.prompts_release`)."""

    family: Literal["default", "release"] = "default"
    base: str = BASE_PROMPT
    face: str = FACE_PROMPT
    body: str = BODY_PROMPT

    @model_validator(mode="after")
    def _templates_or_release(self) -> PromptFamily:
        templates = (self.base, self.face, self.body)
        if self.family == "release" and templates != (BASE_PROMPT, FACE_PROMPT, BODY_PROMPT):
            raise ValueError("family = 'release' writes its own prompts: give templates or it, not both")
        return self


class GeneratorEntry(Section):
    """``[[build.generators]]``: which registered generator makes one stage."""

    stage: Literal["base", "variation"]
    generator: str = Field(min_length=1)
    model: str = ""
    settings: dict[str, Any] = Field(default_factory=dict)


class VariationPlan(Section):
    """``[build.variations]``: the variation space, its restrictions and exclusions."""

    features: dict[str, list[str]] | None = Field(default=None, description="feature_key -> values")
    features_file: Path | None = Field(default=None, description="a JSON file like the release's")
    whitelist: dict[str, list[str]] | None = None
    whitelist_file: Path | None = None
    restrictions: dict[str, dict[str, list[str]]] = Field(
        default_factory=lambda: {
            "facial_hair_male": {"gender": ["male"]},
            "makeup_female": {"gender": ["female"]},
            "lip_makeup_female": {"gender": ["female"]},
        },
        description="feature_key -> {grid field -> the values a base must have}",
    )
    exclusions: list[ExclusionRule] = Field(default_factory=list)
    body_features: list[str] = Field(default_factory=lambda: ["fashion_style"])

    @model_validator(mode="after")
    def _one_source(self) -> VariationPlan:
        if self.features is not None and self.features_file is not None:
            raise ValueError("give features or features_file, not both")
        if self.whitelist is not None and self.whitelist_file is not None:
            raise ValueError("give whitelist or whitelist_file, not both")
        return self


class BuildAudit(Section):
    """``[build.audit]``: the edit-audit measures each new variation must pass (bounds: ``[audit]``)."""

    measures: list[AuditMeasure] = Field(default_factory=lambda: list[AuditMeasure](["changed_pixels"]))
    min_identity: float = Field(default=0.8, ge=-1.0, le=1.0)


class BuildConfig(Section):
    """``[build]``: the two stages, the generators, the retries and the audit."""

    count: int = Field(default=90, ge=1, description="base faces, allocated evenly over the grid's cells")
    seed: int = Field(default=0, ge=0, description="the seed every image's seeds are drawn from")
    width: int = Field(default=512, ge=8)
    height: int = Field(default=512, ge=8)
    max_tries: int = Field(default=3, ge=1, description="calls per image before it is given up")
    grid: GridConfig = Field(default_factory=GridConfig)
    prompts: PromptFamily = Field(default_factory=PromptFamily)
    variations: VariationPlan = Field(default_factory=VariationPlan)
    generators: list[GeneratorEntry] = Field(min_length=1)
    audit: BuildAudit = Field(default_factory=BuildAudit)

    @field_validator("generators")
    @classmethod
    def _one_per_stage(cls, value: list[GeneratorEntry]) -> list[GeneratorEntry]:
        stages = [entry.stage for entry in value]
        if len(set(stages)) != len(stages):
            raise ValueError("one generator per stage: a stage is named twice")
        return value

    def generator(self, stage: str) -> GeneratorEntry | None:
        """The entry making ``stage``, if any."""
        return next((entry for entry in self.generators if entry.stage == stage), None)


__all__ = [
    "BASE_PROMPT",
    "BODY_PROMPT",
    "EDIT_SLOTS",
    "FACE_PROMPT",
    "TABLE_7",
    "BuildAudit",
    "BuildConfig",
    "GeneratorEntry",
    "GridConfig",
    "PromptFamily",
    "VariationPlan",
]
