r"""The CLIP bipolar probe (seed 004 Eq. 1): its settings and its arithmetic, without a model.

For an image :math:`i` and a scenario with favorable descriptor :math:`x_+` and
unfavorable descriptor :math:`x_-`, each pole's text is rendered through the templates
(default ``"a photo of someone who is {x}"``) and the bipolar association is

.. math::

    m = \cos(\vec i, \vec t_+) - \cos(\vec i, \vec t_-)

(seed 004 Eq. 1/10). Read as a two-way zero-shot classifier with the model's learned logit
scale :math:`s` (``logit_scale.exp()``, 100 for trained CLIP checkpoints),

.. math::

    P(\text{favorable}) = \frac{e^{s\cos(\vec i,\vec t_+)}}{e^{s\cos(\vec i,\vec t_+)}
    + e^{s\cos(\vec i,\vec t_-)}} = \sigma(s\,m).

Several templates are averaged **in embedding space**, as in CLIP's zero-shot prompt
ensembling (Radford et al. 2021, §3.1.4): each template's text embedding is L2-normalised,
the unit vectors of a pole are averaged, and the mean is normalised again to give
:math:`\vec t_\pm`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field, field_validator

from cueshift._types import F64
from cueshift.inference.backends.model_settings import validate_settings
from cueshift.inference.stand_ins.tiny_clip import TINY_CLIP_CHECKPOINT
from cueshift.study.config import ModelConfig

DEFAULT_TEMPLATE = "a photo of someone who is {x}"
#: Descriptors that read badly after "someone who is" (nouns): the text put in ``{x}``.
DEFAULT_PHRASES: dict[str, str] = {"Home owner": "a home owner", "Renter": "a renter"}


class ClipSettings(BaseModel):
    """``[models.settings]`` of a model with ``backend = "clip"``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    templates: list[str] = Field(
        default_factory=lambda: [DEFAULT_TEMPLATE],
        min_length=1,
        description="probe templates with one {x} slot; several are averaged in embedding space",
    )
    phrases: dict[str, str] = Field(
        default_factory=dict,
        description="descriptor -> text for {x} (default: the descriptor in lower case; see DEFAULT_PHRASES)",
    )
    device: Literal["auto", "cpu", "cuda", "mps"] = "auto"
    dtype: Literal["auto", "float32", "float16", "bfloat16"] = Field(
        default="auto", description="auto: float16 on cuda, float32 elsewhere"
    )
    batch_size: int = Field(
        default=64,
        ge=1,
        description="images or texts encoded per write to the embedding cache; "
        "each goes through its encoder alone, so its embedding does not depend on the others (D50)",
    )
    tiny_seed: int = Field(default=0, ge=0, description=f"weights seed of {TINY_CLIP_CHECKPOINT}")
    random_init: bool = Field(
        default=False,
        description="the checkpoint's architecture with random weights (seeded by random_seed): "
        "a random-encoder baseline of the same class",
    )
    random_seed: int = Field(default=0, ge=0, description="torch seed of the random_init weights")

    @field_validator("templates")
    @classmethod
    def _one_slot(cls, value: list[str]) -> list[str]:
        for template in value:
            if template.count("{x}") != 1:
                raise ValueError(f"template {template!r} must contain {{x}} exactly once")
            try:
                template.format(x="")
            except (IndexError, KeyError, ValueError):
                raise ValueError(f"template {template!r} has braces other than {{x}}") from None
        if len(set(value)) != len(value):
            raise ValueError("templates repeat")
        return value

    def phrase(self, descriptor: str) -> str:
        """The text that fills ``{x}`` for ``descriptor``."""
        return self.phrases.get(descriptor) or DEFAULT_PHRASES.get(descriptor) or descriptor.lower()

    def probe_texts(self, descriptor: str) -> list[str]:
        """One probe text per template."""
        return [template.format(x=self.phrase(descriptor)) for template in self.templates]


def parse_settings(model: ModelConfig) -> ClipSettings:
    """Validate ``model.settings``; a bad field raises a one-line :class:`ConfigError`."""
    return validate_settings(ClipSettings, model)


def unit_rows(vectors: npt.ArrayLike) -> F64:
    """Rows scaled to length 1 (float64)."""
    rows: F64 = np.asarray(vectors, dtype=np.float64)
    scaled: F64 = rows / np.linalg.norm(rows, axis=-1, keepdims=True)
    return scaled


def pole_vector(text_vectors: Sequence[npt.ArrayLike]) -> F64:
    r"""Template ensemble of one pole: :math:`\vec t = \bar u / \lVert \bar u \rVert` with
    :math:`\bar u` the mean of the normalised text embeddings."""
    return unit_rows(unit_rows(np.stack([np.asarray(v) for v in text_vectors])).mean(axis=0))


def bipolar(image: npt.ArrayLike, plus: npt.ArrayLike, minus: npt.ArrayLike) -> F64:
    r"""Seed 004 Eq. 1 per image row: :math:`m = \cos(\vec i, \vec t_+) - \cos(\vec i, \vec t_-)`
    for one pair of pole vectors ``plus``, ``minus``."""
    rows = unit_rows(np.atleast_2d(np.asarray(image)))
    m: F64 = rows @ unit_rows(plus) - rows @ unit_rows(minus)
    return m


def favorable_probability(m: npt.ArrayLike, logit_scale: float) -> F64:
    r"""Two-way softmax of the poles at the model's logit scale: :math:`\sigma(s\,m)`, computed stably."""
    p: F64 = 0.5 * (1.0 + np.tanh(0.5 * logit_scale * np.asarray(m, dtype=np.float64)))
    return p


__all__ = [
    "DEFAULT_PHRASES",
    "DEFAULT_TEMPLATE",
    "ClipSettings",
    "bipolar",
    "favorable_probability",
    "parse_settings",
    "pole_vector",
    "unit_rows",
]
