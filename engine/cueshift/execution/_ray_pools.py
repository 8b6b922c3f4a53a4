"""The actor pools of :class:`~cueshift.execution.ray_executor.RayExecutor`: one model's pool at a
time, grown when the same model asks for more replicas, its backends' reports collected before its
actors stop; Ray's failures turned into one line; the workload kept in the cluster for the actors
by a named :class:`WorkloadHolder` (so that a restarted actor fetches it again).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from cueshift.designs.work import Workload
from cueshift.errors import CueshiftError
from cueshift.execution._ray_resources import Replica
from cueshift.execution.ray_worker import UnitWorker
from cueshift.extras import importing
from cueshift.study.config import ModelConfig

#: times an actor is restarted after its process dies, and a unit sent again
MAX_RESTARTS = 4


def _ray() -> Any:
    with importing("ray", "--executor ray"):
        import ray
    return ray


@dataclass
class _Pool:
    """The actors of one model and what they are doing."""

    model: ModelConfig
    actors: list[Any] = field(default_factory=list)
    #: units sent to each actor and not answered yet
    inflight: list[int] = field(default_factory=list)
    #: each actor's process id when it started (a restarted actor has another)
    pids: list[int] = field(default_factory=list)


class ActorPools:
    """The pool half of :class:`~cueshift.execution.ray_executor.RayExecutor` (which inherits it)."""

    _pool: _Pool | None
    _holder_name: str
    _reports: dict[str, dict[str, Any]]

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

    def _get(self, ref: Any, model: ModelConfig) -> Any:
        """``ray.get`` with the backend's own one-line errors, and Ray's failures in one line."""
        ray = _ray()
        try:
            return ray.get(ref)
        except ray.exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, CueshiftError):
                raise cause from None
            raise CueshiftError(f"model {model.model_id!r}: a Ray worker failed: {_last_line(exc)}") from None
        except ray.exceptions.RayActorError as exc:
            raise CueshiftError(
                f"model {model.model_id!r}: a Ray worker died {MAX_RESTARTS + 1} times or could not start: "
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
