"""Backends of the design runners: the simulated judge with pairwise, rating and impression outputs.

``backend = "simulated-designs"`` names
:class:`~cueshift.infer.backends.simulated_designs.SimulatedDesignBackend`.
The name is registered into the backend registry when a design module is imported, so the
ordinary runner (``run_study``) can build it for the paired and probe designs.
"""

from __future__ import annotations

from cueshift.errors import ConfigError
from cueshift.infer.backends import BACKENDS, Backend, StudyContext, backend_class
from cueshift.study.config import ModelConfig

SIMULATED_DESIGNS = "simulated-designs"
BACKENDS.setdefault(SIMULATED_DESIGNS, "cueshift.infer.backends.simulated_designs:SimulatedDesignBackend")


def design_backend(model: ModelConfig, context: StudyContext, *, needs: str) -> Backend:
    """Build the backend of ``model`` and check it offers the method ``needs`` (e.g. ``judge_pairs``)."""
    backend = backend_class(model.backend)(model, context)
    if not callable(getattr(backend, needs, None)):
        backend.close()
        raise ConfigError(
            f"model {model.model_id!r}: backend {model.backend!r} has no {needs}(); "
            f"use backend = {SIMULATED_DESIGNS!r} or a backend that implements it"
        )
    return backend
