"""Asking the pending units batch by batch: each batch's answers and failures written in one
transaction, a snapshot published when due, the progress bar advanced."""

from __future__ import annotations

import time

import duckdb
import polars as pl
from rich.progress import Progress

from cueshift import store
from cueshift.designs.work import UnitKind
from cueshift.execution.executor import Executor
from cueshift.execution.failures import FailureTally, split_failures
from cueshift.execution.run_state import RunCounts
from cueshift.inference.backends import BackendAnswers
from cueshift.store.snapshot import SnapshotPublisher
from cueshift.study.config import ModelConfig


class BatchWriter:
    """Writes the batches of one run (``run_id``) to ``con``, counting in ``counts`` and ``tally``.

    ``bar`` (None: no progress shown) shows the answers of the ``n_planned`` and the rate since
    ``started`` (a ``time.perf_counter()`` value).
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        run_id: str,
        *,
        counts: RunCounts,
        tally: FailureTally,
        snapshots: SnapshotPublisher,
        bar: Progress | None,
        n_planned: int,
        started: float,
    ) -> None:
        self.con, self.run_id, self.counts, self.tally = con, run_id, counts, tally
        self.snapshots, self.bar, self.n_planned, self.started = snapshots, bar, n_planned, started
        self.task = bar.add_task("asking", total=n_planned, rate="") if bar else None
        self.n_asked = 0

    def ask_all(
        self,
        executor: Executor,
        models: list[ModelConfig],
        kinds: tuple[UnitKind, ...],
        pending: list[list[pl.DataFrame]],
    ) -> None:
        """Ask every model its pending units of each kind (at most ``n_planned`` in all)."""
        for model, per_model in zip(models, pending, strict=True):
            for kind, units in zip(kinds, per_model, strict=True):
                for batch, answers in executor.answer(model, kind, units, self.n_planned - self.n_asked):
                    self.n_asked += batch.height
                    self.write(kind, model.model_id, batch, answers)

    def write(self, kind: UnitKind, model_id: str, batch: pl.DataFrame, answers: BackendAnswers) -> None:
        """Store one batch: its answers and its failed requests in one transaction."""
        batch, answers, failed = split_failures(kind, batch, answers, model_id, self.run_id)
        frames = {"request_failure": failed}
        if batch.height:
            frames[kind.table] = kind.parse(batch, answers, model_id, self.run_id)
        store.write_tables(self.con, frames)
        self.tally.add(failed)
        self.counts.n_written += batch.height
        self.snapshots.maybe_publish(self.con)
        self._advance(kind, batch.height + failed.height)

    def _advance(self, kind: UnitKind, n: int) -> None:
        if self.bar is not None and self.task is not None:
            elapsed = max(time.perf_counter() - self.started, 1e-9)
            rate = f"{self.counts.n_written / elapsed:,.0f} {kind.name}/s"
            self.bar.update(self.task, advance=n, description=kind.name, rate=rate)


__all__ = ["BatchWriter"]
