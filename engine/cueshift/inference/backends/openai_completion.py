"""What the answer to an OpenAI-compatible chat-completion request says.

An answer (:class:`Completion`) is the first choice's message content, the letter
probabilities from its ``logprobs``
(:func:`~cueshift.inference.backends.openai_logprobs.letter_probabilities`), the first answer
position's ``top_logprobs`` (for the consistency probe) and what the server says about
itself (``model``, ``system_fingerprint``). The request bodies are :mod:`.openai_messages`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from cueshift.errors import CueshiftError
from cueshift.inference.backends.openai_logprobs import LetterProbabilities, letter_probabilities
from cueshift.inference.backends.openai_settings import OpenAISettings


@dataclass(frozen=True)
class Completion:
    """What one answer says.

    Attributes
    ----------
    text
        The first choice's message content.
    letters
        Letter probabilities (``None``: text-only request, or no logprobs served).
    logprobs_served
        Whether the answer carried usable ``logprobs.content`` with ``top_logprobs``.
    first_top
        ``token -> logprob`` of the first answer position's alternatives (empty when not served).
    served_model, fingerprint
        The response's ``model`` and ``system_fingerprint`` (``None`` when absent).
    """

    text: str
    letters: LetterProbabilities | None
    logprobs_served: bool
    first_top: dict[str, float]
    served_model: str | None
    fingerprint: str | None


def _first_top(content: list[Any]) -> dict[str, float]:
    if not content or not isinstance(content[0], dict):
        return {}
    top = content[0].get("top_logprobs") or []
    found: dict[str, float] = {}
    for alt in top:
        if isinstance(alt, dict) and "token" in alt and isinstance(alt.get("logprob"), int | float):
            value = float(alt["logprob"])
            if math.isfinite(value):
                found[str(alt["token"])] = value
    return found


def parse_completion(body: bytes, settings: OpenAISettings, *, text_only: bool = False) -> Completion:
    """The answer and (unless ``text_only``) its letter probabilities.

    Raises
    ------
    ValueError, KeyError, IndexError, TypeError
        A malformed body (worth another attempt).
    CueshiftError
        Score mode and no logprobs served.
    """
    data = json.loads(body)
    model = data.get("model") if isinstance(data, dict) else None
    fingerprint = data.get("system_fingerprint") if isinstance(data, dict) else None
    served_model = model if isinstance(model, str) else None
    fingerprint = fingerprint if isinstance(fingerprint, str) else None
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
        return Completion(text, None, False, {}, served_model, fingerprint)
    letters = None
    top: dict[str, float] = {}
    logprobs = choice.get("logprobs")
    if settings.logprobs and isinstance(logprobs, dict) and isinstance(logprobs.get("content"), list):
        letters = letter_probabilities(logprobs["content"])
        top = _first_top(logprobs["content"])
    if letters is None and settings.mode == "score":
        raise CueshiftError(
            "the server returned no logprobs/top_logprobs; mode 'score' needs them "
            "(mode 'generate' works without)"
        )
    return Completion(text, letters, letters is not None, top, served_model, fingerprint)


__all__ = ["Completion", "parse_completion"]
