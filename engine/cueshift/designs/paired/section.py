"""The study-file section of the paired design (seed 001): ``[paired]``, and its study model."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import Field, model_validator

from cueshift.errors import ConfigError
from cueshift.study.build_config import VariationPlan
from cueshift.study.config import Study
from cueshift.study.feature_file import read_feature_file
from cueshift.study.sections import Section, SyntheticPairedFaces, refuse_replaced, refuse_unread

Demographic = Literal["gender", "age", "ethnicity"]


def _demographics() -> list[Demographic]:
    return ["gender", "age", "ethnicity"]


class PairedConfig(Section):
    """``[paired]``: original vs filtered photos of the same individual (seed 001)."""

    filter_feature_key: str = Field(default="beauty_filter", description="feature_key of the filtered images")
    synthetic: SyntheticPairedFaces | None = Field(
        default=None, description="generate the synthetic image set instead of reading [image_set]"
    )
    correction: Literal["none", "bh"] = Field(
        default="none", description="'none' as the paper, or Benjamini-Hochberg over the scenarios"
    )
    alpha: float = Field(default=0.05, gt=0.0, lt=1.0)
    demographics: list[Demographic] = Field(default_factory=_demographics, min_length=1)
    confidence: float = Field(default=0.95, gt=0.0, lt=1.0)


class PairedStudy(Study):
    """A study file with ``design = "paired"``; ``[paired]`` may be left out (its defaults apply)."""

    design: Literal["paired"] = "paired"
    paired: PairedConfig = Field(default_factory=PairedConfig, description="design 'paired' (seed 001)")

    @model_validator(mode="after")
    def _sections_read(self) -> PairedStudy:
        refuse_unread(
            self,
            "paired",
            {"variations": "it judges every photo of [paired] filter_feature_key and its original"},
        )
        if self.paired.synthetic is not None:
            refuse_replaced(self, "paired.synthetic")
        if self.build is not None:
            _check_filter_features(self.build.variations, self.paired.filter_feature_key)
        return self


def _check_filter_features(plan: VariationPlan, key: str) -> None:
    """The build's features are exactly the filter's key: inline, or a ``features_file`` that exists
    (a missing file is the build's error, where it is read)."""
    features: Iterable[str] | None = plan.features
    where = "features"
    if plan.features_file is not None and plan.features_file.is_file():
        try:
            features = read_feature_file(plan.features_file)
        except ConfigError as exc:
            raise ValueError(str(exc)) from None
        where = f"features_file {plan.features_file}"
    if features is not None and set(features) != {key}:
        raise ValueError(
            f"[build.variations]: {where}: {sorted(features)}: the 'paired' design judges only the "
            f"variations of [paired] filter_feature_key '{key}'; give features = {{{key} = [...]}}"
        )
