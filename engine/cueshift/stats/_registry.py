"""Declared analyses: each result table is declared once — what it is, its grouping, statistic
and correction family — as an :class:`Analysis` of a suite's
:class:`~cueshift.stats.Declarations`, and :func:`~cueshift.stats.run_suite` computes and stores
the analyses of one suite (a study design) together.

This module knows no design. A design declares its analyses in its own modules, under its
own suite name, over its own inputs: an analysis is a function ``compute(ctx)`` of an
:class:`AnalysisContext` whose ``inputs`` are whatever the design loaded (frames, its
configuration). Analyses run in declaration order, two at a time where the machine allows
(:func:`~cueshift.stats.run_suite`): an analysis that reads the results of others names them in
``after`` and starts once they are done (it may read no other result: :class:`RunResults`), and one
that reads the study database itself says so (``database``) and holds ``ctx.database_lock``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar, cast

import polars as pl

from cueshift.stats._settings import DEFAULT_CONFIDENCE_LEVEL, Resampling, RunChoices

I = TypeVar("I")  # noqa: E741  (the inputs of a suite)
V = TypeVar("V")


@dataclass(frozen=True)
class RunSettings:
    """How a suite was run, recorded with every table in ``result_manifest``.

    Attributes
    ----------
    n_resamples, seed
        Resamples and seed of the suite's random step (0 and ``None`` when it has none).
    test, ci_method
        Family of tests and kind of interval used.
    confidence_level
        Coverage of the suite's intervals (the report's and console's "90% CI" labels read it).
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
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL
    models: tuple[str, ...] = ()
    phi: str = "greedy"
    min_identity: float | None = None
    compat: str = "default"
    generalise: str = "faces"
    audit: str | None = None

    @classmethod
    def of(
        cls,
        resampling: Resampling | None,
        choices: RunChoices,
        *,
        test: str | None = None,
        ci_method: str | None = None,
        confidence_level: float | None = None,
    ) -> RunSettings:
        """The record of a run drawn with ``resampling`` over ``choices``.

        ``resampling`` ``None``: the run has no random step (0 resamples, no seed). ``test`` and
        ``ci_method`` name the design's own tests and intervals where they are not the
        resampling's (exact or parametric tests, analytic intervals); ``confidence_level`` the
        coverage of its intervals where it is not the resampling's (default: the resampling's, or
        0.95 without one).

        >>> RunSettings.of(None, RunChoices(models=("a",)), test="exact", ci_method="analytic").seed is None
        True
        """
        return cls(
            n_resamples=resampling.resamples if resampling else 0,
            seed=resampling.seed if resampling else None,
            test=test or (resampling.test if resampling else "none"),
            ci_method=ci_method or (resampling.ci_method if resampling else "none"),
            confidence_level=confidence_level
            or (resampling.confidence_level if resampling else DEFAULT_CONFIDENCE_LEVEL),
            models=choices.models,
            phi=choices.phi,
            min_identity=choices.min_identity,
            compat=choices.compat,
            generalise=choices.generalise,
            audit=choices.audit,
        )


class NotApplicable(Exception):
    """Raised by an analysis whose inputs the study lacks (e.g. no fashion-style variations):
    :func:`~cueshift.stats.run_suite` prints ``reason`` as a note and writes no table."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RunResults(dict[str, V]):
    """The results (or skip reasons) computed so far in a run, by analysis name.

    While an analysis runs, it sees only the analyses it declared in ``after``
    (:class:`~cueshift.stats.Declarations`): asking for any other raises ``RuntimeError``, so a
    result that two analyses computed at the same time could race for is never read by accident.
    Outside an analysis every name is visible.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # noqa: ANN401  (dict's signature)
        super().__init__(*args, **kwargs)
        self._shown = threading.local()  # per thread: the names this record shows (None: all)

    def restrict(self, names: Collection[str] | None) -> None:
        """In this thread, show only ``names`` of this record (``None``: all of them)."""
        self._shown.names = names

    def _check(self, name: object) -> None:
        names: Collection[str] | None = getattr(self._shown, "names", None)
        if names is not None and name not in names:
            raise RuntimeError(f"an analysis read the result {name!r} without declaring it in after=")

    def __getitem__(self, name: str) -> V:
        self._check(name)
        return super().__getitem__(name)

    def __contains__(self, name: object) -> bool:
        self._check(name)
        return super().__contains__(name)

    def get(self, name: str, default: Any = None) -> Any:  # noqa: ANN401  (dict.get's overloads)
        self._check(name)
        return super().get(name, default)


@dataclass
class AnalysisContext(Generic[I]):
    """The context of one run, created by :func:`~cueshift.stats.run_suite` and handed to every
    analysis of it: the suite's inputs, its settings, the results computed so far (by name), the
    analyses skipped so far (name -> reason), the lock that every read of the study database within
    the run holds (analyses may run two at a time), and what the run's analyses share (:meth:`once`).
    """

    inputs: I
    settings: RunSettings = field(default_factory=RunSettings)
    results: dict[str, pl.DataFrame] = field(default_factory=RunResults[pl.DataFrame])
    skipped: dict[str, str] = field(default_factory=RunResults[str])
    database_lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    #: Frames read or computed once in this run and shared by its analyses, by what they are.
    shared: dict[str, object] = field(default_factory=dict, repr=False)

    def once(self, key: str, make: Callable[[], V]) -> V:
        """``make()`` the first time ``key`` is asked for in this run, the same object after that.

        The first asker holds the run's database lock while it makes it: two analyses running
        at once never use the connection together nor make the same frame twice. What is shared
        must not be changed by its readers (polars frames are not), and goes with the run."""
        with self.database_lock:
            if key not in self.shared:
                self.shared[key] = make()
            return cast(V, self.shared[key])

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
    #: The analyses whose results (or skip reasons) this one reads: it starts after them.
    after: tuple[str, ...] = ()
    #: Reads the study database while it runs (other than through a read the run shares).
    database: bool = False

    @property
    def table(self) -> str:
        return f"result_{self.name}"
