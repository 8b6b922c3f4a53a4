"""The global view of the declared analyses, and the names of the import-time registry it replaced.

:data:`ANALYSES` is filled by the design registry (:func:`cueshift.designs.registry.analyses`)
from every design's :meth:`~cueshift.designs.protocol.Design.analyses`, in design order and then
declaration order; no import fills it. :func:`analysis`, which registered
analyses as a module was imported, still work but are deprecated (docs/decisions.md D27): declare in
a :class:`~cueshift.stats.Declarations` and hand it to :func:`~cueshift.stats.run_suite`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any

from cueshift.stats._declarations import Declarations
from cueshift.stats._registry import Analysis, F

#: Every declared analysis by name: those of every design, in design order then declaration order,
#: once the design registry was asked for them; then any declared with the deprecated :func:`analysis`.
ANALYSES: dict[str, Analysis[Any]] = {}

#: The suites declared with the deprecated :func:`analysis`, by name.
_LEGACY_SUITES: dict[str, Declarations] = {}


def declare_analyses(suite: str, declared: Iterable[Analysis[Any]]) -> None:
    """Show the analyses of ``suite`` in :data:`ANALYSES` (what the design registry does with each
    design's declarations), in place of those shown for it before.

    Raises
    ------
    ValueError
        A name another suite declares.
    """
    items = list(declared)
    for item in items:
        known = ANALYSES.get(item.name)
        if known is not None and known.suite != suite:
            raise ValueError(f"analysis {item.name!r} is declared by {known.suite!r} and {suite!r}")
    for name in [name for name, item in ANALYSES.items() if item.suite == suite]:
        del ANALYSES[name]
    ANALYSES.update((item.name, item) for item in items)


def suite_analyses(suite: str) -> list[Analysis[Any]]:
    """The analyses of ``suite`` shown in :data:`ANALYSES`, in declaration order."""
    return [item for item in ANALYSES.values() if item.suite == suite]


def legacy_suite(suite: str) -> Declarations:
    """The analyses of ``suite`` declared with the deprecated :func:`analysis` (none: empty)."""
    return _LEGACY_SUITES.get(suite) or Declarations(suite)


def _deprecated(old: str) -> None:
    warnings.warn(
        f"cueshift.stats.{old} is deprecated: declare analyses in a cueshift.stats.Declarations and "
        "pass it to run_suite (docs/decisions.md D27)",
        DeprecationWarning,
        stacklevel=3,
    )


def _register(item: Analysis[Any]) -> None:
    if item.name in ANALYSES:
        raise ValueError(f"analysis {item.name!r} registered twice")
    suite = Declarations(item.suite, *filter(None, [_LEGACY_SUITES.get(item.suite)]))
    suite.add(item)
    suite.check_order()
    _LEGACY_SUITES[item.suite] = suite
    ANALYSES[item.name] = item


def analysis(name: str, *, suite: str, **fields: Any) -> Callable[[F], F]:  # noqa: ANN401
    """Deprecated: register ``compute(ctx)`` as analysis ``name`` of ``suite`` as the module is
    imported; ``fields`` are :meth:`Declarations.__call__`'s. ``run_suite(con, suite, ...)`` runs it."""
    _deprecated("analysis")
    one = Declarations(suite)
    declare = one(name, **fields)

    def register(fn: F) -> F:
        declare(fn)
        _register(one[name])
        return fn

    return register


__all__ = ["ANALYSES", "analysis", "declare_analyses", "legacy_suite", "suite_analyses"]
