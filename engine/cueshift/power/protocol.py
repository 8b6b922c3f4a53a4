"""The protocol a StylisticBias study plans: faces and their demographics, the evaluated variation
values, scenarios, orderings, seeds, and how each model answers (sampled or scored).

Seed 000 §4.2 and App. C.2: every evaluated image × scenario is asked under
:math:`M` orderings × :math:`K` seeds, so a φ averages :math:`n = MK(1-q)` valid answers
(:math:`q` the invalid rate). In score mode a backend stores, from one forward pass, the
probability of the favorable answer: seeds collapse to one and φ carries no within-prompt
binomial noise (README, "Score mode").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import polars as pl

from cueshift.errors import ConfigError
from cueshift.study.config import ModelConfig, Study

Mode = Literal["sampling", "score"]
DIMENSIONS: tuple[str, ...] = ("age", "gender", "ethnicity", "body_type")
#: Backends whose default answer is a score (one forward pass, no seeds); the others sample.
SCORE_DEFAULT_BACKENDS = frozenset({"transformers", "clip"})
#: Shuffle of the study's faces when a plan asks for another number of them (fixed: plans repeat).
FACE_ORDER_SEED = 0


@dataclass(frozen=True)
class Protocol:
    """What one StylisticBias study asks, reduced to what power and cost depend on.

    Attributes
    ----------
    faces
        Demographics of the planned faces, one row each (``face_id`` and :data:`DIMENSIONS`).
    values
        Evaluated variation values with their ``variation_category`` and ``gender`` (the only
        gender whose faces get the value, e.g. facial hair on male faces; null: every face).
    scenarios, orderings, seeds
        Scenarios asked, prompt orderings, sampling seeds.
    modes
        ``model_id -> 'sampling' | 'score'`` in the study's model order.
    """

    faces: pl.DataFrame = field(compare=False)
    values: pl.DataFrame = field(compare=False)
    scenarios: int
    orderings: int
    seeds: int
    modes: dict[str, Mode]

    @property
    def n_faces(self) -> int:
        return self.faces.height

    @property
    def models(self) -> tuple[str, ...]:
        return tuple(self.modes)

    def prompts_per_phi(self, model_id: str) -> int:
        """Answers averaged into one φ (before invalid ones drop out): :math:`M K`, or :math:`M` scored."""
        return self.orderings * (1 if self.modes[model_id] == "score" else self.seeds)

    def value_faces(self) -> np.ndarray:
        """Boolean ``(n_faces, n_values)``: does face ``f`` get value ``v`` (its gender rule)?"""
        gender = self.faces["gender"].to_numpy()
        rule = self.values["gender"].to_list()
        return np.column_stack([np.ones(len(gender), bool) if g is None else gender == g for g in rule])

    def variations_per_face(self) -> float:
        """Mean evaluated variation images per face (seed 000: 15,726 / 500 = 31.45)."""
        return float(self.value_faces().sum(axis=1).mean()) if self.n_faces else 0.0

    def with_faces(self, n: int) -> Protocol:
        """The same protocol with ``n`` faces: the study's faces in a fixed shuffled order, repeated."""
        if n < 1:
            raise ConfigError(f"a plan needs at least 1 face, not {n}")
        base = self.faces
        order = np.random.default_rng(FACE_ORDER_SEED).permutation(base.height)
        if n == base.height:
            return self
        idx = order[np.arange(n) % base.height]
        faces = base[idx].with_columns(pl.Series("face_id", [f"plan-{i:05d}" for i in range(n)]))
        return replace(self, faces=faces)

    def with_design(
        self,
        *,
        scenarios: int | None = None,
        orderings: int | None = None,
        seeds: int | None = None,
        mode: Mode | None = None,
    ) -> Protocol:
        """A variant of the protocol (the trade-offs of a plan)."""
        modes = {m: mode for m in self.modes} if mode is not None else self.modes
        return replace(
            self,
            scenarios=scenarios or self.scenarios,
            orderings=orderings or self.orderings,
            seeds=seeds or self.seeds,
            modes=modes,
        )


def model_mode(model: ModelConfig) -> Mode:
    """How a model answers: its ``settings.mode`` (``'generate'`` samples), else its backend's default."""
    mode = model.settings.get("mode")
    if mode is None:
        return "score" if model.backend in SCORE_DEFAULT_BACKENDS else "sampling"
    return "score" if mode == "score" else "sampling"


def study_images(study: Study) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The face and image rows the study would judge, without drawing or reading an image.

    The demo image_set is listed by :func:`cueshift.images.demo.list_demo`; other image sets are read by
    :func:`cueshift.images.load_image_set` (manifests and releases are metadata only).
    """
    if study.image_set.kind == "demo":
        from cueshift.images.demo import list_demo

        listed = list_demo(study.image_set.size, study.variations)
        return listed.face, listed.image
    from cueshift.images import load_image_set

    no_placebos = study.image_set.model_copy(update={"placebos": False})  # not attributes; nothing written
    image_set = load_image_set(no_placebos, study.variations, progress=False)
    return image_set.face, image_set.image


def protocol_from_frames(
    face: pl.DataFrame,
    image: pl.DataFrame,
    *,
    scenarios: int,
    orderings: int,
    seeds: int,
    modes: dict[str, Mode],
) -> Protocol:
    """The protocol of an image set: its faces, and the values each gender's faces are evaluated on.

    Raises
    ------
    ConfigError
        The image set has no face or no evaluated variation.
    """
    if face.height == 0:
        raise ConfigError("the study's image set has no face to plan for")
    evaluated = image.filter((pl.col("role") == "variation") & pl.col("evaluated"))
    if evaluated.height == 0:
        raise ConfigError("the study evaluates no variation image: nothing to plan")
    faces = face.select("face_id", *[pl.col(d).cast(pl.String) for d in DIMENSIONS]).sort("face_id")
    by_value = (
        evaluated.join(face.select("face_id", "gender"), on="face_id")
        .group_by("variation_category", "variation_value")
        .agg(pl.col("gender").unique().sort().alias("genders"))
    )
    all_genders = sorted({g for g in faces["gender"].to_list() if g is not None})
    values = by_value.select(
        "variation_category",
        "variation_value",
        pl.when(pl.col("genders").list.len() < len(all_genders))
        .then(pl.col("genders").list.first())
        .otherwise(None)
        .alias("gender"),
    ).sort("variation_category", "variation_value")
    return Protocol(faces, values, scenarios, orderings, seeds, modes)


def protocol_of(
    study: Study,
    *,
    scenarios: int,
    faces: int | None = None,
    modes: Sequence[tuple[str, Mode]] | None = None,
) -> Protocol:
    """The protocol of a StylisticBias ``study`` asking ``scenarios`` scenarios (its design's
    scenario set, restricted to ``[scenarios] only``; ``faces`` overrides its number of faces)."""
    face, image = study_images(study)
    protocol = protocol_from_frames(
        face,
        image,
        scenarios=scenarios,
        orderings=len(study.prompt.orderings),
        seeds=len(study.seeds),
        modes=dict(modes) if modes else {m.model_id: model_mode(m) for m in study.models},
    )
    return protocol if faces is None else protocol.with_faces(faces)


__all__ = [
    "DIMENSIONS",
    "Mode",
    "Protocol",
    "model_mode",
    "protocol_from_frames",
    "protocol_of",
    "study_images",
]
