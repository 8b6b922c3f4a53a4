r"""Exact answer scoring: log P("(a)") and log P("(b)") as the continuation of the assistant turn.

Each answer is scored as its full token sequence (chained log-probabilities), whatever
the tokenizer does with it: one token ``(a)``, or ``(`` ``a`` ``)``, or anything else.

.. math::

    \ell_x = \log P(x \mid \text{prompt}) = \sum_{j} \log p(x_j \mid \text{prompt}, x_{<j}),
    \qquad x \in \{\text{(a)}, \text{(b)}\}

When the two answers differ only in their last token (the usual case: a single token, or
a shared ``(`` then the letter), one row of input scores both; otherwise each answer has
its own row.

The prefix shared by all prompts of one image (chat header, image, start of the
instruction) runs once; a batch of suffixes attends to ONE copy of its key/value cache
(``shared_attention``: cascade attention, :mod:`.hf_shared_prefix`) or to a copy per row. The
suffixes are right-padded: under causal attention a real token never sees the padding after it, so no
attention mask is needed, positions follow from the cache length, and the Qwen-VL family
takes its multimodal rotary offset (``rope_deltas``) from the prefix pass. The result
equals a plain forward pass of each full prompt (tested to 1e-4).
"""

from __future__ import annotations

import copy
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

import torch

from cueshift.inference.backends.hf_prompts import EncodedImage


@dataclass(frozen=True)
class ScoreRow:
    """One row of input that scores one or both answers of one prompt.

    ``tokens`` is the prompt's suffix followed by the part every scored answer shares
    except its last token; the answer's ``j``-th token is predicted at ``start + j``.
    """

    prompt: int
    tokens: list[int]
    start: int
    answers: tuple[tuple[int, list[int]], ...]  # (0 for "(a)" / 1 for "(b)", token ids)


def score_rows(enc: EncodedImage) -> list[ScoreRow]:
    """The rows that score both answers of every prompt of ``enc``."""
    rows: list[ScoreRow] = []
    for k, (suffix, (ans_a, ans_b)) in enumerate(zip(enc.suffix_ids, enc.answers, strict=True)):
        start = len(suffix) - 1
        if ans_a[:-1] == ans_b[:-1]:
            rows.append(ScoreRow(k, suffix + ans_a[:-1], start, ((0, ans_a), (1, ans_b))))
        else:
            rows.append(ScoreRow(k, suffix + ans_a[:-1], start, ((0, ans_a),)))
            rows.append(ScoreRow(k, suffix + ans_b[:-1], start, ((1, ans_b),)))
    return rows


def move_inputs(inputs: dict[str, Any], model: Any) -> dict[str, Any]:
    """Tensors to the model's device; floating tensors (pixels) to its dtype."""
    out: dict[str, Any] = {}
    for key, value in inputs.items():
        if isinstance(value, torch.Tensor):
            value = value.to(model.device)
            if value.is_floating_point():
                value = value.to(model.dtype)
        out[key] = value
    return out


def _collect(row: ScoreRow, logprobs: torch.Tensor, result: list[list[float]]) -> None:
    """Add the answers' log-probabilities; ``logprobs[j]`` is the distribution at ``start + j``."""
    for which, answer in row.answers:
        result[row.prompt][which] = float(sum(logprobs[j, t] for j, t in enumerate(answer)))


@torch.inference_mode()
def prefix_cache(model: Any, enc: EncodedImage) -> Any:
    """Run the shared prefix (with the image) once; return its key/value cache (batch 1).

    Copy it (``copy.deepcopy``) before use: a forward pass on a cache extends it in place.
    For the Qwen-VL family the pass also stores the image's rotary offset in the model,
    which the following suffix passes of the same image use.
    """
    prefix = torch.tensor([enc.prefix_ids], device=model.device)
    inputs = move_inputs({**enc.image_inputs, **enc.token_inputs}, model)
    return model(input_ids=prefix, **inputs, use_cache=True, logits_to_keep=1).cache


@torch.inference_mode()
def score_shared_prefix(
    model: Any, enc: EncodedImage, *, batch_size: int, shared_attention: bool = False
) -> list[tuple[float, float]]:
    """``(log P(a), log P(b))`` per prompt, running the shared prefix once.

    Parameters
    ----------
    model
        An image-text-to-text model in eval mode.
    enc
        The encoded prompts of one image.
    batch_size
        Suffix rows per forward pass.
    shared_attention
        Every row attends to one copy of the prefix's cache (the model's architecture must be in
        :data:`~.hf_shared_prefix.SHARED_PREFIX_TYPES`); False: a copy per row.
    """
    from cueshift.inference.backends.hf_shared_attention import SharedPrefixCache, shared_prefix_attention_on

    cache = prefix_cache(model, enc)
    rows = score_rows(enc)
    result = [[float("nan"), float("nan")] for _ in enc.suffix_ids]
    for lo in range(0, len(rows), batch_size):
        chunk = rows[lo : lo + batch_size]
        width = max(len(r.tokens) for r in chunk)
        keep = max(len(r.tokens) - r.start for r in chunk)
        # right-pad with each row's own last token (never an image token); padding is never read
        ids = torch.tensor(
            [r.tokens + [r.tokens[-1]] * (width - len(r.tokens)) for r in chunk], device=model.device
        )
        positions = torch.tensor(
            [[min(r.start + j, len(r.tokens) - 1) for j in range(keep)] for r in chunk], device=model.device
        )
        attention: AbstractContextManager[None] = nullcontext()
        if shared_attention:
            past, attention = SharedPrefixCache(cache), shared_prefix_attention_on(model)
        else:
            past = copy.deepcopy(cache)
            past.batch_repeat_interleave(len(chunk))
        with attention:
            logits = model(input_ids=ids, cache=past, use_cache=True, logits_to_keep=positions).logits
        logprobs = torch.log_softmax(logits.float(), dim=-1).cpu()
        for i, row in enumerate(chunk):
            _collect(row, logprobs[i], result)
    return [(a, b) for a, b in result]


@torch.inference_mode()
def score_full(model: Any, enc: EncodedImage) -> list[tuple[float, float]]:
    """Reference: the same log-probabilities from one plain forward pass per row (no cache)."""
    result = [[float("nan"), float("nan")] for _ in enc.suffix_ids]
    for row in score_rows(enc):
        n = len(enc.prefix_ids) + len(row.tokens)
        tokens = {k: v for k, v in enc.full_token_inputs(row.prompt).items()}
        extra = len(row.tokens) - len(enc.suffix_ids[row.prompt])
        tokens = {
            k: torch.cat([v, torch.full((1, extra), enc.token_fill[k], dtype=v.dtype)], dim=1)
            for k, v in tokens.items()
        }
        ids = torch.tensor([enc.prefix_ids + row.tokens], device=model.device)
        out = model(input_ids=ids, **move_inputs({**enc.image_inputs, **tokens}, model), use_cache=False)
        logprobs = torch.log_softmax(out.logits[0].float(), dim=-1).cpu()
        _collect(row, logprobs[len(enc.prefix_ids) + row.start : n], result)
    return [(a, b) for a, b in result]
