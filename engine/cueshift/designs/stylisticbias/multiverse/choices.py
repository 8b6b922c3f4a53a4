"""The multiverse's choices (the study section ``[multiverse]``) and their cross product.

Each choice lists its options, the first being the reference path (``cueshift analyze``'s own
defaults); a specification is one option of every choice. The six choices, all computed from the
stored judgments (no new inference):

============  =====================================  ==========================================
choice        options                                realised as
============  =====================================  ==========================================
parsing       ``strict``, ``lenient``                lenient: an invalid answer that names one
                                                     option by letter or descriptor
                                                     (:func:`~cueshift.inference.parser.named_letter`,
                                                     refusals and hedges ignored) counts as it
phi           ``greedy``, ``expected``, ``T=<t>``    ``cueshift analyze --phi`` (a φ from scores
                                                     left out when a model stored none)
invalid       ``dropped``, ``unfavorable``           unfavorable: invalid answers stay in φ's
                                                     denominator (counted as unfavourable)
audit         ``keep``, ``strict``                   ``cueshift analyze --audit strict``: the
                                                     variations that failed the stored edit audit
                                                     left out (left out of the cross product when
                                                     no audit is stored)
generalise    ``faces``, ``faces+scenarios``         ``cueshift analyze --generalise``
orderings     ``all``, ``1`` ... ``4``               a number: only the answers of that option
                                                     ordering (each one a path of its own)
============  =====================================  ==========================================

``parsing`` and ``invalid`` act on stored answers; under a φ from the stored scores (``expected``,
``T=<t>``) they change nothing, and such specifications are computed once and shared.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from cueshift.views import parse_phi

#: The choices in the order specifications are listed (and ``result_multiverse``'s columns).
CHOICES: tuple[str, ...] = ("parsing", "phi", "invalid", "audit", "generalise", "orderings")
#: Bootstrap resamples per specification unless ``[multiverse] resamples`` says otherwise.
DEFAULT_MULTIVERSE_RESAMPLES = 200


def _distinct(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError(f"options listed twice: {values}")
    return values


class MultiverseConfig(BaseModel):
    """``[multiverse]``: the options of each choice (the first is the reference path), the
    significance level of the claims and the bootstrap resamples of each specification.

    Examples
    --------
    >>> MultiverseConfig(invalid=["dropped"]).n_specifications
    80
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    parsing: list[Literal["strict", "lenient"]] = Field(default=["strict", "lenient"], min_length=1)
    phi: list[str] = Field(default=["greedy", "expected"], min_length=1)
    invalid: list[Literal["dropped", "unfavorable"]] = Field(default=["dropped", "unfavorable"], min_length=1)
    audit: list[Literal["keep", "strict"]] = Field(default=["keep", "strict"], min_length=1)
    generalise: list[Literal["faces", "faces+scenarios"]] = Field(
        default=["faces", "faces+scenarios"], min_length=1
    )
    orderings: list[Literal["all", "1", "2", "3", "4"]] = Field(
        default=["all", "1", "2", "3", "4"], min_length=1
    )
    alpha: float = Field(default=0.05, gt=0.0, lt=1.0, description="level of a claim's BH-adjusted test")
    resamples: int = Field(default=DEFAULT_MULTIVERSE_RESAMPLES, ge=100, description="bootstrap resamples")

    @field_validator("parsing", "invalid", "audit", "generalise", "orderings")
    @classmethod
    def _no_repeats(cls, values: list[str]) -> list[str]:
        return _distinct(values)

    @field_validator("phi")
    @classmethod
    def _phi_spelled(cls, values: list[str]) -> list[str]:
        return _distinct([parse_phi(value).label for value in values])

    def options(self, choice: str) -> tuple[str, ...]:
        """The options of ``choice`` (a name of :data:`CHOICES`), the reference first."""
        return tuple(getattr(self, choice))

    @property
    def n_specifications(self) -> int:
        """How many specifications the cross product holds."""
        count = 1
        for choice in CHOICES:
            count *= len(self.options(choice))
        return count


@dataclass(frozen=True)
class Specification:
    """One path through the choices: an option of each (``options`` in :data:`CHOICES` order)."""

    index: int
    options: tuple[str, ...]

    def of(self, choice: str) -> str:
        """The option this specification takes for ``choice``."""
        return self.options[CHOICES.index(choice)]

    @property
    def reads_answers(self) -> bool:
        """Whether φ is read from the stored answers (where parsing and invalid answers matter)."""
        return parse_phi(self.of("phi")).temperature is None

    @property
    def data_key(self) -> tuple[str, ...]:
        """What the specification's Δ and base φ rows depend on: the specifications sharing it
        share their rows (parsing and invalid answers do not matter under a φ from scores)."""
        parsing, phi, invalid, audit, _, orderings = self.options
        if not self.reads_answers:
            parsing, invalid = "-", "-"
        return (parsing, phi, invalid, audit, orderings)


def specifications(config: MultiverseConfig) -> list[Specification]:
    """The cross product of the choices' options, the reference path (every first option) first.

    Examples
    --------
    >>> specs = specifications(MultiverseConfig())
    >>> len(specs), specs[0].options
    (160, ('strict', 'greedy', 'dropped', 'keep', 'faces', 'all'))
    """
    product = itertools.product(*(config.options(choice) for choice in CHOICES))
    return [Specification(index, options) for index, options in enumerate(product)]


__all__ = [
    "CHOICES",
    "DEFAULT_MULTIVERSE_RESAMPLES",
    "MultiverseConfig",
    "Specification",
    "specifications",
]
