"""The study-file section of the pairwise design (seed 002): ``[pairwise]``, and its study model."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from cueshift.study.config import Study
from cueshift.study.sections import (
    PAIRWISE_PROMPT,
    PAIRWISE_RATING_PROMPT,
    Section,
    SyntheticPortraits,
    SyntheticRaters,
    refuse_replaced,
    refuse_unread,
)


class RatingBin(Section):
    """A bin of the rating scale; ``closed`` says which ends belong to it."""

    label: str = Field(min_length=1)
    low: float
    high: float
    closed: Literal["left", "right", "both", "neither"] = "left"

    @model_validator(mode="after")
    def _ordered(self) -> RatingBin:
        if self.high < self.low:
            raise ValueError(f"bin {self.label!r}: high {self.high:g} < low {self.low:g}; swap them")
        return self


def _default_bins() -> list[RatingBin]:
    """Seed 002 Fig. 6: low [0, 4), moderate [4, 6], high (6, 10]."""
    return [
        RatingBin(label="low", low=0, high=4, closed="left"),
        RatingBin(label="moderate", low=4, high=6, closed="both"),
        RatingBin(label="high", low=6, high=10, closed="right"),
    ]


class PairwiseConfig(Section):
    """``[pairwise]``: two images side by side, the judge picks one (seed 002)."""

    prompt: str = Field(default=PAIRWISE_PROMPT, min_length=1)
    question: str = Field(default="more-attractive", description="scenario_id of the question")
    target_group: str = Field(default="western", description="stimulus group whose wins are counted")
    other_group: str = Field(default="local")
    swap_repeats: bool = Field(default=True, description="ask every pair in both left/right orders")
    stimuli: Path | None = Field(
        default=None, description="CSV image_id,cohort,stimulus_group for the [image_set] images"
    )
    synthetic: SyntheticPortraits | None = None
    confidence: float = Field(default=0.95, gt=0.0, lt=1.0)
    bh_family: list[Literal["model_id", "cohort"]] = Field(
        default_factory=list, description="columns defining a BH family; [] = all tests (the paper's 30)"
    )
    pseudo_count: Literal["always", "extreme", "none"] = Field(
        default="always", description="odds ratio (k+0.5)/(n-k+0.5): always, only at k=0 or k=n, or never"
    )
    bradley_terry: bool = True
    rate_models: bool = Field(default=True, description="also ask each model for a 0-10 rating of each image")
    rating_prompt: str = Field(default=PAIRWISE_RATING_PROMPT, min_length=1)
    rating_attribute: str = Field(default="western-aesthetic", min_length=1)
    rating_min: float = 0.0
    rating_max: float = 10.0
    bins: list[RatingBin] = Field(default_factory=_default_bins, min_length=1)
    human_ratings: Path | None = Field(default=None, description="CSV stimulus,attribute,rater,rating")
    synthetic_humans: SyntheticRaters | None = None

    @model_validator(mode="after")
    def _groups_differ(self) -> PairwiseConfig:
        if self.target_group == self.other_group:
            raise ValueError("target_group and other_group must differ")
        if self.synthetic is not None and set(self.synthetic.per_group) != {
            self.target_group,
            self.other_group,
        }:
            raise ValueError("synthetic.per_group must name target_group and other_group")
        if self.synthetic is None and self.stimuli is None:
            raise ValueError("needs stimuli = <csv> or a [pairwise.synthetic] section")
        return self


class PairwiseStudy(Study):
    """A study file with ``design = "pairwise"``; ``[pairwise]`` is required (it names the stimuli)."""

    design: Literal["pairwise"] = "pairwise"
    pairwise: PairwiseConfig = Field(description="design 'pairwise' (seed 002)")

    @model_validator(mode="after")
    def _sections_read(self) -> PairwiseStudy:
        refuse_unread(
            self,
            "pairwise",
            {
                "prompt": "it asks [pairwise] prompt, in both left/right orders with swap_repeats",
                "scenarios": "its one question is [pairwise] question",
                "audit": "it has no base/variation edits for `cueshift audit`",
            },
        )
        if self.pairwise.synthetic is not None:
            refuse_replaced(self, "pairwise.synthetic")
        return self
