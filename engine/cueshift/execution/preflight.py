"""Checks of every input a study names, run before its design plans or writes anything.

A design's ``plan`` reads the images, the human ratings and the other files it needs, each
reader raising one line naming file, row and field. What a plan does not read is checked here
first, so that a bad value stops the run before any file (the noise-floor placebos, the demo
cache) or database is written: every model's ``[models.settings]``, validated by its backend's
settings model without building the backend (no weights loaded, no server called).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Final

from cueshift.infer.backends import SIMULATED_DESIGNS, StudyContext, backend_class
from cueshift.study.config import ModelConfig, Study

#: backend name -> "module:function" that validates a model's settings (one-line ConfigError).
SETTINGS_PARSERS: Final[dict[str, str]] = {
    "transformers": "cueshift.infer.backends.hf_settings:parse_settings",
    "openai": "cueshift.infer.backends.openai_settings:parse_settings",
    "clip": "cueshift.infer.backends.clip_probe:parse_settings",
}
#: Backends cheap to build without images (their settings are validated by their constructor).
BUILT_TO_CHECK: Final[frozenset[str]] = frozenset({"simulated", SIMULATED_DESIGNS})


def check_model_settings(model: ModelConfig) -> None:
    """Validate ``model``'s backend name and settings.

    Raises
    ------
    ConfigError
        Unknown backend, or settings its backend refuses (one line naming model and field).
    """
    cls = backend_class(model.backend)
    if model.backend in SETTINGS_PARSERS:
        module_name, _, function = SETTINGS_PARSERS[model.backend].partition(":")
        parse: Callable[[ModelConfig], object] = getattr(importlib.import_module(module_name), function)
        parse(model)
    elif model.backend in BUILT_TO_CHECK:
        cls(model, StudyContext(images={}, scenarios={}, template=""))


def check_study_inputs(study: Study) -> None:
    """Every check of this module on ``study`` (run before ``design.plan``)."""
    for model in study.models:
        check_model_settings(model)


__all__ = ["SETTINGS_PARSERS", "check_model_settings", "check_study_inputs"]
