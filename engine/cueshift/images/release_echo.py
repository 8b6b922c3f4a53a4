"""Echoed prompts in release answers: where the model's own answer starts.

The StylisticBias release's local backends (LLaVA-v1.6 through ``LlavaNextForConditionalGeneration``,
Phi-4-multimodal through ``AutoModelForVision2Seq``) decode the whole generated sequence, prompt
included, so their ``raw_output`` is the chat template with the prompt followed by the answer::

    [INST]  \\nBased only on visible appearance. ... No other text. [/INST] (a)        LLaVA-v1.6 (Mistral)
    <|user|><|image_1|>Based only on ... No other text.<|end|><|assistant|>(b)<|end|>  Phi-4, tokens kept
    Based only on visible appearance. ... No other text.(b)                          Phi-4, tokens skipped
    USER: <image>\\nBased only on ... No other text. ASSISTANT: (a)                   LLaVA-1.5 / Vicuna

The release's ``parse_choice`` keeps what follows ``[/INST]``. Here an echo is recognised only
when the text up to the answer is, case-insensitively and up to white space, template tokens
(:data:`HEAD_TOKENS`), then **the prompt that was sent**, then end-of-instruction markers
(:data:`END_MARKERS`); the answer is what follows. Anything else — an answer that merely mentions
``[/INST]`` — is left whole, so the strict parser reads it as it stands.
"""

from __future__ import annotations

import re
from typing import Final

#: Chat-template tokens that may precede the echoed prompt (user turn openers, image slots).
HEAD_TOKENS: Final[tuple[str, ...]] = (
    "<s>",
    "[INST]",
    "<|user|>",
    "<|image_1|>",
    "<|image|>",
    "<image>",
    "USER:",
)
#: End-of-instruction markers of the model classes the release supports (Mistral / LLaVA-v1.6
#: ``[/INST]``, Phi ``<|end|>`` and ``<|assistant|>``, LLaVA-1.5 / Vicuna ``ASSISTANT:``).
END_MARKERS: Final[tuple[str, ...]] = ("[/INST]", "<|end|>", "<|assistant|>", "ASSISTANT:")
#: Tokens that may close the answer itself (dropped from the answer's end).
TAIL_TOKENS: Final[tuple[str, ...]] = ("<|end|>", "</s>", "<|endoftext|>")


def _alternation(tokens: tuple[str, ...]) -> str:
    return "|".join(re.escape(t) for t in tokens)


_HEAD = re.compile(rf"\s*(?:(?:{_alternation(HEAD_TOKENS)})\s*)*", re.IGNORECASE)
_END = re.compile(rf"\s*(?:(?:{_alternation(END_MARKERS)})\s*)*", re.IGNORECASE)
_TAIL = re.compile(rf"(?:\s*(?:{_alternation(TAIL_TOKENS)}))+\s*$", re.IGNORECASE)


def _prompt_end(text: str, start: int, prompt: str) -> int | None:
    """End of ``prompt`` in ``text`` from ``start`` (case-insensitive, any white space run
    matching any other), or ``None`` when ``text`` does not continue with the prompt there."""
    words = prompt.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(w) for w in words)
    found = re.compile(pattern, re.IGNORECASE).match(text, start)
    return found.end() if found else None


def answer_span(raw: str, prompt: str) -> tuple[int, int]:
    """``(start, end)`` of the model's own answer in ``raw``: after an echoed chat template and
    prompt and before closing template tokens; ``(0, len(raw))`` when ``raw`` echoes no prompt."""
    head = _HEAD.match(raw)
    start = head.end() if head else 0
    after_prompt = _prompt_end(raw, start, prompt)
    if after_prompt is None:
        return 0, len(raw)
    end_markers = _END.match(raw, after_prompt)
    answer_start = end_markers.end() if end_markers else after_prompt
    tail = _TAIL.search(raw, answer_start)
    return answer_start, tail.start() if tail else len(raw)
