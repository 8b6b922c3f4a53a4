"""Declared analyses: each result table is registered once — what it is, its grouping, statistic
and correction family — by the :func:`analysis` decorator, and :func:`~cueshift.stats.run_suite`
computes and stores the analyses of one suite (a study design) together.

The registry knows no design. A design declares its analyses in its own module, under its
own suite name, over its own inputs: an analysis is a function ``compute(ctx)`` of an
:class:`AnalysisContext` whose ``inputs`` are whatever the design loaded (frames, its
configuration). Analyses run in declaration order; a later one may read ``ctx.results``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import polars as pl

I = TypeVar("I")  # noqa: E741  (the inputs of a suite)


@dataclass(frozen=True)
class RunSettings:
    """How a suite was run, recorded with every table in ``result_manifest``.

    Attributes
    ----------
    n_resamples, seed
        Resamples and seed of the suite's random step (0 and ``None`` when it has none).
    test, ci_method
        Family of tests and kind of interval used.
    models
        The model subset analysed (empty: every model).
    phi
        Which φ the analyses read (``cueshift analyze --phi``): ``'greedy'`` (the stored
        answers), ``'expected'`` or ``'T=<t>'`` (answers drawn from the stored scores).
    min_identity
        The ``--min-identity`` sensitivity threshold: variations whose identity preservation is
        below it were left out (``None``: none).
    compat
        ``'default'``, or ``'release'`` (``cueshift analyze --compat release``): the seed
        release's own choices reproduced beside the default tables.
    generalise
        The question the intervals answer (``cueshift analyze --generalise``): ``'faces'``
        (faces resampled, the study's scenarios fixed) or ``'faces+scenarios'`` (both resampled).
    audit
        ``cueshift analyze --audit``: ``'strict'`` (the edits that failed the edit audit left out),
        ``'report'`` (kept; only the sensitivity table written), ``None``: no audit.
    """

    n_resamples: int = 0
    seed: int | None = None
    test: str = "none"
    ci_method: str = "none"
    models: tuple[str, ...] = ()
    phi: str = "greedy"
    min_identity: float | None = None
    compat: str = "default"
    generalise: str = "faces"
    audit: str | None = None


class NotApplicable(Exception):
    """Raised by an analysis whose inputs the study lacks (e.g. no fashion-style variations):
    :func:`~cueshift.stats.run_suite` prints ``reason`` as a note and writes no table."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class AnalysisContext(Generic[I]):
    """What every analysis of a suite receives: the suite's inputs, its settings, the results
    computed so far (by name) and the analyses skipped so far (name -> reason)."""

    inputs: I
    settings: RunSettings = field(default_factory=RunSettings)
    results: dict[str, pl.DataFrame] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)

    def result(self, name: str) -> pl.DataFrame:
        """The result of the earlier analysis ``name``; :class:`NotApplicable` if it was skipped."""
        if name not in self.results:
            why = self.skipped.get(name, "not computed in this run")
            raise NotApplicable(f"needs {name} ({why})")
        return self.results[name]


F = TypeVar("F", bound=Callable[..., "pl.DataFrame | None"])

#: ``compute(ctx)``: the result frame, or ``None`` (or :class:`NotApplicable` raised) when the
#: analysis does not apply to the study (e.g. no demographic labels): then no table and no
#: manifest row are written, and run_suite prints a note.
Compute = Callable[[AnalysisContext[I]], pl.DataFrame | None]


@dataclass(frozen=True)
class Analysis(Generic[I]):
    """One declared result table ``result_<name>`` (its schema: ``RESULT_SCHEMAS[name]``)."""

    name: str
    suite: str
    description: str
    source: str
    grouping: str
    statistic: str
    family: str
    compute: Compute[I]
    #: Run only when ``when(settings)`` holds (e.g. ``--compat release``); ``None``: always.
    when: Callable[[RunSettings], bool] | None = None

    @property
    def table(self) -> str:
        return f"result_{self.name}"


#: Every declared analysis by name, in declaration order.
ANALYSES: dict[str, Analysis[Any]] = {}


def analysis(
    name: str,
    *,
    suite: str,
    description: str,
    source: str,
    grouping: str,
    statistic: str,
    family: str,
    when: Callable[[RunSettings], bool] | None = None,
) -> Callable[[F], F]:
    """Register ``compute(ctx) -> frame | None`` as analysis ``name`` of ``suite``.

    Parameters
    ----------
    name
        The result table is ``result_<name>``; unique across suites.
    suite
        The group of analyses run together (a study design's name).
    description, source, grouping, statistic, family
        What the table holds, what it is computed from, one row per what, the statistic, and
        the family a multiplicity correction runs over (``"none"``): written to ``result_manifest``.
    when
        Run the analysis only when ``when(settings)`` holds; otherwise it is left out without a
        note (an option that was not asked for, not a study that lacks the inputs).
    """

    def register(fn: F) -> F:
        if name in ANALYSES:
            raise ValueError(f"analysis {name!r} registered twice")
        ANALYSES[name] = Analysis(name, suite, description, source, grouping, statistic, family, fn, when)
        return fn

    return register


def suite_analyses(suite: str) -> list[Analysis[Any]]:
    """The analyses of ``suite`` in declaration order."""
    return [item for item in ANALYSES.values() if item.suite == suite]
