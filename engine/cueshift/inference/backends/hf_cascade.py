r"""Cascade attention: rows attend to one shared prefix and to their own suffix, merged exactly.

Softmax attention over the concatenation of a prefix :math:`P` (one copy for every row) and a
row's own suffix :math:`S` splits into two partial attentions, each normalised on its own part,

.. math::

    o_X = \frac{\sum_{j \in X} e^{s_j} v_j}{\sum_{j \in X} e^{s_j}}, \qquad
    \ell_X = \log \sum_{j \in X} e^{s_j}, \qquad
    o = e^{\ell_P - \ell} \, o_P + e^{\ell_S - \ell} \, o_S, \quad \ell = \log(e^{\ell_P} + e^{\ell_S}),

which is exactly :math:`\operatorname{softmax}([s_P; s_S]) \, [V_P; V_S]` (cascade attention in
FlashInfer, Hydragen). The prefix part runs the queries of *all* rows (and of every query head of a
key/value group) as one matrix against the single prefix copy, so a step reads the prefix once, not
once per row. Masks are boolean (True: attend); a fully masked part has :math:`\ell = -\infty` and
weight 0.

Examples
--------
>>> import torch
>>> g = torch.Generator().manual_seed(0)
>>> q, k, v = (torch.randn(2, 4, 3, 8, generator=g) for _ in range(3))
>>> shared_k, shared_v = k[:1, :2], v[:1, :2]  # 2 key/value heads: grouped queries
>>> out = cascade_attention(q, shared_k, shared_v, None, k[:, :2], v[:, :2], None, 8**-0.5)
>>> keys = torch.cat([shared_k.expand(2, -1, -1, -1), k[:, :2]], dim=2).repeat_interleave(2, dim=1)
>>> values = torch.cat([shared_v.expand(2, -1, -1, -1), v[:, :2]], dim=2).repeat_interleave(2, dim=1)
>>> plain = torch.softmax(q @ keys.transpose(-1, -2) * 8**-0.5, dim=-1) @ values
>>> bool(torch.allclose(out.transpose(1, 2), plain, atol=1e-6))
True
"""

from __future__ import annotations

import torch

#: run the unmasked prefix part with torch's fused attention kernels (which return the
#: log-sum-exp); False: the plain matrix products everywhere
FUSED_PREFIX = True


def _plain_partial(
    query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, mask: torch.Tensor | None, scaling: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(out, lse)`` of ``query`` (..., M, d) against ``keys``/``values`` (..., n, d), by matrix products."""
    scores = torch.matmul(query, keys.transpose(-1, -2)).float() * scaling
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1, keepdim=True)
    probs = torch.exp(scores - torch.where(torch.isfinite(lse), lse, 0.0))
    return torch.matmul(probs.to(values.dtype), values).float(), lse


def _fused_partial(
    query: torch.Tensor, keys: torch.Tensor, values: torch.Tensor, scaling: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(out, lse)`` of an unmasked ``query`` (1, h, M, d) against ``keys``/``values`` (1, h, n, d),
    by torch's fused kernels: flash (CUDA half precision, the CPU), else memory-efficient."""
    m = query.shape[-2]
    if query.device.type == "cpu":
        out, lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
            query, keys, values, scale=scaling
        )
    elif query.dtype in (torch.float16, torch.bfloat16) and query.shape[-1] <= 256:
        out, lse = torch.ops.aten._scaled_dot_product_flash_attention(query, keys, values, scale=scaling)[:2]
    else:
        out, lse = torch.ops.aten._scaled_dot_product_efficient_attention(
            query, keys, values, None, True, scale=scaling
        )[:2]
    return out.float(), lse[..., :m].float().unsqueeze(-1)


