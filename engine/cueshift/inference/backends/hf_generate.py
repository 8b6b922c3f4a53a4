r"""Batched generate mode: many seeded generations of one image in one ``generate`` call.

Every seeded generation (the per-prompt loop, batched, static and shared-prefix decoding)
samples through :class:`PerRowSampler`, so a row's answer depends on its own seed and its own
logits alone, never on its batch neighbours or the batch size:

1. ``generate`` runs greedy (``do_sample=False``) over a batch of rows of equal prompt length
   (the image prefix's key/value cache repeated once per row: no padding anywhere, so every
   row sees exactly the positions and attention of its per-prompt run);
2. transformers applies its usual processors (repetition penalty, bad words, ...: the same
   list with or without sampling), then :class:`PerRowSampler`, which applies the sampling
   warpers a sampled call would apply (temperature, top-k, top-p, ... resolved like
   transformers resolves them, each batched over rows) and draws every row's token at once
   by the Gumbel-max trick, :math:`\arg\max_v (s_{iv} + G_{iv})`, with counter-based noise
   :math:`G_{iv}` hashed from (row seed, step, token id) (:func:`gumbel_noise`);
3. the drawn token gets score 0 and every other token :math:`-\infty`, so the greedy step
   picks it.

One step costs the same handful of tensor operations for 1 or 300 rows. Batched and single-row
answers agree up to floating-point differences between batched and single-row matrix
products, which move a draw only when two tokens' noisy scores are within rounding of each
other (the tiny models of :mod:`.tiny` give identical answers, tested). A generation config
that needs something this path does not reproduce (beam search, watermarking, ``top_h``,
renormalised logits) makes :func:`sampling_warpers` return None, and the backend keeps
transformers' own sampling, one call per prompt under ``torch.manual_seed``.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

import torch
from transformers import (
    EpsilonLogitsWarper,
    EtaLogitsWarper,
    LogitsProcessor,
    LogitsProcessorList,
    MinPLogitsWarper,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
    TypicalLogitsWarper,
)

#: transformers' values for generation parameters that neither the call nor the checkpoint sets
#: (``GenerationConfig`` defaults applied by ``generate``)
HF_DEFAULTS: dict[str, Any] = {"temperature": 1.0, "top_k": 50, "top_p": 1.0, "typical_p": 1.0}
#: settings under which transformers' sampling does something this module does not reproduce
UNSUPPORTED: dict[str, Any] = {
    "num_beams": 1,
    "top_h": None,
    "watermarking_config": None,
    "renormalize_logits": False,
    "guidance_scale": None,
    "num_return_sequences": 1,
}


def _resolved(model: Any, sampling: dict[str, Any], name: str) -> Any:
    """A generation parameter as ``generate`` resolves it: the call, else the checkpoint's
    generation config, else transformers' default."""
    if name in sampling:
        return sampling[name]
    value = getattr(getattr(model, "generation_config", None), name, None)
    return HF_DEFAULTS.get(name) if value is None else value


def sampling_warpers(model: Any, sampling: dict[str, Any]) -> LogitsProcessorList | None:
    """The warpers a sampled ``generate(**sampling)`` call of ``model`` applies, in its order.

    Returns
    -------
    LogitsProcessorList or None
        None when ``model``'s generation config asks for something batched sampling does not
        reproduce (see :data:`UNSUPPORTED`); an empty list when sampling is off.
    """
    config = getattr(model, "generation_config", None)
    for name, neutral in UNSUPPORTED.items():
        value = sampling.get(name, getattr(config, name, None))
        if value is not None and value != neutral and not (name == "guidance_scale" and value == 1):
            return None
    if not sampling.get("do_sample", False):
        return LogitsProcessorList()
    warpers = LogitsProcessorList()
    temperature = _resolved(model, sampling, "temperature")
    if temperature is not None and temperature != 1.0:
        warpers.append(TemperatureLogitsWarper(temperature))
    top_k = _resolved(model, sampling, "top_k")
    if top_k is not None and top_k != 0:
        warpers.append(TopKLogitsWarper(top_k=top_k, min_tokens_to_keep=1))
    top_p = _resolved(model, sampling, "top_p")
    if top_p is not None and top_p < 1.0:
        warpers.append(TopPLogitsWarper(top_p=top_p, min_tokens_to_keep=1))
    min_p = _resolved(model, sampling, "min_p")
    if min_p is not None:
        warpers.append(MinPLogitsWarper(min_p=min_p, min_tokens_to_keep=1))
    typical_p = _resolved(model, sampling, "typical_p")
    if typical_p is not None and typical_p < 1.0:
        warpers.append(TypicalLogitsWarper(mass=typical_p, min_tokens_to_keep=1))
    epsilon = _resolved(model, sampling, "epsilon_cutoff")
    if epsilon is not None and 0.0 < epsilon < 1.0:
        warpers.append(EpsilonLogitsWarper(epsilon=epsilon, min_tokens_to_keep=1))
    eta = _resolved(model, sampling, "eta_cutoff")
    if eta is not None and 0.0 < eta < 1.0:
        warpers.append(EtaLogitsWarper(epsilon=eta, min_tokens_to_keep=1, device=str(model.device)))
    return warpers


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
        From :func:`sampling_warpers` (empty when ``do_sample`` is False).

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
    "HF_DEFAULTS",
    "PerRowSampler",
    "eos_ids",
    "gumbel_noise",
    "sample_rows",
    "seeded_generate_kwargs",
    "generate_group",
    "generate_groups",
    "generate_rows",
    "sampling_warpers",
]
