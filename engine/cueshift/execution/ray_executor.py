"""``cueshift infer --executor ray``: the backends in a pool of Ray actors per model.

The driver (this process) does what the local runner does, in the same code
(:func:`cueshift.execution.runner.run_workload`): it finds the pending units in DuckDB (the units not stored
yet), writes every answer in its own transactions and records the run. Only the asking moves:

* **Pools.** One actor per model replica (:class:`~cueshift.execution.ray_worker.UnitWorker`):
  it builds the backend once (the weights, or an HTTP client) and answers work units.
  Resources per actor come from the model (:func:`actor_resources`): GPUs for a transformers
  model on CUDA (``gpus_per_replica``, default 1), one CPU otherwise; an OpenAI-compatible
  model gets one lightweight client actor per server in its ``base_urls``. The models are
  asked one after another, each with its whole pool.
* **Work units.** The pending rows are cut into image-grouped units (:mod:`cueshift.execution.work_units`:
  an image's prompts stay together, so its prefix is computed once), sized to take about two
  seconds of an actor's time at the rate measured so far.
* **Backpressure.** At most :data:`DEPTH` units are in flight per actor (one answering, one
  queued); the driver waits (``ray.wait``) for any unit to finish before sending another, so
  neither the driver's memory nor the object store grows with the pending rows.
* **Faults.** Actors restart after their process dies (``max_restarts``) and Ray sends the
  units they held again (``max_task_retries``); each unit's answers reach the driver once
  and are written once, under the tables' primary keys. A killed driver loses the units in
  flight; the next run asks what is not stored.

Finding the pending units needs each model's backend (score-mode transformers models ask seed 0 only), so
:meth:`RayExecutor.start` builds each model's backend in one actor, one model at a time,
before the database is touched (bad settings fail there, nothing written); that actor stays
on as the first replica of its model's pool when the model is asked next.

The pools are kept by :mod:`._ray_pools`, the actors' resources chosen by :mod:`._ray_resources`.
"""

from __future__ import annotations

import logging
import signal
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import polars as pl

from cueshift.designs.work import UnitKind, Workload
from cueshift.errors import ConfigError, CueshiftError
from cueshift.execution._ray_pools import MAX_RESTARTS, ActorPools, WorkloadHolder, _Pool, _ray
from cueshift.execution._ray_resources import Replica, actor_resources
from cueshift.execution.batching import BatchSizer
from cueshift.execution.executor import Answered, check_methods
from cueshift.execution.work_units import UnitCutter, group_column
from cueshift.inference.embedding_cache import EmbeddingCache
from cueshift.study.config import ModelConfig, Study

#: units in flight per actor: one being answered, one waiting in its queue
DEPTH = 2
#: seconds of an actor's work one unit should take
UNIT_SECONDS = 2.0


