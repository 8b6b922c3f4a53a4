"""The preregistered plan a run follows (``cueshift analyze --prereg``), recorded with every
``result_manifest`` row of the suites run inside :func:`following_plan`.

>>> with following_plan("ab" * 32, exploratory=True):
...     current_plan().exploratory
True
>>> current_plan().sha256 is None
True
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class PlanRecord:
    """The plan of a run: its SHA-256 (``None``: no plan) and whether the run departs from it."""

    sha256: str | None = None
    exploratory: bool = False


_CURRENT: ContextVar[PlanRecord] = ContextVar("cueshift_plan", default=PlanRecord())  # noqa: B039


def current_plan() -> PlanRecord:
    """The plan the suites run now follow (no plan outside :func:`following_plan`)."""
    return _CURRENT.get()


@contextmanager
def following_plan(sha256: str | None, *, exploratory: bool) -> Iterator[None]:
    """Record ``sha256`` (and ``exploratory``) in the manifest rows of the suites run inside."""
    token = _CURRENT.set(PlanRecord(sha256, exploratory))
    try:
        yield
    finally:
        _CURRENT.reset(token)


__all__ = ["PlanRecord", "current_plan", "following_plan"]
