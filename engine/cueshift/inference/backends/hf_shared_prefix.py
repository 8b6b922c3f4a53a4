r"""Batched generate mode on ONE copy of the image prefix's key/value cache (shared-prefix decoding).

The batched path of :mod:`.hf_generate` copies the image prefix's cache once per row; at a
3 k-token prefix and batch 128 a decoding step of a 7 B model then reads ~50 GB of prefix copies
against 14 GB of weights. Here (``shared_prefix_attention = true``, the default):

1. :class:`~.hf_shared_attention.SharedPrefixCache` holds the prefix's keys and values once per
   layer, batch 1, and each row's own suffix (its prompt after the prefix, then its new tokens)
   per row; it reports the length prefix + suffix, so positions and masks are those of the full
   prompt;
2. the text model's attention runs :func:`~.hf_shared_attention.shared_prefix_attention`
   (registered with transformers' ``AttentionInterface`` as :data:`~.hf_shared_attention.ATTENTION`
   while a batch is generated): every row's queries attend to the single prefix copy and to their
   own suffix, merged exactly by log-sum-exp
   (:func:`~.hf_cascade.cascade_attention`);
3. rows are padded on the left of their suffix (between the prefix and their own text) to the
   widest suffix of the call and the padding is masked, as on the static cache
   (:mod:`.hf_static`; positions from the mask's running sum); the prefix is never padded.
   Models that do not place tokens by the mask (:data:`~.hf_static.NO_PADDING`: the Qwen-VL
   family, Gemma 3) get calls of equal suffix length instead, except on the fixed-shape path
   (``cuda_graph = true``, :mod:`.hf_graph_decode`), which sets their positions itself;
4. ``generate`` decodes with the same per-row seeded sampler (:class:`~.hf_sampler.PerRowSampler`),
   so each row's answer equals its per-prompt answer.

Sliding-window layers (Gemma 3, Mistral's window) keep what the prefix pass kept (the last
``window - 1`` prefix keys) at their absolute positions, and the window masks them as in the
full sequence. Attention that this does not reproduce (logit soft-capping) raises; architectures
outside :data:`SHARED_PREFIX_TYPES` keep the per-row copies (:mod:`.hf_generate`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import torch
from transformers import LogitsProcessorList

from cueshift.inference.backends.hf_batch_size import auto_rows, calls_of, memory_cap
from cueshift.inference.backends.hf_generate import generate_rows
from cueshift.inference.backends.hf_shared_attention import SharedPrefixCache, shared_prefix_attention_on
from cueshift.inference.backends.hf_static import NO_PADDING, row_bytes, suffix_padded

#: model types whose text attention was tested with shared-prefix decoding (tiny models of each)
SHARED_PREFIX_TYPES = (
    "llava_next", "llava", "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "internvl", "gemma3", "idefics3",
)  # fmt: skip
#: ``batch_size = "auto"`` never goes beyond this (a whole image's 300 prompts fit one call)
MAX_SHARED_BATCH = 512


def supports_shared_prefix(model: Any) -> bool:
    """Whether ``model``'s architecture decodes on a shared prefix (:data:`SHARED_PREFIX_TYPES`)."""
    return getattr(model.config, "model_type", "") in SHARED_PREFIX_TYPES


def shared_row_bytes(model: Any, suffix_len: int, prefix_len: int) -> int:
    """Bytes of one row: its suffix cache and logits, its float32 scores against the prefix."""
    text = model.config.get_text_config(decoder=True)
    return row_bytes(model, suffix_len) + 3 * 4 * int(text.num_attention_heads) * prefix_len


def shared_batch_size(model: Any, per_row: int, *, share: float = 1.0) -> int:
    """Most rows of ``per_row`` bytes per call that fit 60 % of the CUDA card's total memory (times
    ``share``) less the weights, at most :data:`MAX_SHARED_BATCH` (:func:`~.hf_batch_size.memory_cap`;
    :data:`~.hf_batch_size.CPU_BATCH` elsewhere)."""
    return memory_cap(model, per_row, most=MAX_SHARED_BATCH, share=share)


