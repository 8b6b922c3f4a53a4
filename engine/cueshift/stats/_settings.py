"""The settings of an analysis run, one frozen object per concern, each default written once.

:class:`Resampling` is how the random step of a run draws (resamples, seed, interval, tests);
:class:`RunChoices` is what the run analyses (models, φ, identity threshold, the population the
intervals generalise to, the edit audit, the replication mode). ``cueshift analyze`` builds them
once from its options and they travel whole: design, analyses, statistics, ``result_manifest``.
A multiverse of analysis choices is a loop over such objects.

>>> Resampling().resamples == DEFAULT_RESAMPLES
True
>>> Resampling(resamples=200, seed=3).resamples
200
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

#: Family of tests: ``'rank'`` (Wilcoxon signed-rank, Mann-Whitney U, Kruskal-Wallis) or ``'permutation'``.
TestMethod = Literal["rank", "permutation"]
#: Kind of bootstrap interval: bias-corrected and accelerated, or percentile.
CIMethod = Literal["bca", "percentile"]

#: Resamples of a bootstrap or permutation test when none are asked for (``--resamples``).
DEFAULT_RESAMPLES: Final = 10_000
#: Confidence level of every interval.
DEFAULT_CONFIDENCE_LEVEL: Final = 0.95


@dataclass(frozen=True)
class Resampling:
    """How a run's random step draws: the same resamples and seed for every bootstrap and
    permutation test of the run.

    Attributes
    ----------
    resamples
        Bootstrap resamples (and permutations) per estimate (``--resamples``).
    seed
        Seed of every random draw (``--seed``); each analysis draws from it afresh.
    confidence_level
        Coverage of every interval.
    ci_method
        Kind of bootstrap interval (``--ci``): ``'bca'`` or ``'percentile'``.
    test
        Family of tests (``--test``): ``'rank'`` (WSRT, MWU, KW) or ``'permutation'``.
    """

    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL
    ci_method: CIMethod = "bca"
    test: TestMethod = "rank"


@dataclass(frozen=True)
class RunChoices:
    """What a run analyses and how it carries the study's checks, beside its :class:`Resampling`.

    Attributes
    ----------
    models
        The model subset analysed (``--models``; empty: every model).
    phi
        Which φ the analyses read (``--phi``): ``'greedy'`` (the stored answers), ``'expected'``
        or ``'T=<t>'`` (answers drawn from the stored scores).
    min_identity
        Leave out the variations whose identity preservation is below it (``--min-identity``;
        ``None``: none left out).
    generalise
        The question the intervals answer (``--generalise``): ``'faces'`` (the study's scenarios
        fixed) or ``'faces+scenarios'`` (both resampled).
    audit
        ``--audit``: ``'strict'`` (the edits that failed the edit audit left out), ``'report'``
        (kept; only the sensitivity table written); ``None``: no audit.
    compat
        ``'default'``, or ``'release'`` (``--compat release``): the seed release's own choices
        reproduced beside the default tables.
    """

    models: tuple[str, ...] = ()
    phi: str = "greedy"
    min_identity: float | None = None
    generalise: str = "faces"
    audit: str | None = None
    compat: str = "default"
