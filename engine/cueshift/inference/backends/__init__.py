"""Backends: what answers a study's judgments, picked by ``backend = "<name>"`` in its [[models]].

Heavy backends are imported only when a study asks for them. Every backend answers
forced-choice judgments (:meth:`Backend.judge`); some also offer the methods of further
designs (``judge_pairs`` for two-image trials, ``rate`` for ratings). The one registry,
:mod:`cueshift.inference.backends.registry`, says which, how each is built and how its settings
are checked before it is built (:func:`backend_spec`).
"""

from __future__ import annotations

from cueshift.inference.backends.base import Backend, BackendAnswers, StudyContext
from cueshift.inference.backends.registry import (
    DESIGN_METHODS,
    REGISTRY,
    SIMULATED_DESIGNS,
    BackendSpec,
    backend_spec,
)

__all__ = [
    "DESIGN_METHODS",
    "REGISTRY",
    "SIMULATED_DESIGNS",
    "Backend",
    "BackendAnswers",
    "BackendSpec",
    "StudyContext",
    "backend_spec",
]
