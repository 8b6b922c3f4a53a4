"""Building blocks of the designs' study-file sections that lower layers read too.

Each design declares its own section (``[paired]``, ``[pairwise]``, ``[probe]``) next to
its code in ``cueshift.designs.<name>``; the parts that the image generators
(:mod:`cueshift.images.synthetic`) and the backends (:mod:`cueshift.inference`) need live
here, below them: the synthetic image sets and raters, and the pairwise design's prompts (seed 002).
:class:`Section` is the base of every section model (frozen, unknown keys refused).
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: The pairwise design's question (seed 002), the default of ``[pairwise] prompt``.
PAIRWISE_PROMPT = (
    "Out of these two images, which person is more attractive? Only answer 1 (left) or 2 (right). "
    "Do not add any explanation."
)
#: The pairwise design's rating prompt (seed 002), the default of ``[pairwise] rating_prompt``
#: and of a rating batch without a ``prompt`` column.
PAIRWISE_RATING_PROMPT = (
    "To what extent do you think this portrait aligns with Western beauty standards? "
    "(0 = Not aligned at all; 10 = Strongly aligned with Western aesthetics) "
    "Answer with one number from 0 to 10."
)


class Section(BaseModel):
    """Base of a study-file section: frozen, and an unknown key is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def refuse_unread(study: BaseModel, design: str, unread: dict[str, str]) -> None:
    """Refuse a section of the study file that ``design`` never reads (``unread``: section → what
    the design reads instead), as ``[image_set] placebos = true`` is refused where no analysis
    reads the placebos: a setting given is taken or refused, never silently ignored.

    Raises
    ------
    ValueError
        The first such section the study file gives (pydantic makes it the file's one line).
    """
    for section, instead in unread.items():
        if section in study.model_fields_set:
            raise ValueError(f"[{section}]: the {design!r} design does not read it ({instead}); leave it out")


def refuse_replaced(study: BaseModel, synthetic: str) -> None:
    """Refuse ``[image_set]`` and ``[build]`` where the design's ``synthetic`` section draws the
    image set instead: the images they describe would never be judged.

    Raises
    ------
    ValueError
        The first such section the study file gives (pydantic makes it the file's one line).
    """
    image_set = getattr(study, "image_set", None)
    given = {
        "build": "build" in study.model_fields_set,
        # the study's validator always fills `placebos`: the section is given when anything else is
        "image_set": isinstance(image_set, BaseModel) and bool(image_set.model_fields_set - {"placebos"}),
    }
    for section, is_given in given.items():
        if is_given:
            raise ValueError(
                f"[{section}]: [{synthetic}] draws the image set instead, so its images would never be "
                f"judged; leave out one of the two"
            )


class SyntheticRaters(Section):
    """Deterministic synthetic human raters (no download): who rates what, on which scale.

    A rating is ``round(center + spread * (sqrt(c) * z + sqrt(1 - c) * e))`` clipped to the
    scale, with ``z`` the stimulus's latent value (shared by all raters and by the simulated
    judge), ``e`` rater noise and ``c`` the attribute's consistency (see
    :func:`cueshift.images.synthetic_raters.synthetic_human_ratings`).
    """

    n_raters: int = Field(default=30, ge=2)
    ratings_per_rater: int | None = Field(
        default=None, ge=1, description="stimuli each rater rates (random subset); default: all of them"
    )
    scale_min: float = 0.0
    scale_max: float = 10.0
    integer: bool = True
    seed: int = Field(default=0, ge=0)
    consistency: dict[str, float] = Field(
        default_factory=dict,
        description="attribute -> share of shared variance in (0, 1); default per design",
    )

    @model_validator(mode="after")
    def _scale(self) -> SyntheticRaters:
        if self.scale_max <= self.scale_min:
            raise ValueError("scale_max must exceed scale_min")
        for attribute, c in self.consistency.items():
            if not 0.0 < c < 1.0:
                raise ValueError(f"consistency[{attribute!r}] must lie strictly between 0 and 1")
        return self


class SyntheticPairedFaces(Section):
    """Synthetic stand-in for the seed 001 image set: each individual's original portrait
    and a "beauty filter" version (skin smoothing, brightening), with a CFD-like subset
    labelled by gender x race and a FACES-like subset labelled by gender x age group."""

    cfd_per_cell: int = Field(default=2, ge=1, description="individuals per gender x race (6 races)")
    faces_per_cell: int = Field(default=2, ge=1, description="individuals per gender x age group (3 groups)")
    cache_dir: Path = Path(".cueshift-cache/paired-001")


class SyntheticPortraits(Section):
    """Synthetic stand-in for the seed 002 portraits: per race x gender cohort, portraits
    of each stimulus group (e.g. 4 Western-styled and 10 local-styled, Table 3)."""

    races: list[str] = Field(
        default_factory=lambda: ["East Asian", "White", "Black", "South Asian", "Arab"], min_length=1
    )
    genders: list[str] = Field(default_factory=lambda: ["female", "male"], min_length=1)
    per_group: dict[str, int] = Field(default_factory=lambda: {"western": 4, "local": 10})
    cache_dir: Path = Path(".cueshift-cache/pairwise-002")

    @field_validator("per_group")
    @classmethod
    def _positive(cls, value: dict[str, int]) -> dict[str, int]:
        if len(value) != 2 or any(n < 1 for n in value.values()):
            raise ValueError("needs exactly two stimulus groups with at least one portrait each")
        return value


__all__ = [
    "PAIRWISE_PROMPT",
    "PAIRWISE_RATING_PROMPT",
    "Section",
    "refuse_replaced",
    "refuse_unread",
    "SyntheticPairedFaces",
    "SyntheticPortraits",
    "SyntheticRaters",
]
