"""Settings of the ``diffusers`` generator, checked without importing diffusers or loading weights.

>>> parse_settings("", {})
Traceback (most recent call last):
...
cueshift.errors.ConfigError: [[build.generators]] diffusers: model = '<local pipeline folder>' is required
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cueshift.errors import ConfigError

DTYPES = ("float32", "float16", "bfloat16")
DEVICES = ("auto", "cpu", "cuda")
_KEYS = ("pipeline", "steps", "guidance", "image_guidance", "dtype", "device", "negative_prompt")


@dataclass(frozen=True)
class DiffusersSettings:
    """A checkpoint folder's pipeline and how it is run."""

    pipeline: str | None
    steps: int
    guidance: float
    image_guidance: float | None
    dtype: str
    device: str
    negative_prompt: str | None


def _number(key: str, value: object, kind: type) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (kind is int and not isinstance(value, int))
    ):
        raise ConfigError(f"diffusers settings: {key} = {value!r} is not a {kind.__name__}")
    return value


def parse_settings(model: str, settings: Mapping[str, object]) -> DiffusersSettings:
    """Check ``model`` (a local pipeline folder: the hub is never asked) and ``settings``.

    Raises
    ------
    ConfigError
        An unknown key, a value of the wrong type or range, no model folder.
    """
    unknown = sorted(set(settings) - set(_KEYS))
    if unknown:
        raise ConfigError(f"diffusers settings: unknown key {unknown[0]!r}; known: {', '.join(_KEYS)}")
    if not model:
        raise ConfigError("[[build.generators]] diffusers: model = '<local pipeline folder>' is required")
    if not Path(model).is_dir():
        raise ConfigError(f"diffusers: model {model!r} is not a local pipeline folder (no hub downloads)")
    steps = int(_number("steps", settings.get("steps", 30), int))
    if steps < 1:
        raise ConfigError(f"diffusers settings: steps = {steps} must be at least 1")
    dtype, device = str(settings.get("dtype", "float32")), str(settings.get("device", "auto"))
    if dtype not in DTYPES:
        raise ConfigError(f"diffusers settings: dtype {dtype!r}; known: {', '.join(DTYPES)}")
    if device not in DEVICES:
        raise ConfigError(f"diffusers settings: device {device!r}; known: {', '.join(DEVICES)}")
    image_guidance = settings.get("image_guidance")
    negative = settings.get("negative_prompt")
    return DiffusersSettings(
        pipeline=str(settings["pipeline"]) if "pipeline" in settings else None,
        steps=steps,
        guidance=float(_number("guidance", settings.get("guidance", 7.5), float)),
        image_guidance=None
        if image_guidance is None
        else float(_number("image_guidance", image_guidance, float)),
        dtype=dtype,
        device=device,
        negative_prompt=None if negative is None else str(negative),
    )


__all__ = ["DTYPES", "DiffusersSettings", "parse_settings"]
