"""The study-file section of the probe design (seed 004): ``[probe]``, and its study model."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator

from cueshift.study.config import Study
from cueshift.study.sections import Section, SyntheticRaters

Predictor = Literal["reliability", "dataset_size", "samples_seen", "image_params", "text_params"]


def _predictors() -> list[Predictor]:
    return ["reliability", "dataset_size", "samples_seen"]


class RegisteredModel(Section):
    """A model of the registry: family and scale, the predictors of seed 004 Table 2."""

    model_id: str = Field(min_length=1)
    family: str = Field(min_length=1)
    dataset_size: float | None = Field(default=None, gt=0)
    samples_seen: float | None = Field(default=None, gt=0)
    image_params: float | None = Field(default=None, gt=0)
    text_params: float | None = Field(default=None, gt=0)


class ProbeConfig(Section):
    """``[probe]``: model scores vs human facial impressions (seed 004)."""

    human_ratings: Path | None = Field(default=None, description="long CSV stimulus,attribute,rater,rating")
    human_means: Path | None = Field(default=None, description="CSV stimulus,attribute,mean[,n_raters]")
    reliability: Path | None = Field(default=None, description="CSV attribute,reliability (published IRR)")
    synthetic_humans: SyntheticRaters | None = None
    score: Literal["auto", "phi", "phi_expected"] = Field(
        default="auto", description="model score per image: P(favorable) of scoring backends, else phi"
    )
    n_splits: int = Field(default=100, ge=1)
    split_seed: int = Field(default=0, ge=0)
    split_correlation: Literal["pearson", "spearman"] = "pearson"
    irr_correlation: Literal["pearson", "spearman"] = "spearman"
    n_clusters: int = Field(default=3, ge=2)
    frobenius_off_diagonal: bool = False
    confidence: float = Field(default=0.95, gt=0.0, lt=1.0)
    registry: list[RegisteredModel] = Field(default_factory=list)
    ols_predictors: list[Predictor] = Field(default_factory=_predictors, min_length=1)

    @model_validator(mode="after")
    def _some_humans(self) -> ProbeConfig:
        if self.human_ratings is None and self.human_means is None and self.synthetic_humans is None:
            raise ValueError("needs human_ratings, human_means or a [probe.synthetic_humans] section")
        ids = [m.model_id for m in self.registry]
        if len(set(ids)) != len(ids):
            raise ValueError("registry model_id values repeat")
        return self


class ProbeStudy(Study):
    """A study file with ``design = "probe"``; ``[probe]`` is required (it names the human data)."""

    design: Literal["probe"] = "probe"
    probe: ProbeConfig = Field(description="design 'probe' (seed 004)")
