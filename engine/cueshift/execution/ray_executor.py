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
"""

from __future__ import annotations

import functools
import logging
import signal
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from cueshift.designs.work import UnitKind, Workload
from cueshift.errors import ConfigError, CueshiftError
from cueshift.execution.batching import BatchSizer
from cueshift.execution.executor import Answered, check_methods
from cueshift.execution.ray_worker import UnitWorker
from cueshift.execution.work_units import UnitCutter, group_column
from cueshift.extras import importing
from cueshift.inference.embedding_cache import EmbeddingCache
from cueshift.study.config import ModelConfig, Study

#: units in flight per actor: one being answered, one waiting in its queue
DEPTH = 2
#: seconds of an actor's work one unit should take
UNIT_SECONDS = 2.0
#: times an actor is restarted after its process dies, and a unit sent again
MAX_RESTARTS = 4


def _ray() -> Any:
    with importing("ray", "--executor ray"):
        import ray
    return ray


@dataclass(frozen=True)
class Replica:
    """How one actor of a model is made: the model entry it builds and its resources."""

    model: ModelConfig
    num_cpus: float
    num_gpus: float


def actor_resources(model: ModelConfig, cluster: dict[str, float], workers: int | None) -> list[Replica]:
    """The actors of ``model``'s pool on a cluster with resources ``cluster``.

    Parameters
    ----------
    model
        The study's model entry.
    cluster
        ``ray.cluster_resources()`` (``CPU``, ``GPU``).
    workers
        Actors wanted (default: as many as the cluster holds; for an OpenAI-compatible
        model, one per server of ``base_urls``).

    Raises
    ------
    ConfigError
        The model asks for GPUs the cluster does not have.
    """
    settings = model.settings
    if model.backend == "openai":
        urls = [str(u) for u in settings.get("base_urls", [])] or [""]
        count = workers or len(urls)
        return [
            Replica(
                model.model_copy(update={"settings": {**settings, "base_urls": [urls[i % len(urls)]]}}),
                0.25,
                0,
            )
            for i in range(count)
        ]
    gpus = 0.0
    if model.backend in ("transformers", "clip") and settings.get("device", "auto") in ("auto", "cuda"):
        wanted = float(settings.get("gpus_per_replica", 1.0)) if model.backend == "transformers" else 1.0
        if cluster.get("GPU", 0.0) >= wanted > 0:
            gpus = wanted
        elif settings.get("device") == "cuda":
            raise ConfigError(
                f"model {model.model_id}: settings.device = 'cuda' but the Ray cluster has "
                f"{cluster.get('GPU', 0.0):g} GPUs (each replica needs {wanted:g})"
            )
    if workers is None:
        workers = int(cluster.get("GPU", 0.0) // gpus) if gpus else int(cluster.get("CPU", 1.0))
    return [Replica(model, 1.0, gpus) for _ in range(max(workers, 1))]


@dataclass
class _Pool:
    """The actors of one model and what they are doing."""

    model: ModelConfig
    actors: list[Any] = field(default_factory=list)
    #: units sent to each actor and not answered yet
    inflight: list[int] = field(default_factory=list)
    #: each actor's process id when it started (a restarted actor has another)
    pids: list[int] = field(default_factory=list)


class RayExecutor:
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

    # --- pools ---------------------------------------------------------------------------------------
    def _switch(self, model: ModelConfig, replicas: list[Replica]) -> _Pool:
        """The pool of ``model`` with ``replicas``: the current one, grown, when it is this model's;
        else a new one (the previous pool's reports collected and its actors stopped)."""
        pool = self._pool
        if pool is None or pool.model.model_id != model.model_id:
            self._stop_pool()
            pool = self._pool = _Pool(model)
        new = [self._actor(replica) for replica in replicas[len(pool.actors) :]]
        readiness = [actor.ready.remote() for actor in new]  # the backends build in parallel
        for ref, actor in zip(readiness, new, strict=True):
            pool.actors.append(actor)
            pool.inflight.append(0)
            pool.pids.append(int(self._get(ref, model)))
        return pool

    def _actor(self, replica: Replica) -> Any:
        ray = _ray()
        remote = ray.remote(UnitWorker).options(
            num_cpus=replica.num_cpus,
            num_gpus=replica.num_gpus,
            max_restarts=MAX_RESTARTS,
            max_task_retries=MAX_RESTARTS,
        )
        # the actor fetches the workload from the holder (alive while the driver is), again after
        # a restart; a reference in its arguments would tie restarts to that object's lifetime
        return remote.remote(replica.model, functools.partial(_fetch_workload, self._holder_name))

    def _collect_reports(self) -> None:
        """Keep what the current pool's backends reported (one report, or each replica's)."""
        pool = self._pool
        if pool is None or not pool.actors:
            return
        found = [r for r in (self._get(a.report.remote(), pool.model) for a in pool.actors) if r]
        if len(found) == 1:
            self._reports[pool.model.model_id] = found[0]
        elif found:
            lines = [line for r in found for line in r.get("lines", [])]
            self._reports[pool.model.model_id] = {"replicas": found, "lines": lines}

    def _stop_pool(self, *, collect: bool = True) -> None:
        """Collect the current pool's reports (with ``collect``), then stop its actors (and free
        their resources)."""
        pool = self._pool
        if pool is None:
            return
        try:
            if collect:
                self._collect_reports()
        finally:
            self._pool = None
            ray = _ray()
            for actor in pool.actors:
                ray.kill(actor, no_restart=True)

    # --- helpers -------------------------------------------------------------------------------------
    def _kind_index(self, kind: UnitKind) -> int:
        assert self._workload is not None
        for i, candidate in enumerate(self._workload.units):
            if candidate is kind or candidate.name == kind.name:
                return i
        raise KeyError(kind.name)

    def _get(self, ref: Any, model: ModelConfig) -> Any:
        """``ray.get`` with the backend's own one-line errors, and Ray's failures in one line."""
        ray = _ray()
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, CueshiftError):
                raise cause from None
            raise CueshiftError(f"model {model.model_id}: a Ray worker failed: {_last_line(exc)}") from None
        except ray.exceptions.RayActorError as exc:
            raise CueshiftError(
                f"model {model.model_id}: a Ray worker died {MAX_RESTARTS + 1} times or could not start: "
                f"{_last_line(exc)}"
            ) from None


class WorkloadHolder:
    """Keeps the workload in the cluster for the actors (a Ray actor without resources)."""

    def __init__(self, workload: Workload) -> None:
        self.workload = workload

    def get(self) -> Workload:
        return self.workload


def _fetch_workload(holder_name: str) -> Workload:
    """The workload from the named holder (a name, not a handle: nothing in an actor's arguments
    then lives in the object store, so Ray can restart the actor whatever became of them)."""
    ray = _ray()
    workload: Workload = ray.get(ray.get_actor(holder_name).get.remote())
    return workload


def _last_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__


__all__ = ["DEPTH", "MAX_RESTARTS", "UNIT_SECONDS", "RayExecutor", "Replica", "actor_resources"]
