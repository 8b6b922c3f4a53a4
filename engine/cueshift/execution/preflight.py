"""Checks of every input a study names, run before its design builds its workload or writes anything.

A design's ``workload`` reads the images, the human ratings and the other files it needs, each
reader raising one line naming file, row and field. What a workload does not read is checked here
first, so that a bad value stops the run before any file (the noise-floor placebos, the demo
cache) or database is written: every model's ``[models.settings]``, validated by its backend's
settings model without building the backend (no weights loaded, no server called), and, where
the backends load on this machine, whether each model can be loaded at all (its extra installed,
its checkpoint a local folder, in the Hugging Face cache or on a reachable hub; a served model's
key variable set and its server answering: :meth:`BackendSpec.check_loadable`, in seconds, no
weights loaded).
"""

from __future__ import annotations

from cueshift.errors import ConfigError
from cueshift.inference.backends import backend_spec
from cueshift.study.config import ModelConfig, Study


def check_model_settings(model: ModelConfig) -> None:
    """Validate ``model``'s backend name and settings (:meth:`BackendSpec.check_settings`).

    Raises
    ------
    ConfigError
        Unknown backend (the close known name suggested), or settings its backend refuses (one line
        naming model and field).
    """
    try:
        spec = backend_spec(model.backend)
    except ConfigError as err:
        raise ConfigError(f"model {model.model_id!r}: backend: {err}") from None
    spec.check_settings(model)


def check_study_inputs(study: Study, *, loads_here: bool = True) -> None:
    """Every check of this module on ``study`` (run before ``design.workload``).

    ``loads_here`` False (the backends load on a remote Ray cluster): the settings only, since the
    cluster's machines have their own extras and checkpoints.
    """
    for model in study.models:
        check_model_settings(model)
    if loads_here:
        for model in study.models:
            backend_spec(model.backend).check_loadable(model)


__all__ = ["check_model_settings", "check_study_inputs"]
