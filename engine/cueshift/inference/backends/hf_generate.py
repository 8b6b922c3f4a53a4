r"""Batched generate mode: many seeded generations of one image in one ``generate`` call.

The per-prompt protocol seeds the global RNG with each judgment's seed right before its own
``generate`` call, so a judgment's answer depends on its seed alone. A batched call samples
every row from one RNG, so per-row seeds would be lost. Here each row keeps its own
:class:`torch.Generator`, seeded like the per-prompt path, and draws its own token:

1. ``generate`` runs greedy (``do_sample=False``) over a batch of rows of equal prompt length
   (the image prefix's key/value cache repeated once per row: no padding anywhere, so every
   row sees exactly the positions and attention of its per-prompt run);
2. transformers applies its usual processors (repetition penalty, bad words, ...: the same
   list with or without sampling), then :class:`PerRowSampler`, which applies the sampling
   warpers the per-prompt call would apply (temperature, top-k, top-p, ... resolved like
   transformers resolves them), computes :math:`p = \operatorname{softmax}(s)` and draws
   ``torch.multinomial(p_i, 1, generator=g_i)`` per row, the draw the per-prompt call makes
   with the global generator seeded the same way;
3. the drawn token gets score 0 and every other token :math:`-\infty`, so the greedy step
   picks it.

A generator seeded with ``s`` produces the stream ``torch.manual_seed(s)`` gives the default
generator, so each row's answer equals its per-prompt answer (up to floating-point
differences between batched and single-row matrix products, which move a draw only when it
falls within rounding of a token's cumulative-probability boundary; the tiny models of
:mod:`.tiny` give identical answers, tested). A generation config that needs something this
path does not reproduce (beam search, watermarking, ``top_h``, renormalised logits) makes
:func:`sampling_warpers` return None, and the backend keeps the per-prompt loop.
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


class PerRowSampler(LogitsProcessor):
    """Apply the sampling warpers, then draw each row's token from its own seeded generator.

    Parameters
    ----------
    warpers
        From :func:`sampling_warpers` (applied to the whole batch: they act row by row).
    seeds
        One RNG seed per row of the batch, in row order.
    device
        Where the scores live (the generators must be on the same device).
    """

    def __init__(self, warpers: LogitsProcessorList, seeds: Sequence[int], device: torch.device) -> None:
        self.warpers = warpers
        self.generators = [torch.Generator(device=device).manual_seed(int(s)) for s in seeds]

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        warped = self.warpers(input_ids, scores)
        probs = torch.nn.functional.softmax(warped, dim=-1)
        drawn = torch.cat(
            [torch.multinomial(probs[i : i + 1], 1, generator=g) for i, g in enumerate(self.generators)]
        )
        out = torch.full_like(scores, float("-inf"))
        out.scatter_(1, drawn, 0.0)
        return out  # type: ignore[return-value]


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
    kwargs = {k: v for k, v in sampling.items() if k not in {"temperature", "top_k", "top_p"}}
    processors = LogitsProcessorList()
    if sampling.get("do_sample", False):
        processors.append(PerRowSampler(warpers, seeds, input_ids.device))
    out = model.generate(
        input_ids=input_ids,
        attention_mask=torch.ones_like(input_ids),
        cache=past,
        logits_processor=processors,
        **{**kwargs, "do_sample": False, "temperature": None, "top_k": None, "top_p": None},
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
    "generate_group",
    "generate_groups",
    "sampling_warpers",
]
