"""The progress of ``cueshift plan`` on stderr: a rich bar per task (simulated studies, power curve)
and one-line notes (the statistics kernels compiling on a first run).

:func:`plan_progress` gives a :class:`~cueshift.power.progress.Progress` for
:class:`~cueshift.plan.PlanRequest`'s ``progress``: bars where the console is a terminal or a
notebook, none where it is piped (the notes still print, one line each), nothing at all when
``enabled`` is false (``--no-progress``). In a notebook::

    from cueshift.plan import PlanRequest, plan_progress, plan_study

    with plan_progress() as progress:
        result = plan_study(PlanRequest(study, progress=progress))
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from cueshift.power.progress import SILENT
from cueshift.power.progress import Progress as PlanProgress


class RichPlanProgress:
    """A :class:`~cueshift.power.progress.Progress` drawn by a rich :class:`~rich.progress.Progress`
    (``bars`` None: notes only, on ``console``)."""

    def __init__(self, console: Console, bars: Progress | None) -> None:
        self._console = console
        self._bars = bars
        self._tasks: dict[str, TaskID] = {}

    def note(self, text: str) -> None:
        """Print ``text`` on one line (above the bars while they run)."""
        target = self._bars.console if self._bars is not None else self._console
        target.print(escape(text), highlight=False, soft_wrap=True)

    def step(self, task: str, done: int, total: int) -> None:
        """Advance ``task``'s bar to ``done`` of ``total`` (a new task gets a bar)."""
        if self._bars is None:
            return
        if task not in self._tasks:
            self._tasks[task] = self._bars.add_task(task, total=total)
        self._bars.update(self._tasks[task], completed=done, total=total)


@contextmanager
def plan_progress(console: Console | None = None, *, enabled: bool = True) -> Iterator[PlanProgress]:
    """The plan's progress on ``console`` (default: stderr); :data:`~cueshift.power.progress.SILENT`
    when ``enabled`` is false, notes without bars where the console is neither a terminal nor a
    notebook."""
    if not enabled:
        yield SILENT
        return
    console = console or Console(stderr=True)
    if not (console.is_terminal or console.is_jupyter):
        yield RichPlanProgress(console, None)
        return
    columns = (
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as bars:
        yield RichPlanProgress(console, bars)


__all__ = ["RichPlanProgress", "plan_progress"]
