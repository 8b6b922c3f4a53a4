r"""The per-row seeded sampler of every seeded generation: Gumbel-max draws from counter-based noise.

:class:`PerRowSampler` applies the sampling warpers (:mod:`.hf_warpers`) and then draws every
row's token at once by the Gumbel-max trick, :math:`\arg\max_v (s_{iv} + G_{iv})`, with noise
:math:`G_{iv}` hashed from (row seed, step, token id) (:func:`gumbel_noise`), so a row's draw
depends on its own seed and scores alone; :func:`seeded_generate_kwargs` turns a sampled
``generate`` call into a greedy pick of those draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from transformers import LogitsProcessor, LogitsProcessorList

from cueshift.inference.backends.hf_warpers import sampling_warpers

#: splitmix64 constants as signed int64 (torch has no uint64 arithmetic; int64 wraps like uint64)
_GOLDEN = 0x9E3779B97F4A7C15 - (1 << 64)
_MIX1 = 0xBF58476D1CE4E5B9 - (1 << 64)
_MIX2 = 0x94D049BB133111EB - (1 << 64)


def _shr(x: torch.Tensor, bits: int) -> torch.Tensor:
    """Logical right shift of int64 ``x`` (torch's ``>>`` sign-extends)."""
    return (x >> bits) & ((1 << (64 - bits)) - 1)


def _mix64(x: torch.Tensor) -> torch.Tensor:
    """splitmix64's finaliser, elementwise on int64 (wrapping arithmetic)."""
    x = (x ^ _shr(x, 30)) * _MIX1
    x = (x ^ _shr(x, 27)) * _MIX2
    return x ^ _shr(x, 31)


def gumbel_noise(seeds: torch.Tensor, step: int, vocab: int) -> torch.Tensor:
    """Counter-based Gumbel noise: entry ``(i, v)`` depends only on ``seeds[i]``, ``step`` and ``v``.

    Parameters
    ----------
    seeds
        int64 seeds, one per row.
    step
        The decoding step (0 for the first generated token).
    vocab
        The number of token ids.

    Returns
    -------
    torch.Tensor
        float64 ``(rows, vocab)`` standard Gumbel draws, one batched computation for all rows.

    Examples
    --------
    >>> a = gumbel_noise(torch.tensor([7, 8]), 0, 5)
    >>> bool(torch.equal(a[1], gumbel_noise(torch.tensor([8]), 0, 5)[0]))
    True
    """
    step_key = ((step + 1) * _GOLDEN + (1 << 63)) % (1 << 64) - (1 << 63)  # wrapped to int64
    row_key = _mix64(_mix64(seeds.to(torch.int64) + _GOLDEN) + step_key)
    index = torch.arange(vocab, device=seeds.device, dtype=torch.int64)
    bits = _mix64(row_key[:, None] ^ _mix64(index * _GOLDEN + 1)[None, :])
    uniform = (_shr(bits, 11).to(torch.float64) + 0.5) * 2.0**-53  # in (0, 1), never 0 or 1
    return -torch.log(-torch.log(uniform))


def sample_rows(scores: torch.Tensor, seeds: torch.Tensor, step: int) -> torch.Tensor:
    """One token per row drawn from ``softmax(scores)`` by the Gumbel-max trick.

    ``argmax(scores + G)`` with standard Gumbel ``G`` is a draw from ``softmax(scores)``; with
    :func:`gumbel_noise` a row's draw depends on its own seed, step and scores only.

    Examples
    --------
    >>> scores = torch.tensor([[0.0, float("-inf"), float("-inf")]])
    >>> sample_rows(scores, torch.tensor([3]), 0).tolist()
    [0]
    """
    noise = gumbel_noise(seeds, step, scores.shape[-1])
    return torch.argmax(scores.to(torch.float64) + noise, dim=-1)


class PerRowSampler(LogitsProcessor):
    """Apply the sampling warpers, then draw every row's token from its own seeded noise.

    One batched set of tensor operations per step for all rows (:func:`sample_rows`), whatever
    the batch size; row ``i``'s draw depends only on ``seeds[i]``, the step and its own scores.

    Parameters
    ----------
    warpers
        From :func:`sampling_warpers` (applied to the whole batch: they act row by row).
    seeds
        One RNG seed per row of the batch, in row order.
    device
        Where the scores live.
    """

    def __init__(self, warpers: LogitsProcessorList, seeds: Sequence[int], device: torch.device) -> None:
        self.warpers = warpers
        self.seeds = torch.tensor([int(s) for s in seeds], dtype=torch.int64, device=device)
        self.step = 0

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        warped = self.warpers(input_ids, scores)
        drawn = sample_rows(warped, self.seeds, self.step)
        self.step += 1
        out = torch.full_like(scores, float("-inf"))
        out.scatter_(1, drawn[:, None], 0.0)
        return out  # type: ignore[return-value]


def seeded_generate_kwargs(
    model: Any, sampling: dict[str, Any], seeds: Sequence[int], device: torch.device
) -> dict[str, Any] | None:
    """The ``generate`` keyword arguments that sample ``sampling``'s way with :class:`PerRowSampler`.

    Returns
    -------
    dict or None
        ``sampling`` with sampling turned into a greedy pick of each row's seeded draw; None
        when :func:`sampling_warpers` cannot reproduce the model's sampling.
    """
    warpers = sampling_warpers(model, sampling)
    if warpers is None:
        return None
    processors = LogitsProcessorList()
    if sampling.get("do_sample", False):
        processors.append(PerRowSampler(warpers, seeds, device))
    kwargs = {k: v for k, v in sampling.items() if k not in {"temperature", "top_k", "top_p"}}
    return {
        **kwargs,
        "logits_processor": processors,
        **{"do_sample": False, "temperature": None, "top_k": None, "top_p": None},
    }


__all__ = ["PerRowSampler", "gumbel_noise", "sample_rows", "seeded_generate_kwargs"]
