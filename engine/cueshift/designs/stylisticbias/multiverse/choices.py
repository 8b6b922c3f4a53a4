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

A seventh choice, ``path`` (``cueshift``, ``release``), is not crossed: ``cueshift`` is every
specification above; ``release`` adds **one** specification, the release's own analysis path
(``cueshift analyze --compat release``, :mod:`.release`), which fixes the other six its own way
(its reading of the answers, φ over all answers, greedy, no audit, faces, every ordering).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from cueshift.errors import ConfigError
from cueshift.study.phi import parse_phi  # not cueshift.views: no DuckDB to read a study (D90)

#: The crossed choices, in the order specifications are listed.
CROSSED: tuple[str, ...] = ("parsing", "phi", "invalid", "audit", "generalise", "orderings")
#: Every choice (``result_multiverse``'s columns): the crossed ones and the analysis ``path``.
CHOICES: tuple[str, ...] = (*CROSSED, "path")
#: What the release path takes for each crossed choice (``parsing`` is ``release`` instead where
#: the release's own reading of the answers is stored; :func:`release_specification`).
RELEASE_OPTIONS: dict[str, str] = {
    "parsing": "strict",
    "phi": "greedy",
    "invalid": "unfavorable",
    "audit": "keep",
    "generalise": "faces",
    "orderings": "all",
}
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
    81
    >>> MultiverseConfig(invalid=["dropped"], path=["cueshift"]).n_specifications
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
    path: list[Literal["cueshift", "release"]] = Field(default=["cueshift", "release"], min_length=1)
    alpha: float = Field(default=0.05, gt=0.0, lt=1.0, description="level of a claim's BH-adjusted test")
    resamples: int = Field(default=DEFAULT_MULTIVERSE_RESAMPLES, ge=100, description="bootstrap resamples")

    @field_validator("parsing", "invalid", "audit", "generalise", "orderings")
    @classmethod
    def _no_repeats(cls, values: list[str]) -> list[str]:
        return _distinct(values)

    @field_validator("path")
    @classmethod
    def _cueshift_first(cls, values: list[str]) -> list[str]:
        if values[0] != "cueshift":
            raise ValueError("the first path is the reference: 'cueshift' (add 'release' after it)")
        return _distinct(values)

    @field_validator("phi")
    @classmethod
    def _phi_spelled(cls, values: list[str]) -> list[str]:
        try:
            labels = [parse_phi(value).label for value in values]
        except ConfigError as exc:  # `--phi 'x': use ...`: the study file's field, not the option
            raise ValueError(str(exc).removeprefix("--phi ")) from None
        return _distinct(labels)

    def options(self, choice: str) -> tuple[str, ...]:
        """The options of ``choice`` (a name of :data:`CHOICES`), the reference first."""
        return tuple(getattr(self, choice))

    @property
    def n_specifications(self) -> int:
        """How many specifications there are: the cross product, and the release path's one."""
        count = 1
        for choice in CROSSED:
            count *= len(self.options(choice))
        return count + ("release" in self.path)


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
        parsing, phi, invalid, audit, _, orderings, path = self.options
        if path == "release":
            return (path,)
        if not self.reads_answers:
            parsing, invalid = "-", "-"
        return (parsing, phi, invalid, audit, orderings)


def specifications(config: MultiverseConfig, release_parsing: str = "strict") -> list[Specification]:
    """The cross product of the crossed choices' options on cueshift's path, the reference
    (every first option) first, then the release path's one specification (``release_parsing``:
    its ``parsing`` label, :func:`release_specification`) when ``config.path`` lists it.

    Examples
    --------
    >>> specs = specifications(MultiverseConfig())
    >>> len(specs), specs[0].options
    (161, ('strict', 'greedy', 'dropped', 'keep', 'faces', 'all', 'cueshift'))
    >>> specs[-1].options
    ('strict', 'greedy', 'unfavorable', 'keep', 'faces', 'all', 'release')
    """
    product = itertools.product(*(config.options(choice) for choice in CROSSED))
    specs = [Specification(index, (*options, "cueshift")) for index, options in enumerate(product)]
    if "release" in config.path:
        specs.append(release_specification(len(specs), release_parsing))
    return specs


def release_specification(index: int, parsing: str = "strict") -> Specification:
    """The release path's specification: :data:`RELEASE_OPTIONS`, ``parsing`` = ``'release'``
    where the release's reading of the answers is stored (else cueshift's strict reading, which
    the release path then keeps)."""
    options = {**RELEASE_OPTIONS, "parsing": parsing}
    return Specification(index, (*(options[c] for c in CROSSED), "release"))


__all__ = [
    "CHOICES",
    "CROSSED",
    "RELEASE_OPTIONS",
    "DEFAULT_MULTIVERSE_RESAMPLES",
    "MultiverseConfig",
    "Specification",
    "release_specification",
    "specifications",
]
