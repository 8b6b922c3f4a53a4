"""The study-file section of the probe design (seed 004): ``[probe]``, and its study model."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, field_validator, model_validator

from cueshift.study.config import Study
from cueshift.study.sections import Section, SyntheticRaters, refuse_unread

if TYPE_CHECKING:
    from cueshift.stats import Resampling

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
    baselines: bool = Field(
        default=True, description="image-statistics baselines of the similarity (result_probe_baselines)"
    )
    baseline_folds: int = Field(default=10, ge=2, description="cross-validation folds over images")
    baseline_ridge: float = Field(default=1.0, ge=0.0, description="ridge penalty (standardised statistics)")
    baseline_image_size: int | None = Field(
        default=256,
        ge=16,
        description="images scaled to this long side for their statistics (None: as stored)",
    )
    face_box: tuple[float, float, float, float] | None = Field(
        default=None,
        description="face region (x0, y0, x1, y1) as fractions; default: OMI's or the demo's",
    )
    random_twins: bool = Field(
        default=False, description="add a random-weight twin (<model_id>.random) of every CLIP model"
    )
    twin_resamples: int = Field(
        default=2000,
        ge=100,
        description="face-level bootstrap replicates of each model's difference from its twin",
    )

    @field_validator("face_box")
    @classmethod
    def _fractions(
        cls, value: tuple[float, float, float, float] | None
    ) -> tuple[float, float, float, float] | None:
        if value is not None and not (
            0.0 <= value[0] < value[2] <= 1.0 and 0.0 <= value[1] < value[3] <= 1.0
        ):
            raise ValueError("face_box is [x0, y0, x1, y1] with 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1")
        return value

    def resampling(self, *, resamples: int | None = None, seed: int | None = None) -> Resampling:
        """The design's one random step, the random rater splits of the split-half reliability:
        ``resamples`` splits (``--resamples``; default ``n_splits``) drawn with ``seed``
        (``--seed``; default ``split_seed``), every interval at ``confidence``.

        >>> ProbeConfig(human_means="m.csv").resampling(seed=3)
        Resampling(resamples=100, seed=3, confidence_level=0.95, ci_method='bca', test='rank')
        """
        from cueshift.stats import Resampling  # the stats layer: not when a study file is read (D90)

        return Resampling(
            resamples=self.n_splits if resamples is None else resamples,
            seed=self.split_seed if seed is None else seed,
            confidence_level=self.confidence,
        )

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

    @model_validator(mode="after")
    def _sections_read(self) -> ProbeStudy:
        refuse_unread(
            self,
            "probe",
            {
                "variations": "it judges the base faces only",
                "audit": "it has no base/variation edits for `cueshift audit`",
            },
        )
        if self.build is not None and self.build.generator("variation") is not None:
            raise ValueError(
                "[build.generators]: a 'variation' stage makes edits the 'probe' design never judges "
                "(it judges the base faces only); give the base stage only"
            )
        return self

    @model_validator(mode="before")
    @classmethod
    def _random_twins(cls, data: Any) -> Any:
        """``[probe] random_twins = true``: a random-weight twin of every CLIP model joins ``models``."""
        if not isinstance(data, dict):
            return data
        probe = data.get("probe")
        wanted = (
            probe.random_twins
            if isinstance(probe, ProbeConfig)
            else (isinstance(probe, dict) and probe.get("random_twins") is True)
        )
        if wanted and isinstance(data.get("models"), list):
            from cueshift.designs.probe.twins import with_random_twins

            data = {**data, "models": with_random_twins(data["models"])}
        return data
