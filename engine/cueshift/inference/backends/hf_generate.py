r"""Batched generate mode: many seeded generations of one image in one ``generate`` call.

Every seeded generation (the per-prompt loop, batched, static and shared-prefix decoding)
samples through :class:`~.hf_sampler.PerRowSampler`, so a row's answer depends on its own seed and its own
logits alone, never on its batch neighbours or the batch size:

1. ``generate`` runs greedy (``do_sample=False``) over a batch of rows of equal prompt length
   (the image prefix's key/value cache repeated once per row: no padding anywhere, so every
   row sees exactly the positions and attention of its per-prompt run);
2. transformers applies its usual processors (repetition penalty, bad words, ...: the same
   list with or without sampling), then :class:`~.hf_sampler.PerRowSampler`, which applies the sampling
   warpers a sampled call would apply (temperature, top-k, top-p, ... resolved like
   transformers resolves them, each batched over rows) and draws every row's token at once
   by the Gumbel-max trick, :math:`\arg\max_v (s_{iv} + G_{iv})`, with counter-based noise
   :math:`G_{iv}` hashed from (row seed, step, token id) (:func:`~.hf_sampler.gumbel_noise`);
3. the drawn token gets score 0 and every other token :math:`-\infty`, so the greedy step
   picks it.

One step costs the same handful of tensor operations for 1 or 300 rows. Batched and single-row
answers agree up to floating-point differences between batched and single-row matrix
products, which move a draw only when two tokens' noisy scores are within rounding of each
other (the tiny models of :mod:`.tiny` give identical answers, tested). A generation config
that needs something this path does not reproduce (beam search, watermarking, ``top_h``,
renormalised logits) makes :func:`~.hf_warpers.sampling_warpers` return None, and the backend keeps
transformers' own sampling, one call per prompt under ``torch.manual_seed``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

import torch
from transformers import LogitsProcessorList

from cueshift.inference.backends.hf_sampler import PerRowSampler


def eos_ids(model: Any) -> set[int]:
    """The token ids that end a generation (the generation config's ``eos_token_id``)."""
    eos = getattr(getattr(model, "generation_config", None), "eos_token_id", None)
    if eos is None:
        return set()
    return {int(eos)} if isinstance(eos, int) else {int(t) for t in eos}


def new_tokens(model: Any, out: torch.Tensor, prompt_length: int) -> list[list[int]]:
    """Each row's generated tokens after the prompt, up to and including its first end token."""
    stop = eos_ids(model)
    rows: list[list[int]] = []
    for row in out[:, prompt_length:].tolist():
        end = next((j + 1 for j, t in enumerate(row) if t in stop), len(row))
        rows.append(row[:end])
    return rows


@torch.inference_mode()
def generate_group(
    model: Any,
    cache: Any,
    prompts: Sequence[list[int]],
    seeds: Sequence[int],
    sampling: dict[str, Any],
    warpers: LogitsProcessorList,
) -> list[list[int]]:
    """Generate once per row after the cached image, all rows in one ``generate`` call.

    Parameters
    ----------
    model
        The image-text-to-text model.
    cache
        The key/value cache of the image prefix (batch 1; copied, never changed).
    prompts
        Each row's full prompt ids (prefix then suffix), all of one length (see
        :func:`generate_groups`): rows need no padding, so each sees its per-prompt positions.
    seeds
        The RNG seed of each row (:func:`~cueshift.inference.backends.hf_answers.judgment_seed`).
    sampling
        The keyword arguments of the per-prompt ``generate`` call (``do_sample``,
        ``temperature``, ``max_new_tokens``, ``pad_token_id``, ...).
    warpers
        From :func:`~.hf_warpers.sampling_warpers` (empty when ``do_sample`` is False).

    Returns
    -------
    list of list of int
        Each row's new tokens, through its first end-of-sequence token (what the per-prompt
        call returns for that row).
    """
    if len({len(p) for p in prompts}) != 1:
        raise ValueError("one batched generate call needs prompts of one length")
    n = len(prompts)
    input_ids = torch.tensor([list(p) for p in prompts], device=model.device)
    past = copy.deepcopy(cache)
    if n > 1:
        past.batch_repeat_interleave(n)
    return generate_rows(model, input_ids, torch.ones_like(input_ids), past, seeds, sampling, warpers)


def generate_rows(
    model: Any,
    input_ids: Any,
    attention_mask: Any,
    cache: Any,
    seeds: Sequence[int],
    sampling: dict[str, Any],
    warpers: LogitsProcessorList,
    **extra: Any,
) -> list[list[int]]:
    """One ``generate`` call over the rows on ``cache``, sampled by :class:`PerRowSampler` (each row
    its own seed) where ``sampling`` samples, else greedy; ``extra`` goes to ``generate``.

    Returns each row's new tokens through its first end-of-sequence token.
    """
    kwargs = {k: v for k, v in sampling.items() if k not in {"temperature", "top_k", "top_p"}}
    processors = LogitsProcessorList()
    if sampling.get("do_sample", False):
        processors.append(PerRowSampler(warpers, seeds, input_ids.device))
    out = model.generate(
        input_ids=input_ids,
        attention_mask=attention_mask,
        cache=cache,
        logits_processor=processors,
        **{**kwargs, "do_sample": False, "temperature": None, "top_k": None, "top_p": None},
        **extra,
    )
    return new_tokens(model, out, input_ids.shape[1])


def generate_groups(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices of rows grouped by prompt length (in first-seen order), chunks of ``batch_size``."""
    by_length: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_length.setdefault(n, []).append(i)
    return [
        rows[lo : lo + batch_size] for rows in by_length.values() for lo in range(0, len(rows), batch_size)
    ]


def dynamic_batches(
    model: Any,
    cache: Any,
    prompts: Sequence[list[int]],
    seeds: Sequence[int],
    sampling: dict[str, Any],
    warpers: LogitsProcessorList,
    *,
    batch_size: int,
) -> Iterator[tuple[list[int], list[list[int]]]]:
    """Every row's new tokens, one :func:`generate_group` call at a time: yields the call's row
    indices and their tokens."""
    for group in generate_groups([len(p) for p in prompts], batch_size):
        rows = generate_group(
            model, cache, [prompts[j] for j in group], [seeds[j] for j in group], sampling, warpers
        )
        yield group, rows


__all__ = [
    "dynamic_batches",
    "eos_ids",
    "generate_group",
    "generate_groups",
    "generate_rows",
]