class RayExecutor(ActorPools):
    """The :class:`~cueshift.execution.executor.Executor` on a Ray cluster (module docstring).

    Parameters
    ----------
    address
        ``None``: start a Ray instance on this machine; ``"auto"``: join the cluster this
        machine belongs to; ``"ray://host:10001"``: a remote cluster through Ray Client.
        When Ray is already initialised (a notebook, a test), that instance is used.
    workers
        Actors per model (default: what the cluster's resources hold).
    """

    def __init__(self, address: str | None = None, *, workers: int | None = None) -> None:
        if workers is not None and workers < 1:
            raise ConfigError(f"--workers {workers}: use at least 1")
        self.address = address
        #: whether the actors run on this machine (the preflight checks extras and checkpoints here)
        self.loads_backends_here = address is None
        self.workers = workers
        self._started_ray = False
        self._workload: Workload | None = None
        self._holder: Any = None
        self._holder_name = ""
        self._max_rows = 1
        self._units: dict[tuple[str, int], pl.DataFrame] = {}
        self._pool: _Pool | None = None
        self._reports: dict[str, dict[str, Any]] = {}

    # --- the Executor interface ----------------------------------------------------------------------
    def start(self, study: Study, workload: Workload) -> None:
        check_methods(study.models, workload)
        ray = _ray()
        if not ray.is_initialized():
            on_sigterm = signal.getsignal(signal.SIGTERM)  # ray.init installs sys.exit for SIGTERM
            try:
                ray.init(
                    address=self.address,
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level=logging.ERROR,
                    configure_logging=True,
                )
            except (ConnectionError, ValueError, RuntimeError) as exc:
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise CueshiftError(f"--address {self.address}: cannot connect to Ray: {first}") from None
            finally:  # keep the command's own (infer: stop as Ctrl-C does, say how to resume)
                if on_sigterm is not None and threading.current_thread() is threading.main_thread():
                    signal.signal(signal.SIGTERM, on_sigterm)
            self._started_ray = True
        self._workload = workload
        self._holder_name = f"cueshift-workload-{uuid.uuid4().hex}"
        self._holder = ray.remote(WorkloadHolder).options(name=self._holder_name, num_cpus=0).remote(workload)
        self._max_rows = study.batch_size
        cluster = {k: float(v) for k, v in ray.cluster_resources().items()}
        for model in study.models:  # one model's backend at a time: nothing written before all build
            replicas = actor_resources(model, cluster, self.workers)
            self._switch(model, replicas[:1])
            pool = self._pool
            assert pool is not None
            for index in range(len(workload.units)):
                self._units[(model.model_id, index)] = self._get(pool.actors[0].units.remote(index), model)

    def attach_cache(self, cache: EmbeddingCache) -> None:
        """Actors get no cache: the study database stays with the driver (CLIP re-encodes)."""

    def units(self, model: ModelConfig, kind: UnitKind) -> pl.DataFrame:
        return self._units[(model.model_id, self._kind_index(kind))]

    def answer(
        self, model: ModelConfig, kind: UnitKind, pending: pl.DataFrame, budget: int
    ) -> Iterator[Answered]:
        if pending.height == 0 or budget <= 0:
            return
        ray = _ray()
        cluster = {k: float(v) for k, v in ray.cluster_resources().items()}
        pool = self._switch(model, actor_resources(model, cluster, self.workers))
        index = self._kind_index(kind)
        cutter = UnitCutter(pending, group_column(kind, pending), budget)
        sizer = BatchSizer(self._max_rows, target_seconds=UNIT_SECONDS, initial=1)
        in_flight: dict[Any, tuple[int, pl.DataFrame]] = {}
        while not cutter.done or in_flight:
            for actor_index, actor in enumerate(pool.actors):
                while pool.inflight[actor_index] < DEPTH and not cutter.done:
                    unit = cutter.next(sizer.size)
                    in_flight[actor.answer.remote(index, unit)] = (actor_index, unit)
                    pool.inflight[actor_index] += 1
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                actor_index, unit = in_flight.pop(ref)
                pool.inflight[actor_index] -= 1
                answers, seconds = self._get(ref, model)
                sizer.record(unit.height, seconds)
                yield unit, answers

    def reports(self) -> dict[str, dict[str, Any]]:
        self._collect_reports()
        return {model_id: report for model_id, report in self._reports.items() if report}

    def close(self) -> None:
        try:
            self._stop_pool(collect=False)  # reports() collected them on a run's way out
        finally:
            if self._holder is not None:
                _ray().kill(self._holder)
                self._holder = None
            if self._started_ray:
                _ray().shutdown()
                self._started_ray = False

    # --- helpers -------------------------------------------------------------------------------------
    def _kind_index(self, kind: UnitKind) -> int:
        assert self._workload is not None
        for i, candidate in enumerate(self._workload.units):
            if candidate is kind or candidate.name == kind.name:
                return i
        raise KeyError(kind.name)


__all__ = ["DEPTH", "MAX_RESTARTS", "UNIT_SECONDS", "RayExecutor", "Replica", "actor_resources"]
