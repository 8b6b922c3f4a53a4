"""How the actors of a model's Ray pool are made (``cueshift infer --executor ray``).

:class:`Replica` is one actor: the model entry it builds and its CPUs and GPUs;
:func:`actor_resources` gives a model's replicas on a cluster (GPUs for a transformers or CLIP
model on CUDA, one lightweight client per server of an OpenAI-compatible model, one CPU
otherwise). :mod:`cueshift.execution.ray_executor` exports both.
"""

from __future__ import annotations

from dataclasses import dataclass

from cueshift.errors import ConfigError
from cueshift.study.config import ModelConfig


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
                f"model {model.model_id!r}: settings.device = 'cuda' but the Ray cluster has "
                f"{cluster.get('GPU', 0.0):g} GPUs (each replica needs {wanted:g})"
            )
    if workers is None:
        workers = int(cluster.get("GPU", 0.0) // gpus) if gpus else int(cluster.get("CPU", 1.0))
    return [Replica(model, 1.0, gpus) for _ in range(max(workers, 1))]
