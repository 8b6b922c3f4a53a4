"""One model replica in a Ray actor: builds the model's backend once, then answers work units.

The class is plain Python (no Ray import): :mod:`cueshift.execution.ray_executor` turns it into
an actor class with ``ray.remote`` and the model's resources. Every method returns plain
data, so answers travel through Ray's object store to the driver, which alone writes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import polars as pl

from cueshift.designs.work import Workload
from cueshift.inference.backends import Backend, BackendAnswers, backend_spec
from cueshift.study.config import ModelConfig


class UnitWorker:
    """A model's backend inside a worker process (one replica: its weights or its client).

    Parameters
    ----------
    model
        The study's model entry (for an OpenAI-compatible model, one of its ``base_urls``).
    workload
        Returns the design's workload: the context the backend looks up and the unit kinds it
        answers. Backends here get no embedding cache (the study database stays with the driver).
    """

    def __init__(self, model: ModelConfig, workload: Callable[[], Workload]) -> None:
        self.model = model
        self._load = workload
        self._workload: Workload | None = None
        self._backend: Backend | None = None

    @property
    def workload(self) -> Workload:
        """The workload, fetched on first use (from Ray's object store: the driver holds it once
        for every actor, and a restarted actor fetches it again)."""
        if self._workload is None:
            self._workload = self._load()
        return self._workload

    @property
    def backend(self) -> Backend:
        """The backend, built on first use: after Ray restarts the actor, the first unit it is
        sent builds it again; a bad setting fails that call with the backend's own error."""
        if self._backend is None:
            self._backend = backend_spec(self.model.backend).build(self.model, self.workload.context)
        return self._backend

    def ready(self) -> int:
        """Build the backend; the worker's process id."""
        assert self.backend is not None
        return os.getpid()

    def units(self, kind_index: int) -> pl.DataFrame:
        """Every unit of the workload's kind ``kind_index`` this model should answer."""
        return self.workload.units[kind_index].units(self.model, self.backend)

    def answer(self, kind_index: int, unit: pl.DataFrame) -> tuple[BackendAnswers, float]:
        """Answers to the rows of ``unit`` (in order) and the seconds they took."""
        kind = self.workload.units[kind_index]
        started = time.perf_counter()
        asked = kind.request(unit) if kind.request is not None else unit
        answers: BackendAnswers = getattr(self.backend, kind.method)(asked)
        return answers, time.perf_counter() - started

    def report(self) -> dict[str, Any]:
        """What the backend learnt (see :meth:`cueshift.inference.backends.Backend.run_report`)."""
        return self.backend.run_report()

    def close(self) -> None:
        """Release the backend (weights, clients)."""
        if self._backend is not None:
            self._backend.close()
            self._backend = None


__all__ = ["UnitWorker"]
