"""A suite declared explicitly: each module of a design lists its analyses in a
:class:`Declarations`, and the design registers the modules' lists in the order it names them
(:func:`register_suite`), so the order of the analyses (and of their tables and manifest rows) is
written in one place and never depends on which module was imported first.

>>> part = Declarations("doc-suite")
>>> @part("doc_table", description="d", source="s", grouping="g", statistic="t", family="none")
... def _table(ctx): ...
>>> [item.name for item in part]
['doc_table']
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any

from cueshift.stats._registry import Analysis, F, RunSettings, add_analysis


class Declarations:
    """The analyses one module declares for ``suite``, in declaration order; none is registered
    (run) until the design lists the module's declarations in :func:`register_suite`."""

    def __init__(self, suite: str) -> None:
        self.suite = suite
        self._analyses: list[Analysis[Any]] = []

    def __iter__(self) -> Iterator[Analysis[Any]]:
        return iter(self._analyses)

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
        """Declare ``compute(ctx) -> frame | None`` as analysis ``name`` of this module's suite;
        the options are :func:`~cueshift.stats.analysis`'s."""

        def declare(fn: F) -> F:
            self._analyses.append(
                Analysis(
                    name,
                    self.suite,
                    description,
                    source,
                    grouping,
                    statistic,
                    family,
                    fn,
                    when,
                    tuple(after),
                    database,
                )
            )
            return fn

        return declare


def register_suite(*parts: Declarations) -> None:
    """Register the analyses of ``parts`` in the order given, each module's in its own order.

    Raises
    ------
    ValueError
        An analysis registered already, or one that runs after an analysis not declared before it.
    """
    for part in parts:
        for item in part:
            add_analysis(item)


__all__ = ["Declarations", "register_suite"]
