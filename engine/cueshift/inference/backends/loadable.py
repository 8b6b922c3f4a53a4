"""Whether a model's weights can be loaded (or its server reached) here, checked in seconds before
anything is written.

Building a backend (:meth:`BackendSpec.build`) loads its weights; a missing ``models`` extra or a
checkpoint that is neither a local folder, nor in the Hugging Face cache, nor on a reachable hub
fails there, after the design has written its placebos and demo faces. These checks raise the same
one line the build would, without importing torch or transformers and without loading weights
(the preflight of :mod:`cueshift.execution.preflight` runs them before the design plans). An
OpenAI-compatible model has no weights here: its check is that its key is set and its server
answers (:mod:`.openai_reachable`).
"""

from __future__ import annotations

from cueshift.errors import ConfigError
from cueshift.extras import require
from cueshift.inference.backends.checkpoints import checkpoint_source
from cueshift.inference.backends.openai_reachable import check_reachable
from cueshift.inference.backends.openai_settings import parse_settings
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


def check_openai_loadable(model: ModelConfig) -> None:
    """The OpenAI-compatible server can be used: a checkpoint (the served model's name), the key of
    ``api_key_env`` set, and a base URL that answers ``GET /models`` within a few seconds without
    refusing the key (:func:`~.openai_reachable.check_reachable`).

    Raises
    ------
    ConfigError
        Invalid settings, an empty checkpoint, or ``api_key_env`` naming an unset variable.
    CueshiftError
        No base URL answers, or one refuses the credentials (401, 403, 407).
    """
    settings = parse_settings(model)
    if not model.checkpoint:
        raise ConfigError(f"model {model.model_id!r}: checkpoint must name the served model")
    check_reachable(model, settings)


__all__ = ["check_clip_loadable", "check_openai_loadable", "check_transformers_loadable"]