def merge_partials(
    out_a: torch.Tensor, lse_a: torch.Tensor, out_b: torch.Tensor, lse_b: torch.Tensor
) -> torch.Tensor:
    """Softmax attention over both parts from each part's normalised output and log-sum-exp."""
    lse = torch.logaddexp(lse_a, lse_b)
    lse = torch.where(torch.isfinite(lse), lse, 0.0)  # both parts masked: weights 0, not nan
    return out_a * torch.exp(lse_a - lse) + out_b * torch.exp(lse_b - lse)


def cascade_attention(
    query: torch.Tensor,
    prefix_keys: torch.Tensor,
    prefix_values: torch.Tensor,
    prefix_mask: torch.Tensor | None,
    suffix_keys: torch.Tensor,
    suffix_values: torch.Tensor,
    suffix_mask: torch.Tensor | None,
    scaling: float,
) -> torch.Tensor:
    """Attention of every row's queries over the shared prefix and the row's own suffix.

    Parameters
    ----------
    query
        (B, H, q, d): H query heads, a multiple of the key/value heads (grouped-query attention).
    prefix_keys, prefix_values
        (1, KV, P, d): one copy for all B rows.
    prefix_mask
        Broadcastable to (B, 1, q, P), True where a query sees a prefix key; None: all.
    suffix_keys, suffix_values
        (B, KV, S, d): each row's own keys and values (padding included).
    suffix_mask
        Broadcastable to (B, 1, q, S); None: all.
    scaling
        Multiplies the scores (usually :math:`d^{-1/2}`).

    Returns
    -------
    torch.Tensor
        (B, q, H, d) in ``query``'s dtype (the layout transformers' attention functions return).
    """
    batch, heads, q_len, dim = query.shape
    kv_heads = prefix_keys.shape[1]
    group = heads // kv_heads
    grouped = query.view(batch, kv_heads, group, q_len, dim)
    # prefix: all rows' queries of one key/value head as one (B * group * q) x d matrix
    stacked = grouped.permute(1, 0, 2, 3, 4).reshape(1, kv_heads, batch * group * q_len, dim)
    fused = None
    if prefix_mask is None and FUSED_PREFIX:
        try:
            fused = _fused_partial(stacked, prefix_keys, prefix_values, scaling)
        except RuntimeError:  # no fused kernel for these shapes or this device: the matrix products
            fused = None
    if fused is not None:
        out_p, lse_p = fused
    else:
        mask = None
        if prefix_mask is not None:  # (B, 1, q, P) -> (1, 1, B, 1, q, P) -> rows of the stacked queries
            mask = prefix_mask.expand(batch, 1, q_len, -1).reshape(1, 1, batch, 1, q_len, -1)
            mask = mask.expand(1, 1, batch, group, q_len, -1).reshape(1, 1, batch * group * q_len, -1)
        out_p, lse_p = _plain_partial(stacked, prefix_keys, prefix_values, mask, scaling)
    out_p = out_p.view(kv_heads, batch, group, q_len, dim).permute(1, 0, 2, 3, 4)
    lse_p = lse_p.view(kv_heads, batch, group, q_len, 1).permute(1, 0, 2, 3, 4)
    # suffix: each row against its own keys (B, KV, group * q, d)
    own = grouped.reshape(batch, kv_heads, group * q_len, dim)
    mask_s = None
    if suffix_mask is not None:
        mask_s = suffix_mask.expand(batch, 1, q_len, -1).unsqueeze(2).expand(batch, 1, group, q_len, -1)
        mask_s = mask_s.reshape(batch, 1, group * q_len, -1)
    out_s, lse_s = _plain_partial(own, suffix_keys, suffix_values, mask_s, scaling)
    out_s = out_s.view(batch, kv_heads, group, q_len, dim)
    lse_s = lse_s.view(batch, kv_heads, group, q_len, 1)
    out = merge_partials(out_p, lse_p, out_s, lse_s).reshape(batch, heads, q_len, dim)
    return out.transpose(1, 2).to(query.dtype)


__all__ = ["FUSED_PREFIX", "cascade_attention", "merge_partials"]
