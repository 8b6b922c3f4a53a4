"""The progress bar of ``cueshift infer``: answers done of planned, rate and ETA."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


@contextmanager
def progress_bar(enabled: bool, console: Console | None) -> Iterator[Progress | None]:
    """A rich progress bar on ``console`` (None when ``enabled`` is false); the runner adds the task."""
    if not enabled:
        yield None
        return
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TaskProgressColumn(),
        TextColumn("{task.fields[rate]}"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        yield progress


__all__ = ["progress_bar"]
