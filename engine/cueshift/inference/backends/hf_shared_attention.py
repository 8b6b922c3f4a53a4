r"""One copy of the image prefix's key/value cache for a batch, and the attention that reads it.

:class:`SharedPrefixCache` holds the prefix's keys and values once per layer (batch 1) and each
row's own suffix per row (:class:`SharedPrefixLayer`); it reports the length prefix + suffix, so
positions and masks are those of the full prompt. :func:`shared_prefix_attention`, registered with
transformers' ``AttentionInterface`` as :data:`ATTENTION` and switched on for a model's text
attention by :func:`shared_prefix_attention_on`, lets every row's queries attend to the single
prefix copy and to their own suffix, merged exactly by log-sum-exp
(:func:`~.hf_cascade.cascade_attention`). The batching around it is :mod:`.hf_shared_prefix`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, cast

import torch
from transformers import AttentionInterface
from transformers.cache_utils import Cache, DynamicLayer
from transformers.integrations.sdpa_attention import sdpa_attention_forward
from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

from cueshift.inference.backends.hf_cascade import cascade_attention

#: the attention implementation's name in transformers' registries
ATTENTION = "cueshift_shared_prefix"
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


__all__ = [
    "ATTENTION",
    "SharedPrefixCache",
    "SharedPrefixLayer",
    "shared_prefix_attention",
    "shared_prefix_attention_on",
]
