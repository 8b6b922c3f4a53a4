r"""Batched generate mode on a pre-allocated (static) key/value cache, optionally compiled.

The batched path of :mod:`.hf_generate` copies the image prefix's cache once per row and lets
``generate`` grow it by concatenation, one call per group of rows of equal prompt length.
Here (``static_cache = true`` in ``[models.settings]``):

1. rows are grouped by *bucketed* suffix length (:func:`bucket`): a row's suffix is padded on
   the left, between the image prefix and its own text, up to the bucket's width, and the
   padding is masked out (``attention_mask`` 0). With positions taken from the mask's running
   sum (:math:`\text{pos}_t = \sum_{u \le t} m_u - 1`, what transformers does for these models)
   every real token keeps the position of its unpadded run, and masked keys get weight
   :math:`e^{-\infty} = 0`, so a row's logits equal its unpadded logits up to rounding. Models
   that do not place tokens by the mask (:data:`NO_PADDING`) get bucket width 1 (groups of
   equal length, as in :mod:`.hf_generate`);
2. the image prefix's keys and values are written once per row into a
   :class:`transformers.StaticCache` of ``prefix + widest bucket + max_new_tokens`` positions
   rounded up to :data:`CACHE_STEP` (one shape per image, and across images of one size); the
   cache is kept and reused while its shape stays; compiled, a short last call is filled with
   copies of a row so every call has the same batch shape;
3. ``generate`` decodes on that cache with the same per-row seeded sampler
   (:class:`~.hf_sampler.PerRowSampler`), so each row's answer equals its per-prompt answer;
   ``compile = true`` lets transformers ``torch.compile`` the decoding step (on the CPU too),
   ``compile = false`` turns its automatic compilation on CUDA off.

``batch_size = "auto"`` takes the rows per call from the card's total memory less the weights
(:func:`auto_batch_size`, :mod:`.hf_batch_size`): what one row's cache needs, into 60 % of that,
an image's rows cut into calls of equal size; never from the memory free at the moment.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import torch
from transformers import LogitsProcessorList, StaticCache

from cueshift.inference.backends.hf_batch_size import (
    CPU_BATCH,
    MAX_AUTO_BATCH,
    auto_rows,
    calls_of,
    memory_cap,
)
from cueshift.inference.backends.hf_generate import generate_rows

#: static cache lengths are rounded up to a multiple of this (compiled shapes repeat)
CACHE_STEP = 128
#: model types whose rows are never padded: the Qwen-VL family places tokens by multimodal rotary
#: offsets, not by the mask; Gemma 3 does not take positions from the mask (padding changed
#: its answers on the tiny model)
NO_PADDING = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_vl_moe", "glm4v", "gemma3")


def bucket(n: int, step: int) -> int:
    """``n`` rounded up to a multiple of ``step`` (``step = 1``: ``n`` itself)."""
    return -(-n // step) * step


def bucket_step(model: Any) -> int:
    """Suffix-length bucket of ``model``: 8, or 1 where padding would move positions."""
    return 1 if getattr(model.config, "model_type", "") in NO_PADDING else 8


def static_groups(lengths: Sequence[int], batch_size: int, step: int) -> list[tuple[int, list[int]]]:
    """``(width, rows)`` per call: rows grouped by suffix length rounded up to ``step``, in
    first-seen order, chunks of ``batch_size``."""
    by_width: dict[int, list[int]] = {}
    for i, n in enumerate(lengths):
        by_width.setdefault(bucket(n, step), []).append(i)
    return [
        (width, rows[lo : lo + batch_size])
        for width, rows in by_width.items()
        for lo in range(0, len(rows), batch_size)
    ]


def row_bytes(model: Any, cache_len: int) -> int:
    """Bytes of one row's key/value cache of ``cache_len`` positions plus its float32 logits."""
    text = model.config.get_text_config(decoder=True)
    heads = getattr(text, "num_key_value_heads", None) or text.num_attention_heads
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    itemsize = torch.finfo(model.dtype).bits // 8
    return int(2 * text.num_hidden_layers * heads * head_dim * cache_len * itemsize + 4 * text.vocab_size * 4)


def auto_batch_size(model: Any, cache_len: int, *, share: float = 1.0) -> int:
    """Most rows per call whose caches of ``cache_len`` positions fit 60 % of the CUDA card's total
    memory (times ``share``) less the weights (:func:`~.hf_batch_size.memory_cap`; :data:`CPU_BATCH`
    elsewhere)."""
    return memory_cap(model, row_bytes(model, cache_len), most=MAX_AUTO_BATCH, share=share)


def rows_per_call(setting: int | str, model: Any, cache_len: int, n_rows: int, *, share: float = 1.0) -> int:
    """``batch_size`` as set, or for ``"auto"`` the rows per call of an image of ``n_rows`` rows:
    :func:`auto_batch_size` rows at most, in calls of equal size (:func:`~.hf_batch_size.auto_rows`)."""
    if setting != "auto":
        return int(setting)
    return auto_rows(model, row_bytes(model, cache_len), n_rows, most=MAX_AUTO_BATCH, share=share)


