"""Where the backends run: the runner's one interface to them, and the local executor.

The runner (:mod:`cueshift.execution.runner`) finds the pending units, writes and
records; an :class:`Executor` builds the backends and asks them. :class:`LocalExecutor`
(``--executor local``, the default) builds one backend per model in this process and asks it
batch by batch, each batch sized to take about two seconds and cut between images
(:class:`~cueshift.execution.batching.BatchSizer`).
:class:`cueshift.execution.ray_executor.RayExecutor` (``--executor ray``) runs the same backends in
a pool of Ray actors per model.

Order of calls: :meth:`Executor.start` (build and check; nothing is written before it
returns), :meth:`Executor.attach_cache` (once the database is open), :meth:`Executor.units`
for every model and kind (the units to ask), :meth:`Executor.answer` per model and kind (the asking),
:meth:`Executor.reports`, and :meth:`Executor.close` (always).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from typing import Any, Protocol

import polars as pl

from cueshift.designs.work import UnitKind, Workload
from cueshift.errors import ConfigError
from cueshift.execution.batching import BatchSizer
from cueshift.execution.work_units import group_column
from cueshift.inference.backends import Backend, BackendAnswers, backend_spec
from cueshift.inference.embedding_cache import EmbeddingCache
from cueshift.study.config import ModelConfig, Study

#: a batch of pending rows and the backend's answers to it, row for row
Answered = tuple[pl.DataFrame, BackendAnswers]


class Executor(Protocol):
    """What the runner needs of wherever the backends run (see the module docstring)."""

    def start(self, study: Study, workload: Workload) -> None:
        """Build (or check) every model's backend; raise before anything is written."""

    def attach_cache(self, cache: EmbeddingCache) -> None:
        """Give the backends the study database's embedding cache (where they can use it)."""

    def units(self, model: ModelConfig, kind: UnitKind) -> pl.DataFrame:
        """Every unit of ``kind`` that ``model`` should answer (``kind.units`` on its backend)."""

    def answer(
        self, model: ModelConfig, kind: UnitKind, pending: pl.DataFrame, budget: int
    ) -> Iterator[Answered]:
        """Ask ``pending`` (at most ``budget`` rows of it) and yield each answered batch.

        The runner writes a yielded batch before it asks for the next one; batches may come in
        any order, every row of ``pending`` exactly once (or up to ``budget``).
        """

    def reports(self) -> dict[str, dict[str, Any]]:
        """Per model id, what its backend reported for the ``run`` record (empty ones left out)."""

    def close(self) -> None:
        """Release every backend (weights, clients, actors)."""


def check_methods(models: list[ModelConfig], workload: Workload) -> None:
    """Refuse a model whose backend lacks the method of a unit kind (nothing is built)."""
    for model in models:
        spec = backend_spec(model.backend)
        for kind in workload.units:
            if not spec.supports(kind.method):
                raise ConfigError(
                    f"model {model.model_id!r}: backend {model.backend!r} has no {kind.method}() "
                    f"for the {kind.name}; {kind.missing_method or 'use a backend that implements it'}"
                )


class LocalExecutor:
    """The backends in this process, one per model, asked in batches sized by time."""

    def __init__(self) -> None:
        self._backends: dict[str, Backend] = {}
        self._max_rows = 1

    def start(self, study: Study, workload: Workload) -> None:
        check_methods(study.models, workload)
        self._max_rows = study.batch_size
        try:
            for model in study.models:
                self._backends[model.model_id] = backend_spec(model.backend).build(model, workload.context)
        except BaseException:
            self.close()
            raise

    def attach_cache(self, cache: EmbeddingCache) -> None:
        for backend in self._backends.values():
            backend.context = dataclasses.replace(backend.context, embeddings=cache)

    def units(self, model: ModelConfig, kind: UnitKind) -> pl.DataFrame:
        return kind.units(model, self._backends[model.model_id])

    def answer(
        self, model: ModelConfig, kind: UnitKind, pending: pl.DataFrame, budget: int
    ) -> Iterator[Answered]:
        backend = self._backends[model.model_id]
        sizer = BatchSizer(self._max_rows)  # per model and kind: their rates differ
        for batch in sizer.batches(pending, budget, group=group_column(kind, pending)):  # whole images
            cycle = time.perf_counter()
            asked = kind.request(batch) if kind.request is not None else batch
            yield batch, getattr(backend, kind.method)(asked)
            sizer.record(batch.height, time.perf_counter() - cycle)  # ask + parse + write

    def reports(self) -> dict[str, dict[str, Any]]:
        reports = {model_id: backend.run_report() for model_id, backend in self._backends.items()}
        return {model_id: report for model_id, report in reports.items() if report}

    def close(self) -> None:
        backends, self._backends = list(self._backends.values()), {}
        for backend in backends:
            backend.close()


__all__ = ["Answered", "Executor", "LocalExecutor", "check_methods"]
