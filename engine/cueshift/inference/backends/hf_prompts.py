"""Prompt encoding for the transformers backend: one image, many prompts, one shared prefix.

All prompts of one image (25 scenarios x 4 orderings) share the chat header, the image and
the start of the instruction; they differ from the first option letter on. The chat
template puts the image first and the options at the end, so the shared part is a long
token prefix. :func:`encode_image` runs the processor (and so the image processor) once per
image and returns the canonical token ids of every prompt split into that shared prefix
and per-prompt suffixes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from PIL import Image

#: the two answers the template asks for (seed 000 Fig. 9)
ANSWERS: tuple[str, str] = ("(a)", "(b)")


@dataclass(frozen=True)
class EncodedImage:
    """The prompts of one image as token ids.

    Attributes
    ----------
    prefix_ids
        Token ids shared by every prompt (chat header, image tokens, start of the instruction).
    suffix_ids
        Per prompt, the remaining ids (through the assistant-turn header of the chat template).
    image_inputs
        Processor outputs that are not per token (``pixel_values``, ``image_grid_thw``, ...),
        batch size 1.
    token_inputs
        Per-token processor outputs other than ``input_ids`` (``attention_mask``,
        ``token_type_ids``, ``mm_token_type_ids``) for the prefix, shape ``(1, len(prefix))``.
    token_fill
        The value each of ``token_inputs`` takes on text tokens after the image (for suffixes).
    answers
        Per prompt, the token ids of the continuations ``(a)`` and ``(b)``.
    """

    prefix_ids: list[int]
    suffix_ids: list[list[int]]
    image_inputs: dict[str, Any]
    token_inputs: dict[str, torch.Tensor]
    token_fill: dict[str, int]
    answers: list[tuple[list[int], list[int]]]

    def full_ids(self, k: int) -> list[int]:
        """The canonical ids of prompt ``k`` (what a plain processor call gives)."""
        return self.prefix_ids + self.suffix_ids[k]

    def full_token_inputs(self, k: int) -> dict[str, torch.Tensor]:
        """Per-token inputs of prompt ``k`` over its full length."""
        n = len(self.suffix_ids[k])
        return {
            key: torch.cat([value, torch.full((1, n), self.token_fill[key], dtype=value.dtype)], dim=1)
            for key, value in self.token_inputs.items()
        }


def chat_text(processor: Any, prompt: str) -> str:
    """The prompt in the processor's chat template: one user turn, the image first, then the text."""
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": prompt}]}]
    text = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    if not isinstance(text, str):  # some processors return a list for a single conversation
        text = text[0]
    return str(text)


def _lcp(seqs: list[list[int]]) -> int:
    first = seqs[0]
    n = min(len(s) for s in seqs)
    for i in range(n):
        t = first[i]
        if any(s[i] != t for s in seqs):
            return i
    return n


def _tokenize(tokenizer: Any, text: str) -> list[int]:
    return list(tokenizer(text, add_special_tokens=False)["input_ids"])


def _answer_ids(tokenizer: Any, tail_ids: list[int], tail: str, answer: str) -> list[int]:
    """Ids of ``answer`` as the continuation of a prompt whose text ends with ``tail``.

    The canonical tokenization of ``tail + answer`` is used when it extends the prompt's own
    ids (the usual case); otherwise the answer is tokenized on its own.
    """
    joint = _tokenize(tokenizer, tail + answer)
    if joint[: len(tail_ids)] == tail_ids and len(joint) > len(tail_ids):
        return joint[len(tail_ids) :]
    return _tokenize(tokenizer, answer)


