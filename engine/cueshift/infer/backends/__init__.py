"""Backend registry: ``backend = "<name>"`` in a study's [[models]] picks one of these.

Heavy backends are imported only when a study asks for them.
"""

from __future__ import annotations

import importlib

from cueshift.errors import ConfigError
from cueshift.infer.backends.base import Backend, BackendAnswers, StudyContext

#: backend name -> "module:Class" (imported lazily)
BACKENDS: dict[str, str] = {
    "simulated": "cueshift.infer.backends.simulated:SimulatedBackend",
    "transformers": "cueshift.infer.backends.hf:TransformersBackend",
    "openai": "cueshift.infer.backends.openai_compat:OpenAIBackend",
    "clip": "cueshift.infer.backends.clip:ClipBackend",
    "simulated-designs": "cueshift.infer.backends.simulated_designs:SimulatedDesignBackend",
}


def backend_class(name: str) -> type[Backend]:
    if name not in BACKENDS:
        raise ConfigError(f"unknown backend {name!r}; known: {', '.join(sorted(BACKENDS))}")
    module_name, _, class_name = BACKENDS[name].partition(":")
    cls: type[Backend] = getattr(importlib.import_module(module_name), class_name)
    return cls


__all__ = ["BACKENDS", "Backend", "BackendAnswers", "StudyContext", "backend_class"]
