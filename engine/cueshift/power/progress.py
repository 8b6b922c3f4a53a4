"""How a long plan reports where it is: a :class:`Progress` gets each task's steps and one-line
notes; :data:`SILENT` ignores them (the default of every planner function).

The power machinery only calls the two methods; ``cueshift plan`` passes a rich progress bar on
stderr (:mod:`cueshift.plan.progress`), and a notebook can pass the same or its own.

Examples
--------
>>> class Printed:
...     def note(self, text: str) -> None:
...         print(text)
...     def step(self, task: str, done: int, total: int) -> None:
...         print(f"{task}: {done}/{total}")
>>> Printed().step("simulated studies", 3, 200)
simulated studies: 3/200
>>> SILENT.step("simulated studies", 3, 200)
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """Receives a plan's progress."""

    def note(self, text: str) -> None:
        """A one-line note (e.g. that the statistics kernels are compiling)."""

    def step(self, task: str, done: int, total: int) -> None:
        """``done`` of ``total`` steps of ``task`` are finished (``done == 0``: the task starts)."""


class _Silent:
    """A :class:`Progress` that shows nothing."""

    def note(self, text: str) -> None:
        """Ignore the note."""

    def step(self, task: str, done: int, total: int) -> None:
        """Ignore the step."""


#: Shows nothing.
SILENT: Progress = _Silent()

__all__ = ["SILENT", "Progress"]
