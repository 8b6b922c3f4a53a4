"""Cascade attention (:mod:`cueshift.inference.backends.hf_cascade`) against plain softmax attention.

The reference here is written independently: every row gets its own copy of the shared prefix,
key/value heads are repeated for their query groups, the masks are concatenated, and
``softmax(q k^T * scale + mask) v`` runs over the whole sequence in float64.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from torch import Tensor  # noqa: E402

from cueshift.inference.backends import hf_cascade  # noqa: E402
from cueshift.inference.backends.hf_cascade import cascade_attention, merge_partials  # noqa: E402

B, H, KV, Q, P, S, D = 3, 8, 2, 4, 11, 7, 16


def _reference(
    query: Tensor,
    pk: Tensor,
    pv: Tensor,
    pmask: Tensor | None,
    sk: Tensor,
    sv: Tensor,
    smask: Tensor | None,
    scale: float,
) -> Tensor:
    batch, heads = query.shape[:2]
    group = heads // pk.shape[1]
    keys = torch.cat([pk.expand(batch, -1, -1, -1), sk], dim=2).repeat_interleave(group, dim=1).double()
    values = torch.cat([pv.expand(batch, -1, -1, -1), sv], dim=2).repeat_interleave(group, dim=1).double()
    full = torch.ones(batch, 1, query.shape[2], keys.shape[2], dtype=torch.bool)
    if pmask is not None:
        full[..., : pk.shape[2]] = pmask
    if smask is not None:
        full[..., pk.shape[2] :] = smask
    scores = (query.double() @ keys.transpose(-1, -2)) * scale
    scores = scores.masked_fill(~full, float("-inf"))
    out: Tensor = (torch.softmax(scores, dim=-1) @ values).transpose(1, 2)  # (B, q, H, d)
    return out


def _tensors(seed: int) -> tuple[Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    query = torch.randn(B, H, Q, D, generator=g)
    pk, pv = torch.randn(1, KV, P, D, generator=g), torch.randn(1, KV, P, D, generator=g)
    sk, sv = torch.randn(B, KV, S, D, generator=g), torch.randn(B, KV, S, D, generator=g)
    return query, pk, pv, sk, sv


def _suffix_mask() -> Tensor:
    """Causal over the suffix's last Q positions, each row left-padded by 0, 2 and 3 positions."""
    rows = torch.arange(S - Q, S)[:, None] >= torch.arange(S)[None, :]
    mask = rows.expand(B, 1, Q, S).clone()
    for b, gap in enumerate((0, 2, 3)):
        mask[b, ..., :gap] = False
    out: Tensor = mask.bool()
    return out


@pytest.mark.parametrize("fused", [True, False])
def test_merged_attention_equals_softmax_over_the_concatenation(
    fused: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hf_cascade, "FUSED_PREFIX", fused)
    query, pk, pv, sk, sv = _tensors(0)
    smask = _suffix_mask()
    out = cascade_attention(query, pk, pv, None, sk, sv, smask, D**-0.5)
    assert out.shape == (B, Q, H, D) and out.dtype == query.dtype
    torch.testing.assert_close(
        out.double(), _reference(query, pk, pv, None, sk, sv, smask, D**-0.5), atol=2e-6, rtol=0
    )


def test_masked_prefix_sliding_window_and_unequal_groups() -> None:
    """A prefix mask (a sliding window cuts the prefix's start, per query) and 4 query heads per
    key/value head; also no suffix mask at all."""
    query, pk, pv, sk, sv = _tensors(1)
    pmask = torch.ones(B, 1, Q, P, dtype=torch.bool)
    for q in range(Q):
        pmask[..., q, : 2 + q] = False
    smask = _suffix_mask()
    for mask in (smask, None):
        out = cascade_attention(query, pk, pv, pmask, sk, sv, mask, 0.3)
        torch.testing.assert_close(
            out.double(), _reference(query, pk, pv, pmask, sk, sv, mask, 0.3), atol=2e-6, rtol=0
        )


def test_a_fully_masked_part_has_no_weight() -> None:
    """Every prefix key masked: the result is attention over the suffix alone (no nan)."""
    query, pk, pv, sk, sv = _tensors(2)
    pmask = torch.zeros(B, 1, Q, P, dtype=torch.bool)
    out = cascade_attention(query, pk, pv, pmask, sk, sv, None, D**-0.5)
    assert torch.isfinite(out).all()
    expected = _reference(query, pk[:, :, :0], pv[:, :, :0], None, sk, sv, None, D**-0.5)
    torch.testing.assert_close(out.double(), expected, atol=2e-6, rtol=0)


def test_bfloat16_stays_near_float64() -> None:
    query, pk, pv, sk, sv = _tensors(3)
    low = [t.to(torch.bfloat16) for t in (query, pk, pv, sk, sv)]
    out = cascade_attention(low[0], low[1], low[2], None, low[3], low[4], _suffix_mask(), D**-0.5)
    assert out.dtype == torch.bfloat16
    q, pk, pv, sk, sv = (t.double() for t in low)
    exact = _reference(q, pk, pv, None, sk, sv, _suffix_mask(), D**-0.5)
    assert float((out.double() - exact).abs().max()) < 0.05


def test_merge_partials_is_the_softmax_of_both_parts() -> None:
    g = torch.Generator().manual_seed(4)
    scores_a, scores_b = torch.randn(5, 6, generator=g), torch.randn(5, 3, generator=g)
    values_a, values_b = torch.randn(6, 2, generator=g), torch.randn(3, 2, generator=g)
    lse_a = torch.logsumexp(scores_a, -1, keepdim=True)
    lse_b = torch.logsumexp(scores_b, -1, keepdim=True)
    merged = merge_partials(
        torch.softmax(scores_a, -1) @ values_a, lse_a, torch.softmax(scores_b, -1) @ values_b, lse_b
    )
    plain = torch.softmax(torch.cat([scores_a, scores_b], -1), -1) @ torch.cat([values_a, values_b])
    torch.testing.assert_close(merged, plain, atol=1e-6, rtol=0)
