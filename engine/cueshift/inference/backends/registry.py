"""The one backend registry: ``backend = "<name>"`` in a study's [[models]] picks an entry.

Each :class:`BackendSpec` says everything the rest of cueshift asks of a backend before it
exists: the class that answers (imported only when a study asks for it: the transformers
and CLIP backends import torch), the design methods it offers (``judge`` for forced choice,
``judge_pairs`` for two-image trials, ``rate`` for ratings), and how its ``[models.settings]``
are validated without building it (no weights loaded, no server called). The executors, the
preflight checks, the Ray workers and the tests all go through :func:`backend_spec`.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from cueshift.errors import ConfigError
from cueshift.inference.backends.base import Backend, StudyContext
from cueshift.study.config import ModelConfig

#: The simulated judge with pairwise choices, ratings and latent impressions (seeds 001/002/004).
SIMULATED_DESIGNS = "simulated-designs"
#: Every design method a backend may offer (``judge`` is the abstract method of :class:`Backend`).
DESIGN_METHODS: Final[frozenset[str]] = frozenset({"judge", "judge_pairs", "rate"})


def _load(target: str) -> Any:
    """The attribute named by ``"module:attribute"`` (the module imported now)."""
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


@dataclass(frozen=True)
class BackendSpec:
    """One registered backend.

    Attributes
    ----------
    name
        The ``backend`` value of a study's model entry.
    factory
        ``"module:Class"`` of the :class:`Backend` subclass (imported lazily).
    methods
        The design methods the class offers (a subset of :data:`DESIGN_METHODS`).
    settings_parser
        ``"module:function"`` validating a model's settings with a one-line
        :class:`ConfigError`; ``None``: the backend is cheap to build without images, and
        building it with an empty context validates its settings.
    load_check
        ``"module:function"`` checking, without loading weights, that the model can be loaded
        here (its extra installed, its checkpoint found; a served model's key set and server
        answering): the one line the build or the first request would raise, in seconds;
        ``None``: nothing to check before the build.
    """

    name: str
    factory: str
    methods: frozenset[str]
    settings_parser: str | None = None
    load_check: str | None = None

    def backend_class(self) -> type[Backend]:
        """The backend's class (its module imported now)."""
        cls: type[Backend] = _load(self.factory)
        return cls

    def supports(self, method: str) -> bool:
        """Whether the backend offers the design method ``method``."""
        return method in self.methods

    def build(self, model: ModelConfig, context: StudyContext) -> Backend:
        """The backend of ``model`` (weights loaded, clients made)."""
        return self.backend_class()(model, context)

    def check_settings(self, model: ModelConfig) -> None:
        """Validate ``model``'s settings without loading weights or calling a server.

        Raises
        ------
        ConfigError
            Settings the backend refuses (one line naming model and field).
        """
        if self.settings_parser is None:
            self.build(model, StudyContext(images={}, scenarios={}, template=""))
            return
        parse: Callable[[ModelConfig], object] = _load(self.settings_parser)
        parse(model)

    def check_loadable(self, model: ModelConfig) -> None:
        """Check that ``model`` can be loaded on this machine, loading no weights (see ``load_check``).

        Raises
        ------
        CueshiftError
            A missing extra or a checkpoint that cannot be found, or a served model's unset key
            variable or unreachable server (one line naming the model).
        """
        if self.load_check is not None:
            check: Callable[[ModelConfig], None] = _load(self.load_check)
            check(model)


_PAIRS_AND_RATINGS: Final = frozenset({"judge", "judge_pairs", "rate"})

#: backend name -> its entry
REGISTRY: Final[dict[str, BackendSpec]] = {
    spec.name: spec
    for spec in (
        BackendSpec(
            "simulated", "cueshift.inference.stand_ins.simulated:SimulatedBackend", frozenset({"judge"})
        ),
        BackendSpec(
            "transformers",
            "cueshift.inference.backends.hf:TransformersBackend",
            _PAIRS_AND_RATINGS,
            "cueshift.inference.backends.hf_settings:parse_settings",
            "cueshift.inference.backends.loadable:check_transformers_loadable",
        ),
        BackendSpec(
            "openai",
            "cueshift.inference.backends.openai_compat:OpenAIBackend",
            _PAIRS_AND_RATINGS,
            "cueshift.inference.backends.openai_settings:parse_settings",
            "cueshift.inference.backends.loadable:check_openai_loadable",
        ),
        BackendSpec(
            "clip",
            "cueshift.inference.backends.clip:ClipBackend",
            frozenset({"judge"}),
            "cueshift.inference.backends.clip_probe:parse_settings",
            "cueshift.inference.backends.loadable:check_clip_loadable",
        ),
        BackendSpec(
            SIMULATED_DESIGNS,
            "cueshift.inference.stand_ins.simulated_designs:SimulatedDesignBackend",
            _PAIRS_AND_RATINGS,
        ),
    )
}


def backend_spec(name: str) -> BackendSpec:
    """The entry registered under ``name``.

    Raises
    ------
    ConfigError
        An unknown name (the line suggests the close known name and lists them all).
    """
    if name not in REGISTRY:
        close = difflib.get_close_matches(name, REGISTRY, n=1, cutoff=0.75)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"unknown backend {name!r}{hint}; known: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[name]


__all__ = ["DESIGN_METHODS", "REGISTRY", "SIMULATED_DESIGNS", "BackendSpec", "backend_spec"]
