"""Random-weight twins of the CLIP probes: the baseline an untrained encoder of the same class sets.

A twin is a model with ``backend = "clip"``, ``settings.random_init = true`` and the same
checkpoint and revision as a trained model: the checkpoint's architecture with random weights
(:func:`cueshift.inference.backends.clip.load_clip`). A study lists it by hand, or sets
``[probe] random_twins = true`` and the study gets ``<model_id>.random`` for every CLIP model
that has none (:func:`with_random_twins`, when the study file is read: judged, planned and
analysed like any listed model). :func:`random_twins` pairs each trained model with its twin, so
``result_probe_baselines`` puts the two similarities side by side.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cueshift.inference.stand_ins.checkpoints import is_stand_in
from cueshift.study.config import ModelConfig

TWIN_SUFFIX = ".random"


def is_random_init(model: ModelConfig) -> bool:
    """A CLIP model whose weights are drawn at random (``settings.random_init``)."""
    return model.backend == "clip" and bool(model.settings.get("random_init", False))


def random_twins(models: Sequence[ModelConfig]) -> dict[str, str]:
    """Trained CLIP model id -> the id of the first random-init model of the same checkpoint and revision."""
    randoms = [m for m in models if is_random_init(m)]
    pairs = {}
    for model in models:
        if model.backend != "clip" or is_random_init(model):
            continue
        twin = next(
            (r for r in randoms if (r.checkpoint, r.revision) == (model.checkpoint, model.revision)), None
        )
        if twin is not None:
            pairs[model.model_id] = twin.model_id
    return pairs


def _entry(model: object) -> dict[str, Any] | None:
    """A study file's model entry as a dict (``None``: not a table, left to the field's validation)."""
    if isinstance(model, ModelConfig):
        return model.model_dump()
    return dict(model) if isinstance(model, dict) else None


def _twin_settings(model: ModelConfig) -> dict[str, Any]:
    """The twin's settings: ``random_init``; for the tiny random CLIP (itself drawn with seed
    ``tiny_seed``) the next seed, so that the twin is not the same weights again."""
    settings = {**model.settings, "random_init": True}
    if is_stand_in(model.checkpoint) and "random_seed" not in settings:
        settings["random_seed"] = int(settings.get("tiny_seed", 0)) + 1
    return settings


def with_random_twins(models: list[Any]) -> list[Any]:
    """The model entries (tables or :class:`ModelConfig`) with a ``<model_id>.random`` twin
    (``random_init = true``, the same settings otherwise) appended for each CLIP model that has
    none; what :class:`~cueshift.designs.probe.section.ProbeStudy` does under ``[probe] random_twins``."""
    entries = [_entry(m) for m in models]
    valid = []
    for entry in entries:
        try:
            valid.append(ModelConfig.model_validate(entry))
        except ValueError:
            return models  # a bad entry: the field's own validation reports it
    paired, taken = random_twins(valid), {m.model_id for m in valid}
    added = [
        {**entry, "model_id": f"{m.model_id}{TWIN_SUFFIX}", "settings": _twin_settings(m)}
        for m, entry in zip(valid, entries, strict=True)
        if entry is not None
        and m.backend == "clip"
        and not is_random_init(m)
        and m.model_id not in paired
        and f"{m.model_id}{TWIN_SUFFIX}" not in taken
    ]
    return [*models, *added]
