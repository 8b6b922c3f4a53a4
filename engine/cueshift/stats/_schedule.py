"""Running the analyses of a suite, two (``workers``) at a time.

Each analysis starts in declaration order once the analyses it reads (its ``after``) are done;
while it runs it sees only their results (:class:`~cueshift.stats.RunResults`). At most one
analysis that reads the study database itself (``database``) runs at a time, holding the run's
database lock, which the reads shared through a run's memo hold too. The kernels under the
analyses (polars, DuckDB, BLAS, numba) release the GIL, so two analyses use the two cores where
one alone leaves one idle (Python between kernels, single-threaded steps).

Every result is the one a sequential run computes: an analysis reads only its inputs and the
results it waits for, and its random draws come from its own seed. ``workers=1``, or numba
kernels without a thread-safe threading layer, runs them one after another.
"""

from __future__ import annotations

import contextlib
import functools
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numba
import numpy as np
import polars as pl
from numba.np.ufunc.parallel import threading_layer

from cueshift.stats._checked import validate_once
from cueshift.stats._registry import Analysis, AnalysisContext, NotApplicable, RunResults


@dataclass(frozen=True)
class Outcome:
    """What one analysis gave: its validated frame (``None``: it does not apply, for ``reason``)
    and the wall seconds it took."""

    frame: pl.DataFrame | None
    reason: str
    seconds: float


#: Where each analysis thread posts its name and outcome (or the error it raised).
_Posted: TypeAlias = "queue.SimpleQueue[tuple[str, Outcome | BaseException]]"


def run_analyses_in_order(
    items: Sequence[Analysis[Any]],
    ctx: AnalysisContext[Any],
    workers: int,
    started: Callable[[Analysis[Any]], None],
    done: Callable[[Analysis[Any], Outcome], None],
) -> None:
    """Compute ``items`` over ``ctx``, up to ``workers`` at a time; ``started(item)`` and
    ``done(item, outcome)`` are called in this thread, ``done`` before any analysis that waits for
    ``item`` starts. An analysis's error is raised once the analyses running beside it are done."""
    if workers <= 1 or not _kernels_thread_safe():
        for item in items:
            started(item)
            done(item, _compute(item, ctx))
        return
    declared = {item.name for item in items}
    pending, running, finished = list(items), dict[str, Analysis[Any]](), set[str]()
    outcomes: _Posted = queue.SimpleQueue()
    while pending or running:
        for item in list(pending):
            if len(running) >= workers:
                break
            waits = any(name in declared and name not in finished for name in item.after)
            if waits or (item.database and any(other.database for other in running.values())):
                continue
            pending.remove(item)
            started(item)
            running[item.name] = item
            # daemon threads: Ctrl-C or SIGTERM ends the process at once, without waiting for the
            # analyses still running (nothing is written before every analysis is done)
            threading.Thread(target=_post, args=(item, ctx, outcomes), daemon=True).start()
        name, outcome = outcomes.get()
        item = running.pop(name)
        if isinstance(outcome, BaseException):
            for _ in running:  # the analyses beside it end before the error is raised
                outcomes.get()
            raise outcome
        done(item, outcome)
        finished.add(name)


def _post(
    item: Analysis[Any],
    ctx: AnalysisContext[Any],
    outcomes: _Posted,
) -> None:
    try:
        outcomes.put((item.name, _compute(item, ctx)))
    except BaseException as exc:  # handed to the scheduling thread, which raises it
        outcomes.put((item.name, exc))


def _compute(item: Analysis[Any], ctx: AnalysisContext[Any]) -> Outcome:
    shown = [record for record in (ctx.results, ctx.skipped) if isinstance(record, RunResults)]
    for record in shown:
        record.restrict(item.after)
    started = time.perf_counter()
    try:
        with ctx.database_lock if item.database else contextlib.nullcontext():
            frame = item.compute(ctx)
    except NotApplicable as exc:
        frame, reason = None, exc.reason
    else:
        reason = "does not apply to this study"
    finally:
        for record in shown:
            record.restrict(None)
    checked = validate_once(item.name, frame) if frame is not None else None
    return Outcome(checked, reason, time.perf_counter() - started)


@numba.njit(parallel=True, cache=True)
def _parallel_sum(values: np.ndarray) -> float:  # pragma: no cover  (compiled)
    total = 0.0
    for i in numba.prange(values.size):
        total += values[i]
    return total


@functools.cache
def _kernels_thread_safe() -> bool:
    """Whether numba's parallel kernels may be entered from two threads at once: under the
    OpenMP or TBB threading layer, not under ``workqueue`` (which aborts the process)."""
    _parallel_sum(np.zeros(2))
    return bool(threading_layer() != "workqueue")  # type: ignore[no-untyped-call]
