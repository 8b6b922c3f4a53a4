"""The generator registry: names, unknown names in one line, a test's own entry."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from cueshift.errors import ConfigError
from cueshift.stimuli.generators import registry
from cueshift.stimuli.generators.base import ImageGenerator, ImageRequest, ImageResult


class _Echo:
    """A generator that answers every request with a refusal naming its prompt."""

    name = "echo"

    def __init__(self, model: str, settings: Mapping[str, object]) -> None:
        self.model = model
        self.settings = dict(settings)

    def generate(self, request: ImageRequest) -> ImageResult:
        return ImageResult("refused", None, request.prompt, 0.0)


def test_unknown_generator_is_one_line_listing_the_known() -> None:
    with pytest.raises(ConfigError, match="unknown generator 'nope'; known: .*diffusers"):
        registry.generator_spec("nope")


def test_a_registered_class_is_built_with_model_and_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = registry.GeneratorSpec("echo", f"{__name__}:_Echo", frozenset({"base"}))
    monkeypatch.setitem(registry.GENERATORS, "echo", spec)
    built = registry.generator_spec("echo").build("m-1", {"steps": 2})
    assert isinstance(built, ImageGenerator)
    assert built.model == "m-1"
    request = ImageRequest("base", "p", seed=1, parent_png=None, width=8, height=8)
    assert built.generate(request) == ImageResult("refused", None, "p", 0.0)