def encode_image(
    processor: Any, image: Image.Image, prompts: list[str], *, answer_prefix: str = ""
) -> EncodedImage:
    """Encode every prompt of one image, processing the image once.

    Parameters
    ----------
    processor
        A transformers multimodal processor with a chat template.
    image
        The image, RGB.
    prompts
        Distinct rendered prompts (the template filled with one scenario and ordering).
    answer_prefix
        Text between the assistant-turn header and the answer (e.g. ``" "`` for models whose
        answers begin with a space); part of the scored continuation.

    Notes
    -----
    The ids of prompt 0 come from a full processor call. The chat text of every prompt is
    ``head + prompt + generation header`` with the same ``head`` (chat header and image
    placeholder); if the tokens of prompt 0's ``prompt + generation header`` are a suffix
    of its full ids, that tail is tokenized alone for the other prompts too (the cut lies
    right before text every prompt shares), so the image is processed once per image.
    Otherwise each prompt goes through the processor (slower, same ids).

    The answers are tokenized as the continuation of the generation header: the canonical
    ids of ``header + answer`` past those of ``header`` (or of the answer alone when the two
    do not line up).
    """
    tokenizer = processor.tokenizer
    texts = [chat_text(processor, p) for p in prompts]
    enc = processor(text=[texts[0]], images=[image], return_tensors="pt")
    ids0 = enc["input_ids"][0].tolist()
    n0 = len(ids0)
    cuts = [t.rfind(p) for t, p in zip(texts, prompts, strict=True)]
    cut = cuts[0]
    full: list[list[int]] | None = None
    if cut >= 0 and all(c == cut and t[:cut] == texts[0][:cut] for c, t in zip(cuts, texts, strict=True)):
        tail_ids = [_tokenize(tokenizer, t[cut:]) for t in texts]
        k0 = len(tail_ids[0])
        if k0 < n0 and ids0[n0 - k0 :] == tail_ids[0]:
            full = [ids0[: n0 - k0] + t for t in tail_ids]
    if full is None:  # fall back: the processor on every prompt (same ids, image processed each time)
        full = [ids0] + [
            processor(text=[t], images=[image], return_tensors="pt")["input_ids"][0].tolist()
            for t in texts[1:]
        ]
    # the text after the prompt (the generation header) decides how the answer is tokenized
    gen_tails = [t[c + len(p) :] if c >= 0 else t for t, c, p in zip(texts, cuts, prompts, strict=True)]
    # keep at least one token per suffix: its logits start the answer
    shared = min(_lcp(full), min(len(f) for f in full) - 1)
    image_token = getattr(processor, "image_token_id", None)
    for f in full:
        if image_token is not None and image_token in f[shared:]:
            raise ValueError("prompts differ before the image ends: the shared prefix must hold the image")

    token_inputs: dict[str, torch.Tensor] = {}
    token_fill: dict[str, int] = {}
    image_inputs: dict[str, Any] = {}
    for key, value in enc.items():
        if key == "input_ids":
            continue
        if isinstance(value, torch.Tensor) and value.dim() == 2 and value.shape == (1, n0):
            after = value[0, shared:]
            if after.numel() and not bool((after == after[-1]).all()):
                raise ValueError(f"processor output {key!r} varies after the shared prefix")
            token_inputs[key] = value[:, :shared]
            token_fill[key] = int(value[0, -1])
        else:
            image_inputs[key] = value
    by_tail: dict[str, tuple[list[int], list[int]]] = {}  # every prompt usually has the same header
    for tail in gen_tails:
        if tail not in by_tail:
            header = _tokenize(tokenizer, tail)
            by_tail[tail] = (
                _answer_ids(tokenizer, header, tail, answer_prefix + ANSWERS[0]),
                _answer_ids(tokenizer, header, tail, answer_prefix + ANSWERS[1]),
            )
    answers = [by_tail[tail] for tail in gen_tails]
    return EncodedImage(
        prefix_ids=full[0][:shared],
        suffix_ids=[f[shared:] for f in full],
        image_inputs=image_inputs,
        token_inputs=token_inputs,
        token_fill=token_fill,
        answers=answers,
    )


def chat_text_images(processor: Any, prompt: str, n_images: int) -> str:
    """The prompt in the processor's chat template: one user turn with ``n_images`` images (in
    order, e.g. left then right), then the text."""
    content: list[dict[str, Any]] = [{"type": "image"} for _ in range(n_images)]
    content.append({"type": "text", "text": prompt})
    text = processor.apply_chat_template(
        [{"role": "user", "content": content}], add_generation_prompt=True, tokenize=False
    )
    if not isinstance(text, str):
        text = text[0]
    return str(text)


def encode_images(processor: Any, images: list[Image.Image], prompt: str) -> dict[str, Any]:
    """Processor inputs of one prompt over several images (one sample; the images nested as one
    list, the form every supported processor accepts for several images per prompt)."""
    text = chat_text_images(processor, prompt, len(images))
    return dict(processor(text=[text], images=[list(images)], return_tensors="pt"))