def shared_groups(widths: Sequence[int], batch_size: int, pad: bool) -> list[tuple[int, list[int]]]:
    """``(width, rows)`` per call: with ``pad``, rows by suffix width, chunks of ``batch_size`` padded
    to their widest; else rows of one width (first-seen order), chunks of ``batch_size``."""
    if pad:
        order = sorted(range(len(widths)), key=lambda i: (widths[i], i))
        chunks = [order[lo : lo + batch_size] for lo in range(0, len(order), batch_size)]
        return [(max(widths[i] for i in rows), sorted(rows)) for rows in chunks]
    by_width: dict[int, list[int]] = {}
    for i, w in enumerate(widths):
        by_width.setdefault(w, []).append(i)
    return [
        (w, rows[lo : lo + batch_size])
        for w, rows in by_width.items()
        for lo in range(0, len(rows), batch_size)
    ]


def shared_prefix_batches(
    model: Any,
    prefix: Any,
    prompts: Sequence[list[int]],
    seeds: Sequence[int],
    sampling: dict[str, Any],
    warpers: LogitsProcessorList,
    *,
    prefix_len: int,
    batch_size: int | str,
    graph: Any = None,
    share: float = 1.0,
) -> Iterator[tuple[list[int], list[list[int]]]]:
    """Every row's new tokens, one :func:`generate_shared_group` call at a time: yields the call's
    row indices and their tokens. ``graph`` (a :class:`~.hf_graph_decode.GraphDecoder`): decode on
    its fixed-shape buffers instead, except where a sliding window is shorter than the call.
    ``batch_size = "auto"``: :func:`shared_batch_size` rows at most (``share`` of the card), an
    image's rows in calls of equal size; running out of CUDA memory raises
    :class:`~.hf_batch_size.CallOutOfMemory`."""
    widths = [len(p) - prefix_len for p in prompts]
    if batch_size == "auto":
        per_row = shared_row_bytes(model, max(widths) + int(sampling["max_new_tokens"]), prefix_len)
        rows = auto_rows(model, per_row, len(prompts), most=MAX_SHARED_BATCH, share=share)
    else:
        rows = int(batch_size)
    window = getattr(model.config.get_text_config(decoder=True), "sliding_window", None)
    longest = prefix_len + max(widths) + int(sampling["max_new_tokens"])
    graphed = graph is not None and (window is None or window >= longest)
    # the fixed-shape path sets every position itself: it pads any model's rows
    pad = graphed or getattr(model.config, "model_type", "") not in NO_PADDING
    for width, group in shared_groups(widths, rows, pad):
        run = graph.generate_group if graphed else generate_shared_group
        with calls_of(rows, batch_size):
            new = run(
                model, prefix, [prompts[j] for j in group], [seeds[j] for j in group], sampling, warpers,
                prefix_len=prefix_len, width=width,
            )  # fmt: skip
        yield group, new


@torch.inference_mode()
def generate_shared_group(
    model: Any,
    prefix: Any,
    prompts: Sequence[list[int]],
    seeds: Sequence[int],
    sampling: dict[str, Any],
    warpers: LogitsProcessorList,
    *,
    prefix_len: int,
    width: int,
) -> list[list[int]]:
    """Generate once per row after the cached image, all rows on one copy of its cache.

    Parameters
    ----------
    model
        The image-text-to-text model (:func:`supports_shared_prefix`).
    prefix
        The image prefix's key/value cache, batch 1 (read, never changed).
    prompts
        Each row's full prompt ids (the ``prefix_len`` prefix ids then its suffix), suffixes at most
        ``width`` long (all exactly ``width`` for :data:`~.hf_static.NO_PADDING` models).
    seeds, sampling, warpers
        As in :func:`~.hf_generate.generate_group`.

    Returns
    -------
    list of list of int
        Each row's new tokens through its first end-of-sequence token.
    """
    input_ids, mask = suffix_padded(model, prompts, sampling, prefix_len=prefix_len, width=width)
    with shared_prefix_attention_on(model):
        return generate_rows(model, input_ids, mask, SharedPrefixCache(prefix), seeds, sampling, warpers)


__all__ = [
    "MAX_SHARED_BATCH",
    "SHARED_PREFIX_TYPES",
    "generate_shared_group",
    "shared_batch_size",
    "shared_groups",
    "shared_prefix_batches",
    "shared_row_bytes",
    "supports_shared_prefix",
]
