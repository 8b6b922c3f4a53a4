"""The backend registry: each entry's declared design methods are its class's, and its
settings are checked without building it (no weights, no server)."""

from __future__ import annotations

import pytest

from cueshift.errors import ConfigError
from cueshift.execution.preflight import check_model_settings
from cueshift.inference.backends import DESIGN_METHODS, REGISTRY, backend_spec
from cueshift.study.config import ModelConfig


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_declared_methods_are_the_class_methods(name: str) -> None:
    spec = backend_spec(name)
    assert spec.name == name
    offered = {m for m in DESIGN_METHODS if callable(getattr(spec.backend_class(), m, None))}
    assert spec.methods == offered


@pytest.mark.parametrize(
    ("backend", "settings", "field"),
    [
        ("transformers", {"mode": "nope"}, "mode"),
        ("openai", {"base_urls": ["http://127.0.0.1:1/v1"], "temperature": "hot"}, "temperature"),
        ("clip", {"nope": 1}, "nope"),
        ("simulated", {"letter_bias": "x"}, "letter_bias"),
        ("simulated-designs", {"seed": "x"}, "seed"),
    ],
)
def test_bad_settings_are_refused_before_the_backend_is_built(
    backend: str, settings: dict[str, object], field: str
) -> None:
    model = ModelConfig(model_id="m", backend=backend, checkpoint="/nowhere", settings=settings)
    with pytest.raises(ConfigError, match=rf"^model 'm': (.*; )?settings\.{field}\b") as caught:
        check_model_settings(model)
    assert "\n" not in str(caught.value)


def test_unknown_backend_lists_the_known_ones() -> None:
    model = ModelConfig(model_id="m", backend="nope", checkpoint="")
    with pytest.raises(
        ConfigError, match=r"^model 'm': backend: unknown backend 'nope'; known: clip, openai, "
    ):
        check_model_settings(model)


def test_a_misspelt_backend_names_the_model_and_the_close_name() -> None:
    model = ModelConfig(model_id="judge", backend="simulatd", checkpoint="")
    with pytest.raises(ConfigError) as caught:
        check_model_settings(model)
    assert str(caught.value).startswith(
        "model 'judge': backend: unknown backend 'simulatd' (did you mean 'simulated'?); known: clip, "
    )
