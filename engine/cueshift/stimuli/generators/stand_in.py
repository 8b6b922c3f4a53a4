"""A TEST DOUBLE of an image generator: draws cueshift's synthetic demo faces, with planted failures.

``generator = "demo-faces"`` makes no photographs and runs no model: it reads the demographic
labels and the variation value out of the prompt (the default prompt family names them), draws
the demo renderer's face for them (:mod:`cueshift.images.demo`) and, at the planted rates, refuses,
fails, or returns the base unchanged (an edit that did nothing, which the edit audit's
``changed_pixels`` measure rejects). The outcome of a call is a pure function of its prompt and
seed, so the loop's retries, resume and audit gate are tested fast and reproducibly. It stands in
for a real backend the way the simulated judge stands in for a model; it is not one.

The base face's identity travels inside its PNG (a text chunk), so an edit draws the same face.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from collections.abc import Mapping

from PIL import Image, PngImagePlugin

from cueshift.errors import ConfigError
from cueshift.images.demo import DemoFace, DemoImage, render_png
from cueshift.images.labels import AGES, BODY_TYPES, ETHNICITIES, default_framing
from cueshift.stimuli.generators.base import ImageRequest, ImageResult
from cueshift.study.variations import FEATURES

_CHUNK = "cueshift-demo-face"
_RATES = ("refuse_rate", "fail_rate", "noop_rate")
_KEYS = (*_RATES, "delay")


def parse_settings(model: str, settings: Mapping[str, object]) -> dict[str, float]:
    """The planted rates (each 0 to 1; default 0), e.g. ``{refuse_rate = 0.1}``, and ``delay``
    (seconds each call sleeps, to make a slow generator in a test).

    Raises
    ------
    ConfigError
        An unknown key or a rate outside 0-1.
    """
    rates: dict[str, float] = dict.fromkeys(_KEYS, 0.0)
    for key, value in settings.items():
        if key not in rates:
            raise ConfigError(f"demo-faces settings: unknown key {key!r}; known: {', '.join(_KEYS)}")
        top = 60.0 if key == "delay" else 1.0
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= top:
            raise ConfigError(f"demo-faces settings: {key} = {value!r} is not between 0 and {top:g}")
        rates[key] = float(value)
    return rates


def _draw(request: ImageRequest, salt: str) -> float:
    """A uniform number on [0, 1) fixed by the request and ``salt``."""
    key = f"{salt}|{request.seed}|{request.prompt}".encode()
    return int.from_bytes(hashlib.sha256(key).digest()[:8], "big") / 2**64


def _find(prompt: str, labels: tuple[str, ...]) -> str:
    """The longest label named in ``prompt`` (case-insensitive), else the first label."""
    found = [label for label in labels if label.casefold() in prompt.casefold()]
    return max(found, key=len) if found else labels[0]


def _png(image: DemoImage) -> bytes:
    data, _, _ = render_png(image)
    with Image.open(io.BytesIO(data)) as picture:
        info = PngImagePlugin.PngInfo()
        face = image.face
        info.add_text(
            _CHUNK, json.dumps([face.face_id, face.age, face.gender, face.ethnicity, face.body_type])
        )
        out = io.BytesIO()
        picture.save(out, format="PNG", pnginfo=info, compress_level=1)
    return out.getvalue()


class DemoFacesGenerator:
    """The test double (see the module docstring); built as ``DemoFacesGenerator(model, settings)``."""

    name = "demo-faces"

    def __init__(self, model: str, settings: Mapping[str, object]) -> None:
        self.model = model or "demo-renderer"
        self.rates = parse_settings(model, settings)

    def generate(self, request: ImageRequest) -> ImageResult:
        """Draw the face the prompt describes, or the planted refusal, failure or no-op."""
        if self.rates["delay"]:
            time.sleep(self.rates["delay"])
        if _draw(request, "refuse") < self.rates["refuse_rate"]:
            return ImageResult("refused", None, "planted refusal (demo-faces test double)", 0.0)
        if _draw(request, "fail") < self.rates["fail_rate"]:
            return ImageResult("failed", None, "planted failure (demo-faces test double)", 0.0)
        if request.stage == "base":
            gender = "female" if "female" in request.prompt.casefold() else "male"
            face = DemoFace(
                f"seed-{request.seed}",
                _find(request.prompt, AGES),
                gender,
                _find(request.prompt, ETHNICITIES),
                _find(request.prompt, BODY_TYPES),
            )
            return ImageResult("ok", _png(DemoImage("base", face, None, None, "face", "base.png")), "", 0.0)
        if request.parent_png is None:
            return ImageResult("failed", None, "an edit needs its base image", 0.0)
        if _draw(request, "noop") < self.rates["noop_rate"]:
            return ImageResult("ok", request.parent_png, "", 0.0)
        with Image.open(io.BytesIO(request.parent_png)) as parent:
            stamp = parent.info.get(_CHUNK)
        if not isinstance(stamp, str):
            return ImageResult("failed", None, "the base is not a demo-faces image", 0.0)
        face = DemoFace(*json.loads(stamp))
        key, value = _variation(request.prompt)
        image = DemoImage("variation", face, key, value, default_framing(key), "variation.png")
        return ImageResult("ok", _png(image), "", 0.0)


def _variation(prompt: str) -> tuple[str, str]:
    """The (feature key, value) of Table 8 whose value the prompt names (the longest match)."""
    lowered = prompt.casefold()
    matches = [(f.feature_key, v) for f in FEATURES for v in f.values if v.casefold() in lowered]
    if not matches:
        return "eyewear", "Sunglasses"
    return max(matches, key=lambda match: len(match[1]))


__all__ = ["DemoFacesGenerator", "parse_settings"]
