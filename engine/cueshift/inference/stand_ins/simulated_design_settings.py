"""The settings sections and answer formats of the simulated design judge.

``[models.settings.pairwise]``, ``[models.settings.rating]`` and
``[models.settings.impressions]`` of a ``backend = "simulated-designs"`` model, by the kind of
answer each shapes (:data:`ANSWER_SECTIONS`), and the raw-text pools its pairwise and rating
answers are drawn from (valid styles the design parsers accept, invalid answers they reject);
the judge itself is :mod:`~cueshift.inference.stand_ins.simulated_designs`.
"""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, ConfigDict, Field

PAIRWISE_STYLES: Final[tuple[str, ...]] = (
    "{n}",
    "{n}",
    "{n} ({side})",
    "Image {n}",
    "**{n}**",
    "{Side}",
    "{n}.",
)
PAIRWISE_INVALID: Final[tuple[str, ...]] = (
    "Both are equally attractive.",
    "I can't judge attractiveness.",
    "1 or 2",
    "Neither.",
)
RATING_STYLES: Final[tuple[str, ...]] = (
    "{r}",
    "{r}",
    "{r}/10",
    "Rating: {r}",
    "{r} out of 10",
    "Score: {r}.",
)
RATING_INVALID: Final[tuple[str, ...]] = ("I cannot rate how someone looks.", "Between 5 and 7.", "N/A")


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class PairwiseJudgeSettings(_Section):
    """``[models.settings.pairwise]``: latent strengths and position bias of the two-image judge."""

    group_effects: dict[str, float] = Field(default_factory=lambda: {"western": 1.0, "local": 0.0})
    cohort_group_effects: dict[str, float] = Field(
        default_factory=dict, description="'<cohort>|<group>' -> extra strength"
    )
    stimulus_sd: float = Field(default=0.5, ge=0.0)
    position_bias: float = Field(default=0.3, description="logit toward the left image")
    invalid_rate: float = Field(default=0.02, ge=0.0, lt=1.0)


class RatingJudgeSettings(_Section):
    """``[models.settings.rating]``: the 0-10 rating of one image."""

    group_latent: dict[str, float] = Field(default_factory=lambda: {"western": 1.0, "local": -1.0})
    center: float = 5.0
    spread: float = Field(default=2.0, ge=0.0)
    fidelity: float = Field(default=1.0, ge=0.0)
    noise_sd: float = Field(default=1.0, ge=0.0)
    scale_min: float = 0.0
    scale_max: float = 10.0
    invalid_rate: float = Field(default=0.02, ge=0.0, lt=1.0)


class ImpressionJudgeSettings(_Section):
    """``[models.settings.impressions]``: how the judge's forced choice follows latent impressions."""

    fidelity: float = Field(default=2.0, ge=0.0, description="logit loading at consistency 1")
    consistency: dict[str, float] = Field(default_factory=dict, description="default: synthetic OMI values")
    clusters: dict[str, str] = Field(default_factory=dict, description="default: synthetic OMI clusters")
    factor_loading: float = Field(default=0.7, ge=0.0, le=1.0)


#: The judge's own settings sections, by the kind of answer each shapes (``[models.settings.<kind>]``
#: of a study file): a two-image choice, a 0-10 rating, an impression-loaded forced choice. They
#: name answer formats of the simulated judge, not designs: any design whose work units ask for
#: such an answer gets it, and the study files' keys stay as they are.
ANSWER_SECTIONS: Final[dict[str, type[_Section]]] = {
    "pairwise": PairwiseJudgeSettings,
    "rating": RatingJudgeSettings,
    "impressions": ImpressionJudgeSettings,
}


__all__ = [
    "ANSWER_SECTIONS",
    "PAIRWISE_INVALID",
    "PAIRWISE_STYLES",
    "RATING_INVALID",
    "RATING_STYLES",
    "ImpressionJudgeSettings",
    "PairwiseJudgeSettings",
    "RatingJudgeSettings",
]
