"""The generator registry: ``generator = "<name>"`` in a study's ``[[build.generators]]`` picks an entry.

Like :mod:`cueshift.inference.backends.registry`: each :class:`GeneratorSpec` names the class
(``"module:Class"``, imported only when a study asks for it: the diffusers generator imports
torch) and a settings parser that validates the entry's settings without building anything (no
weights loaded, no service called). A generator class is built as
``Class(model, settings)``: ``model`` the checkpoint or service model name, ``settings`` the
entry's table.

>>> generator_spec("demo-faces").name
'demo-faces'
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from cueshift.errors import ConfigError
from cueshift.stimuli.generators.base import ImageGenerator


def _load(target: str) -> Any:
    """The attribute named by ``"module:attribute"`` (the module imported now)."""
    module_name, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


@dataclass(frozen=True)
class GeneratorSpec:
    """One registered generator.

    Attributes
    ----------
    name
        The ``generator`` value of a study's build entry.
    factory
        ``"module:Class"`` of the generator class, built as ``Class(model, settings)``.
    stages
        The stages it can make (``"base"``, ``"variation"``).
    settings_parser
        ``"module:function"`` called as ``function(model, settings)``, raising a one-line
        :class:`ConfigError` for settings the generator refuses; ``None``: no settings to check.
    """

    name: str
    factory: str
    stages: frozenset[str]
    settings_parser: str | None = None

    def build(self, model: str, settings: Mapping[str, object]) -> ImageGenerator:
        """The generator for ``model`` (weights loaded, clients made)."""
        generator: ImageGenerator = _load(self.factory)(model, settings)
        return generator

    def check_settings(self, model: str, settings: Mapping[str, object]) -> None:
        """Validate ``settings`` without building the generator.

        Raises
        ------
        ConfigError
            Settings the generator refuses (one line naming the field).
        """
        if self.settings_parser is not None:
            parse: Callable[[str, Mapping[str, object]], object] = _load(self.settings_parser)
            parse(model, settings)


_BOTH: Final = frozenset({"base", "variation"})

#: generator name -> its entry (``register`` adds one, e.g. a test's double).
GENERATORS: Final[dict[str, GeneratorSpec]] = {
    spec.name: spec
    for spec in (
        GeneratorSpec(
            "diffusers",
            "cueshift.stimuli.generators.diffusers_gen:DiffusersGenerator",
            _BOTH,
            "cueshift.stimuli.generators.diffusers_settings:parse_settings",
        ),
        GeneratorSpec(
            "openai-images",
            "cueshift.stimuli.generators.openai_images:OpenAIImagesGenerator",
            _BOTH,
            "cueshift.stimuli.generators.openai_images_settings:parse_settings",
        ),
        GeneratorSpec(
            "demo-faces",
            "cueshift.stimuli.generators.stand_in:DemoFacesGenerator",
            _BOTH,
            "cueshift.stimuli.generators.stand_in:parse_settings",
        ),
    )
}


def register(spec: GeneratorSpec) -> None:
    """Add (or replace) ``spec`` under its name."""
    GENERATORS[spec.name] = spec


def generator_spec(name: str) -> GeneratorSpec:
    """The entry registered under ``name``.

    Raises
    ------
    ConfigError
        An unknown name (the line lists the known ones).
    """
    if name not in GENERATORS:
        raise ConfigError(f"unknown generator {name!r}; known: {', '.join(sorted(GENERATORS))}")
    return GENERATORS[name]


__all__ = ["GENERATORS", "GeneratorSpec", "generator_spec", "register"]
