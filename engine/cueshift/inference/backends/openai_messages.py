"""The bodies of OpenAI-compatible chat-completion requests.

A request is one user message with one ``image_url`` part per image (a base64 data URL, in
order; with ``image_uuid`` each part also carries ``"uuid"``: the SHA-256 of the file, which
vLLM uses as the cache key of the image's encoder output) and the prompt as a text part
(after the images unless ``image_first`` is false), after the optional system prompt.
Images first, then the prompt (the template's instruction, then the scenario's text) is the
order in which every request of one image shares the longest prefix, which vLLM's prefix
cache reuses. ``temperature`` is 0 in score mode. A constrained request (``constrain``) adds
``structured_outputs = {"choice": choices}`` (vLLM >= 0.12) or ``guided_choice = choices``
(older vLLM).

What their answers say is :mod:`.openai_completion`.
"""

from __future__ import annotations

import base64
import copy
import functools
import hashlib
import io
import struct
import zlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cueshift.inference.backends.openai_settings import OpenAISettings

_MIME_BY_SUFFIX = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
}


@dataclass(frozen=True)
class ImagePart:
    """One image of a request: its data URL and its stable id (SHA-256 of the file)."""

    url: str
    uuid: str


class DataUrls:
    """Base64 data URLs of image files; the ``size`` most recently used are kept.

    PNG, JPEG, WebP and GIF files are sent as they are; other formats (BMP, TIFF...) are
    converted to PNG.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._urls: OrderedDict[Path, ImagePart] = OrderedDict()

    def __call__(self, path: Path) -> ImagePart:
        cached = self._urls.get(path)
        if cached is not None:
            self._urls.move_to_end(path)
            return cached
        mime = _MIME_BY_SUFFIX.get(path.suffix.lower())
        if mime is None:  # e.g. BMP/TIFF: send PNG
            from PIL import Image

            buffer = io.BytesIO()
            with Image.open(path) as img:
                img.convert("RGB").save(buffer, format="PNG")
            raw, mime = buffer.getvalue(), "image/png"
        else:
            raw = path.read_bytes()
        url = f"data:{mime};base64,{base64.b64encode(raw).decode('ascii')}"
        part = ImagePart(url, hashlib.sha256(raw).hexdigest())
        self._urls[path] = part
        if len(self._urls) > self.size:
            self._urls.popitem(last=False)
        return part


def chat_body(
    settings: OpenAISettings,
    served_model: str,
    images: Sequence[ImagePart],
    prompt: str,
    seed: int,
    *,
    constrained: bool = False,
) -> dict[str, Any]:
    """A chat completion of ``served_model``: the images in order and the prompt, the settings'
    decoding (temperature 0 in score mode) and ``seed``; ``extra_body`` fields first.
    ``constrained`` adds the settings' answer constraint (forced-choice requests)."""
    s = settings
    parts: list[dict[str, Any]] = []
    for picture in images:
        image: dict[str, Any] = {"url": picture.url}
        if s.image_detail is not None:
            image["detail"] = s.image_detail
        part: dict[str, Any] = {"type": "image_url", "image_url": image}
        if s.image_uuid:
            part["uuid"] = picture.uuid
        parts.append(part)
    text = {"type": "text", "text": prompt}
    parts = [*parts, text] if s.image_first else [text, *parts]
    messages: list[dict[str, Any]] = []
    if s.system_prompt:
        messages.append({"role": "system", "content": s.system_prompt})
    messages.append({"role": "user", "content": parts})
    body: dict[str, Any] = dict(s.extra_body)
    body.update(
        model=served_model,
        messages=messages,
        temperature=0.0 if s.mode == "score" else s.temperature,
        max_tokens=s.max_tokens,
        seed=seed,
    )
    if constrained and s.constrain == "structured_outputs":
        body["structured_outputs"] = {"choice": list(s.choices)}
    elif constrained and s.constrain == "guided_choice":
        body["guided_choice"] = list(s.choices)
    return body


@functools.cache
def gray_png(side: int = 32) -> str:
    """A data URL of a plain mid-grey ``side`` x ``side`` PNG (built with zlib, no imaging library)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\x80" * side for _ in range(side))  # filter 0, 8-bit grey
    png = (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )
    return f"data:image/png;base64,{base64.b64encode(png).decode('ascii')}"


def health_check_body(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` with every image replaced by a plain grey one: the same settings, prompt and
    fields, none of the request's own content. If the server answers it, the server and the
    settings work and a failing request is specific to its content."""
    checked = copy.deepcopy(body)
    for message in checked.get("messages", []):
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for part in content:
            if isinstance(part, dict) and part.get("type") == "image_url":
                part["image_url"] = {**part.get("image_url", {}), "url": gray_png()}
                if "uuid" in part:
                    part["uuid"] = "cueshift-health-check-grey-32"
    return checked


__all__ = [
    "DataUrls",
    "ImagePart",
    "chat_body",
    "gray_png",
    "health_check_body",
]
