"""Whether a model's weights can be loaded here, checked in seconds before anything is written.

Building a backend (:meth:`BackendSpec.build`) loads its weights; a missing ``models`` extra or a
checkpoint that is neither a local folder, nor in the Hugging Face cache, nor on a reachable hub
fails there, after the design has written its placebos and demo faces. These checks raise the same
one line the build would, without importing torch or transformers and without loading weights
(the preflight of :mod:`cueshift.execution.preflight` runs them before the design plans).
"""

from __future__ import annotations

from cueshift.errors import ConfigError
from cueshift.extras import require
from cueshift.inference.backends.checkpoints import checkpoint_source
from cueshift.inference.stand_ins.checkpoints import is_stand_in
from cueshift.study.config import ModelConfig


def check_transformers_loadable(model: ModelConfig) -> None:
    """The transformers backend's extra is installed and ``model.checkpoint`` can be found.

    Raises
    ------
    MissingExtra
        torch or transformers is not installed.
    ConfigError
        An empty checkpoint, or one :func:`checkpoint_source` refuses.
    """
    require("models", "the transformers backend")
    if not model.checkpoint:
        raise ConfigError(f"model {model.model_id!r}: checkpoint is empty (a local directory or a hub id)")
    checkpoint_source(model.model_id, model.checkpoint, model.revision)


def check_clip_loadable(model: ModelConfig) -> None:
    """The CLIP backend's extra is installed and ``model.checkpoint`` can be found (a stand-in id
    always can: it is materialised when the backend is built).

    Raises
    ------
    MissingExtra
        torch or transformers is not installed.
    ConfigError
        An empty checkpoint, or one :func:`checkpoint_source` refuses.

    Examples
    --------
    >>> check_clip_loadable(ModelConfig(model_id="m", backend="clip", checkpoint="cueshift:tiny-random-clip"))
    """
    require("models", "backend 'clip'")
    if not model.checkpoint:
        raise ConfigError(f"model {model.model_id!r}: checkpoint must name a CLIP checkpoint")
    if is_stand_in(model.checkpoint):
        return
    checkpoint_source(model.model_id, model.checkpoint, model.revision or "main", what="CLIP checkpoint")


__all__ = ["check_clip_loadable", "check_transformers_loadable"]
