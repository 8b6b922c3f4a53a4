r"""Batched generate mode on ONE copy of the image prefix's key/value cache (shared-prefix decoding).

The batched path of :mod:`.hf_generate` copies the image prefix's cache once per row; at a
3 k-token prefix and batch 128 a decoding step of a 7 B model then reads ~50 GB of prefix copies
against 14 GB of weights. Here (``shared_prefix_attention = true``, the default):

1. :class:`SharedPrefixCache` holds the prefix's keys and values once per layer, batch 1, and
   each row's own suffix (its prompt after the prefix, then its new tokens) per row; it reports
   the length prefix + suffix, so positions and masks are those of the full prompt;
2. the text model's attention runs :func:`shared_prefix_attention` (registered with transformers'
   ``AttentionInterface`` as :data:`ATTENTION` while a batch is generated): every row's queries
   attend to the single prefix copy and to their own suffix, merged exactly by log-sum-exp
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
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

import torch
from transformers import AttentionInterface, LogitsProcessorList
from transformers.cache_utils import Cache, DynamicLayer
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

from cueshift.inference.backends.hf_cascade import cascade_attention
from cueshift.inference.backends.hf_generate import generate_rows
from cueshift.inference.backends.hf_static import CPU_BATCH, NO_PADDING, row_bytes, suffix_padded

#: the attention implementation's name in transformers' registries
ATTENTION = "cueshift_shared_prefix"
#: model types whose text attention was tested with shared-prefix decoding (tiny models of each)
SHARED_PREFIX_TYPES = (
    "llava_next", "llava", "qwen2_vl", "qwen2_5_vl", "qwen3_vl", "internvl", "gemma3", "idefics3",
)  # fmt: skip
#: ``batch_size = "auto"`` never goes beyond this (a whole image's 300 prompts fit one call)
MAX_SHARED_BATCH = 512
#: the cache layer whose keys the next attention call of this thread reads
_PENDING: ContextVar[SharedPrefixLayer | None] = ContextVar("cueshift_shared_prefix", default=None)


class SharedPrefixLayer(DynamicLayer):  # type: ignore[no-untyped-call]
    """One layer: the prefix's keys/values once (1, KV, n, d), each row's suffix (B, KV, S, d)."""

    def __init__(self, prefix_keys: torch.Tensor, prefix_values: torch.Tensor, prefix_length: int) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.prefix_keys, self.prefix_values = prefix_keys, prefix_values
        #: tokens before the suffix (sliding-window layers hold only the last n of them)
        self.prefix_length = prefix_length

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Append the suffix states; return all of them (the attention reads the prefix from here)."""
        super().update(key_states, value_states)
        return self.mark_pending()

    def mark_pending(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Name this layer to the next attention call of the thread; return all its suffix states."""
        _PENDING.set(self)
        return cast(torch.Tensor, self.keys), cast(torch.Tensor, self.values)

    def suffix_length(self) -> int:
        """Suffix positions held (padding included)."""
        return super().get_seq_length()

    def get_seq_length(self) -> int:
        return self.prefix_length + self.suffix_length()

    def get_mask_sizes(self, query_length: int) -> tuple[int, int]:
        return self.get_seq_length() + query_length, 0


class SharedPrefixCache(Cache):
    """A batch's cache over ``prefix`` (a batch-1 cache of the image prefix; read, never changed)."""

    def __init__(self, prefix: Cache) -> None:
        length = prefix.get_seq_length()
        held = [cast(Any, layer) for layer in prefix.layers]
        layers: list[Any] = [SharedPrefixLayer(layer.keys, layer.values, length) for layer in held]
        super().__init__(layers=layers)


def shared_prefix_attention(
    module: Any,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    dropout: float = 0.0,
    scaling: float | None = None,
    softcap: float | None = None,
    sliding_window: int | None = None,
    **kwargs: Any,
) -> tuple[torch.Tensor, None]:
    """Transformers attention function: cascade attention over the :class:`SharedPrefixLayer`
    just updated (``key``/``value`` are its suffix); plain SDPA for any other call."""
    layer = _PENDING.get()
    _PENDING.set(None)
    if layer is None or key is not layer.keys:  # e.g. the prefix pass itself
        return sdpa_attention_forward(
            module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, **kwargs
        )
    if softcap is not None or dropout:
        raise ValueError(f"{ATTENTION}: attention with soft-capping or dropout is not supported")
    scale = scaling if scaling is not None else query.shape[-1] ** -0.5
    q_len, suffix, start = query.shape[2], key.shape[2], layer.prefix_length
    held = layer.prefix_keys.shape[2]
    prefix_mask = suffix_mask = None
    if attention_mask is not None:
        suffix_mask = attention_mask[..., start:]
        # the last query sees prefix keys after its position - window: all of them, or use the mask
        if sliding_window is not None and held + suffix - 1 >= sliding_window:
            prefix_mask = attention_mask[..., start - held : start]
    else:  # causal within the suffix, the whole prefix
        rows = torch.arange(suffix - q_len, suffix, device=query.device)
        suffix_mask = torch.arange(suffix, device=query.device)[None, :] <= rows[:, None]
    out = cascade_attention(
        query, layer.prefix_keys, layer.prefix_values, prefix_mask, key, value, suffix_mask, scale
    )
    return out, None


def _materialised_mask(*args: Any, **kwargs: Any) -> torch.Tensor | None:
    """transformers' boolean (SDPA) mask, always built (the cascade splits it into its parts)."""
    return sdpa_mask(*args, **{**kwargs, "allow_is_causal_skip": False})


AttentionInterface.register(ATTENTION, shared_prefix_attention)
AttentionMaskInterface.register(ATTENTION, _materialised_mask)


def supports_shared_prefix(model: Any) -> bool:
    """Whether ``model``'s architecture decodes on a shared prefix (:data:`SHARED_PREFIX_TYPES`)."""
    return getattr(model.config, "model_type", "") in SHARED_PREFIX_TYPES


@contextmanager
def shared_prefix_attention_on(model: Any) -> Iterator[None]:
    """Run ``model``'s text attention as :data:`ATTENTION` inside the block (not the vision tower's)."""
    config = model.config.get_text_config(decoder=True)
    before = config._attn_implementation
    config._attn_implementation = ATTENTION
    try:
        yield
    finally:
        config._attn_implementation = before
        _PENDING.set(None)


def shared_row_bytes(model: Any, suffix_len: int, prefix_len: int) -> int:
    """Bytes of one row: its suffix cache and logits, its float32 scores against the prefix."""
    text = model.config.get_text_config(decoder=True)
    return row_bytes(model, suffix_len) + 3 * 4 * int(text.num_attention_heads) * prefix_len


def shared_batch_size(model: Any, per_row: int) -> int:
    """Rows per call that fit 60 % of the free CUDA memory, at most :data:`MAX_SHARED_BATCH`
    (:data:`~.hf_static.CPU_BATCH` elsewhere)."""
    if model.device.type != "cuda":
        return CPU_BATCH
    free, _ = torch.cuda.mem_get_info(model.device)
    return max(1, min(MAX_SHARED_BATCH, int(0.6 * free) // per_row))


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
) -> Iterator[tuple[list[int], list[list[int]]]]:
    """Every row's new tokens, one :func:`generate_shared_group` call at a time: yields the call's
    row indices and their tokens. ``graph`` (a :class:`~.hf_graph_decode.GraphDecoder`): decode on
    its fixed-shape buffers instead, except where a sliding window is shorter than the call."""
    widths = [len(p) - prefix_len for p in prompts]
    if batch_size == "auto":
        per_row = shared_row_bytes(model, max(widths) + int(sampling["max_new_tokens"]), prefix_len)
        rows = shared_batch_size(model, per_row)
    else:
        rows = int(batch_size)
    window = getattr(model.config.get_text_config(decoder=True), "sliding_window", None)
    longest = prefix_len + max(widths) + int(sampling["max_new_tokens"])
    graphed = graph is not None and (window is None or window >= longest)
    # the fixed-shape path sets every position itself: it pads any model's rows
    pad = graphed or getattr(model.config, "model_type", "") not in NO_PADDING
    for width, group in shared_groups(widths, rows, pad):
        run = graph.generate_group if graphed else generate_shared_group
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
    "ATTENTION",
    "MAX_SHARED_BATCH",
    "SHARED_PREFIX_TYPES",
    "SharedPrefixCache",
    "SharedPrefixLayer",
    "generate_shared_group",
    "shared_batch_size",
    "shared_groups",
    "shared_prefix_attention",
    "shared_prefix_attention_on",
    "shared_prefix_batches",
    "shared_row_bytes",
    "supports_shared_prefix",
]