def static_batches(
    pool: StaticPrefix,
    prefix: Any,
    prompts: Sequence[list[int]],
    seeds: Sequence[int],
    sampling: dict[str, Any],
    warpers: LogitsProcessorList,
    *,
    prefix_len: int,
    batch_size: int | str,
    compile: bool,
    share: float = 1.0,
) -> Iterator[tuple[list[int], list[list[int]]]]:
    """Every row's new tokens, one static-cache ``generate`` call at a time: yields the call's
    row indices and their tokens (:func:`generate_static_group`). ``share``: of the card, for
    ``batch_size = "auto"``; running out of CUDA memory raises
    :class:`~.hf_batch_size.CallOutOfMemory`."""
    step = bucket_step(pool.model)
    widths = [len(p) - prefix_len for p in prompts]
    # one cache length per image (its widest bucket): the cache is reused, shapes repeat
    top = max(bucket(w, step) for w in widths)
    cache_len = bucket(prefix_len + top + int(sampling["max_new_tokens"]), CACHE_STEP)
    rows = rows_per_call(batch_size, pool.model, cache_len, len(prompts), share=share)
    for width, group in static_groups(widths, rows, step):
        # compiled: a short last call is filled with copies of its last row (dropped after), so
        # every call has one shape and the compiled step is not compiled again
        filled = group + [group[-1]] * (rows - len(group)) if compile else group
        with calls_of(rows, batch_size):
            new = generate_static_group(
                pool,
                prefix,
                [prompts[j] for j in filled],
                [seeds[j] for j in filled],
                sampling,
                warpers,
                prefix_len=prefix_len,
                width=width,
                cache_len=cache_len,
                compile=compile,
            )
        yield group, new[: len(group)]


class StaticPrefix:
    """Static caches holding the image prefix once per row, the last one kept for reuse."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self._cache: Any = None
        self._shape: tuple[int, int] = (0, 0)

    def filled(self, prefix: Any, rows: int, cache_len: int) -> Any:
        """A static cache of ``rows`` x ``cache_len`` positions holding ``prefix`` (batch 1) per row."""
        if self._shape != (rows, cache_len):
            self._cache = None  # free the old one before allocating
            self._cache = StaticCache(config=self.model.config, max_cache_len=cache_len)
            self._shape = (rows, cache_len)
        else:
            self._cache.reset()
        for source, target in zip(prefix.layers, self._cache.layers, strict=True):
            keys = source.keys.expand(rows, -1, -1, -1)
            values = source.values.expand(rows, -1, -1, -1)
            target.update(keys.contiguous(), values.contiguous())
        return self._cache


@torch.inference_mode()
def generate_static_group(
    pool: StaticPrefix,
    prefix: Any,
    prompts: Sequence[list[int]],
    seeds: Sequence[int],
    sampling: dict[str, Any],
    warpers: LogitsProcessorList,
    *,
    prefix_len: int,
    width: int,
    cache_len: int,
    compile: bool,
) -> list[list[int]]:
    """Generate once per row after the cached image, on a static cache (see the module docstring).

    Parameters
    ----------
    pool
        Holds the static cache between calls.
    prefix
        The image prefix's (dynamic) key/value cache, batch 1; never changed.
    prompts
        Each row's full prompt ids (the ``prefix_len`` prefix ids then its suffix), suffixes at
        most ``width`` long.
    seeds, sampling, warpers
        As in :func:`~.hf_generate.generate_group`.
    cache_len
        Positions of the static cache (at least ``prefix_len + width + max_new_tokens``).
    compile
        Let transformers compile the decoding step on any device (False: never).

    Returns
    -------
    list of list of int
        Each row's new tokens through its first end-of-sequence token.
    """
    model = pool.model
    input_ids, mask = suffix_padded(model, prompts, sampling, prefix_len=prefix_len, width=width)
    past = pool.filled(prefix, len(prompts), cache_len)
    extra: dict[str, Any] = {"disable_compile": not compile}
    if compile:
        from transformers import CompileConfig

        extra["compile_config"] = CompileConfig(fullgraph=False)
        extra["compile_config"]._compile_all_devices = True
    return generate_rows(model, input_ids, mask, past, seeds, sampling, warpers, **extra)


def suffix_padded(
    model: Any, prompts: Sequence[list[int]], sampling: dict[str, Any], *, prefix_len: int, width: int
) -> tuple[Any, Any]:
    """``input_ids`` and ``attention_mask`` of the rows: each suffix left-padded to ``width`` after
    the shared ``prefix_len`` prefix (the pads masked)."""
    pad = int(sampling.get("pad_token_id") or 0)  # masked: any id will do
    ids, mask = [], []
    for p in prompts:
        gap = width - (len(p) - prefix_len)
        ids.append(p[:prefix_len] + [pad] * gap + p[prefix_len:])
        mask.append([1] * prefix_len + [0] * gap + [1] * (len(p) - prefix_len))
    return torch.tensor(ids, device=model.device), torch.tensor(mask, device=model.device)


__all__ = [
    "CACHE_STEP",
    "CPU_BATCH",
    "MAX_AUTO_BATCH",
    "StaticPrefix",
    "auto_batch_size",
    "bucket",
    "bucket_step",
    "generate_static_group",
    "row_bytes",
    "rows_per_call",
    "static_batches",
    "static_groups",
    "suffix_padded",
]
