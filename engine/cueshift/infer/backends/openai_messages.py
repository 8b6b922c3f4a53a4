"""The bodies of OpenAI-compatible chat-completion requests, and what their answers say.

A request is one user message with one ``image_url`` part per image (a base64 data URL, in
order) and the prompt as a text part (after the images unless ``image_first`` is false),
after the optional system prompt; ``temperature`` is 0 in score mode. An answer's text is
the first choice's message content; its letter probabilities come from ``logprobs``
(:func:`~cueshift.infer.backends.openai_logprobs.letter_probabilities`).
"""

from __future__ import annotations

import base64
import io
import json
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cueshift.errors import CueshiftError
from cueshift.infer.backends.openai_logprobs import LetterProbabilities, letter_probabilities
from cueshift.infer.backends.openai_settings import OpenAISettings

_MIME_BY_SUFFIX = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
}


class DataUrls:
    """Base64 data URLs of image files; the ``size`` most recently used are kept.

    PNG, JPEG, WebP and GIF files are sent as they are; other formats (BMP, TIFF...) are
    converted to PNG.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._urls: OrderedDict[Path, str] = OrderedDict()

    def __call__(self, path: Path) -> str:
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
        self._urls[path] = url
        if len(self._urls) > self.size:
            self._urls.popitem(last=False)
        return url


def chat_body(
    settings: OpenAISettings, served_model: str, image_urls: Sequence[str], prompt: str, seed: int
) -> dict[str, Any]:
    """A chat completion of ``served_model``: the images in order and the prompt, the settings'
    decoding (temperature 0 in score mode) and ``seed``; ``extra_body`` fields first."""
    s = settings
    parts: list[dict[str, Any]] = []
    for url in image_urls:
        image: dict[str, Any] = {"url": url}
        if s.image_detail is not None:
            image["detail"] = s.image_detail
        parts.append({"type": "image_url", "image_url": image})
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
    return body


def parse_completion(
    body: bytes, settings: OpenAISettings, *, text_only: bool = False
) -> tuple[str, LetterProbabilities | None]:
    """The answer text and (unless ``text_only``) its letter probabilities.

    Raises
    ------
    ValueError, KeyError, IndexError, TypeError
        A malformed body (worth another attempt).
    CueshiftError
        Score mode and no logprobs served.
    """
    data = json.loads(body)
    choice = data["choices"][0]
    content = choice["message"]["content"]
    if content is None:
        text = ""
    elif isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    else:
        raise TypeError("message.content")
    if text_only:  # design requests: the text is the whole answer
        return text, None
    letters = None
    logprobs = choice.get("logprobs")
    if settings.logprobs and isinstance(logprobs, dict) and isinstance(logprobs.get("content"), list):
        letters = letter_probabilities(logprobs["content"])
    if letters is None and settings.mode == "score":
        raise CueshiftError(
            "the server returned no logprobs/top_logprobs; mode 'score' needs them "
            "(mode 'generate' works without)"
        )
    return text, letters


__all__ = ["DataUrls", "chat_body", "parse_completion"]
