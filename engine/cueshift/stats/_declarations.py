"""A suite's analyses, declared in one explicit object that the design hands to
:func:`~cueshift.stats.run_suite`: nothing is registered by importing a module, and the order of the
analyses (and of their tables and manifest rows) is the order they were declared in.

A design declares its analyses in a :class:`Declarations` (or in one per module, joined in the
order the design lists them: ``Declarations(suite, *parts)``) and exposes it as
:meth:`~cueshift.designs.protocol.Design.analyses`.

>>> DECLARED = Declarations("doc-suite")
>>> @DECLARED("doc_table", description="d", source="s", grouping="g", statistic="t", family="none")
... def _table(ctx): ...
>>> @DECLARED("doc_share", description="d", source="s", grouping="g", statistic="t", family="none",
...           after=("doc_table",))
... def _share(ctx): ...
>>> DECLARED.names
('doc_table', 'doc_share')
>>> Declarations("doc-suite", DECLARED)["doc_share"].after
('doc_table',)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any

from cueshift.stats._registry import Analysis, F, RunSettings


class Declarations:
    """The analyses of ``suite``, in declaration order.

    Parameters
    ----------
    suite
        The group of analyses run together (a study design's name).
    *parts
        Declarations of the same suite (e.g. one per module) whose analyses come first, in the
        order given; each analysis's ``after`` must name one declared before it.

    Raises
    ------
    ValueError
        A part of another suite, an analysis declared twice, or one that runs after an analysis
        not declared before it.
    """

    def __init__(self, suite: str, *parts: Declarations) -> None:
        self.suite = suite
        self._analyses: dict[str, Analysis[Any]] = {}
        for part in parts:
            if part.suite != suite:
                raise ValueError(f"declarations of {part.suite!r} joined to suite {suite!r}")
            for item in part:
                self.add(item)
        self.check_order()

    def __iter__(self) -> Iterator[Analysis[Any]]:
        return iter(self._analyses.values())

    def __len__(self) -> int:
        return len(self._analyses)

    def __contains__(self, name: object) -> bool:
        return name in self._analyses

    def __getitem__(self, name: str) -> Analysis[Any]:
        return self._analyses[name]

    def __repr__(self) -> str:
        return f"Declarations({self.suite!r}: {', '.join(self._analyses)})"

    @property
    def names(self) -> tuple[str, ...]:
        """The names of the analyses, in declaration order."""
        return tuple(self._analyses)

    def __call__(
        self,
        name: str,
        *,
        description: str,
        source: str,
        grouping: str,
        statistic: str,
        family: str,
        when: Callable[[RunSettings], bool] | None = None,
        after: Collection[str] = (),
        database: bool = False,
    ) -> Callable[[F], F]:
        """Declare ``compute(ctx) -> frame | None`` as analysis ``name`` of this suite.

        Parameters
        ----------
        name
            The result table is ``result_<name>``; unique across suites.
        description, source, grouping, statistic, family
            What the table holds, what it is computed from, one row per what, the statistic, and
            the family a multiplicity correction runs over (``"none"``): written to ``result_manifest``.
        when
            Run the analysis only when ``when(settings)`` holds; otherwise it is left out without a
            note (an option that was not asked for, not a study that lacks the inputs).
        after
            Analyses (declared before this one, here or in a part joined before) whose results or
            skip reasons ``compute`` reads from ``ctx.results`` / ``ctx.skipped``: it starts once
            they are done, and sees no other result.
        database
            ``compute`` reads the study database itself (a read shared through the run's memo holds
            ``ctx.database_lock`` on its own): it runs holding the lock, one such analysis at a time.
        """

        def declare(fn: F) -> F:
            fields = (description, source, grouping, statistic, family)
            self.add(Analysis(name, self.suite, *fields, fn, when, tuple(after), database))
            return fn

        return declare

    def add(self, item: Analysis[Any]) -> None:
        """Declare ``item`` after the analyses declared so far.

        Raises
        ------
        ValueError
            ``item`` belongs to another suite, or its name is declared already.
        """
        if item.suite != self.suite:
            raise ValueError(f"analysis {item.name!r} of suite {item.suite!r} declared in {self.suite!r}")
        if item.name in self._analyses:
            raise ValueError(f"analysis {item.name!r} registered twice")
        self._analyses[item.name] = item

    def check_order(self) -> None:
        """Check that every analysis runs after analyses declared before it.

        Raises
        ------
        ValueError
            An analysis that runs after one not declared before it.
        """
        seen: set[str] = set()
        for item in self:
            unknown = [name for name in item.after if name not in seen]
            if unknown:
                raise ValueError(
                    f"analysis {item.name!r} runs after {unknown[0]!r}, which is not declared before it"
                )
            seen.add(item.name)


__all__ = ["Declarations"]
