"""Backend registry: ``backend = "<name>"`` in a study's [[models]] picks one of these.

Heavy backends are imported only when a study asks for them. Every backend answers
forced-choice judgments (:meth:`Backend.judge`); some also offer the methods of further
designs (``judge_pairs`` for two-image trials, ``rate`` for ratings): :func:`supports`
tells, and :func:`build_backend` refuses a backend without the method a design needs.
"""

from __future__ import annotations

import importlib

from cueshift.errors import ConfigError
from cueshift.infer.backends.base import Backend, BackendAnswers, StudyContext
from cueshift.study.config import ModelConfig

#: The simulated judge with pairwise choices, ratings and latent impressions (seeds 001/002/004).
SIMULATED_DESIGNS = "simulated-designs"

#: backend name -> "module:Class" (imported lazily)
BACKENDS: dict[str, str] = {
    "simulated": "cueshift.infer.stand_ins.simulated:SimulatedBackend",
    "transformers": "cueshift.infer.backends.hf:TransformersBackend",
    "openai": "cueshift.infer.backends.openai_compat:OpenAIBackend",
    "clip": "cueshift.infer.backends.clip:ClipBackend",
    SIMULATED_DESIGNS: "cueshift.infer.stand_ins.simulated_designs:SimulatedDesignBackend",
}


def backend_class(name: str) -> type[Backend]:
    """The class registered under ``name``; an unknown name is a :class:`ConfigError`."""
    if name not in BACKENDS:
        raise ConfigError(f"unknown backend {name!r}; known: {', '.join(sorted(BACKENDS))}")
    module_name, _, class_name = BACKENDS[name].partition(":")
    cls: type[Backend] = getattr(importlib.import_module(module_name), class_name)
    return cls


def supports(backend: Backend | type[Backend], method: str) -> bool:
    """Whether ``backend`` (an instance or a class) offers the design method ``method``."""
    return callable(getattr(backend, method, None))


def build_backend(model: ModelConfig, context: StudyContext, *, needs: str | None = None) -> Backend:
    """Build the backend of ``model``; with ``needs`` (e.g. ``"judge_pairs"``), refuse a backend
    without that method before building it (no weights are loaded, no server is called).

    Raises
    ------
    ConfigError
        Unknown backend, bad settings, or a backend without the method ``needs``.
    """
    cls = backend_class(model.backend)
    if needs is not None and not supports(cls, needs):
        raise ConfigError(
            f"model {model.model_id!r}: backend {model.backend!r} has no {needs}(); "
            f"use backend = {SIMULATED_DESIGNS!r} or a backend that implements it"
        )
    return cls(model, context)


__all__ = [
    "BACKENDS",
    "SIMULATED_DESIGNS",
    "Backend",
    "BackendAnswers",
    "StudyContext",
    "backend_class",
    "build_backend",
    "supports",
]
