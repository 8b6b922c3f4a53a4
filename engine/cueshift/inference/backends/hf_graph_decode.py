r"""Shared-prefix decoding with a fixed-shape decoding step, captured as a CUDA graph (``cuda_graph = true``).

Profiled on an H200 (BENCHMARKS.md, issue 34), shared-prefix decoding at batch 300 is bound by
the host: ~100 kernel launches per layer per step, the GPU busy 67 % of the wall time. Here
every buffer a decoding step touches has one shape and one address for the whole call:

1. :class:`~.hf_graph_state.GraphState` holds, per layer, a copy of the image prefix's keys and
   values (1, KV, P, d) and each row's suffix buffer (B, KV, W + N, d) for the widest suffix W and N
   new tokens, written in place at its ``write_index``
   (:class:`~.hf_graph_state.SuffixBufferLayer`);
2. the suffix is prefilled eagerly, once per distinct prompt (a prompt's 3 seeds share it; each
   row's copy then goes to its own buffer), with a boolean mask (B, 1, W, P + W + N) built here
   (transformers passes a 4-D mask through as it is): the prefix, the row's real suffix tokens
   causally, nothing after; positions are the mask's running sum, as in :mod:`.hf_static`, plus the
   image's rotary offset for the Qwen-VL family (``rope_deltas`` of the prefix pass), so rows of any
   architecture are padded to the call's widest suffix (:data:`~.hf_static.NO_PADDING` models too);
3. one decoding step (advance positions, write index and mask column, run the model on the
   last tokens) is a function of those buffers alone, with no host synchronisation; on CUDA it
   is captured once as a ``torch.cuda.CUDAGraph`` and replayed (one launch per step instead of
   thousands), elsewhere it runs eagerly: the same arithmetic either way;
4. each step's logits go through the same per-row seeded sampler as ``generate``
   (:class:`~.hf_sampler.PerRowSampler`), so every row's answer equals its per-prompt answer.

The state (buffers and graph) is kept for the next call of the same shape: one image's 300
prompts in one call give one shape for all images of one size. :func:`graph_refusal` names
what this path does not reproduce (architectures outside :data:`GRAPH_TYPES`, sliding windows
shorter than the sequence, generation settings beyond temperature, top-k and top-p).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import torch
from transformers import LogitsProcessorList

from cueshift.inference.backends.hf_generate import eos_ids, new_tokens
from cueshift.inference.backends.hf_graph_state import GraphState
from cueshift.inference.backends.hf_sampler import PerRowSampler
from cueshift.inference.backends.hf_shared_attention import shared_prefix_attention_on
from cueshift.inference.backends.hf_static import suffix_padded

#: model types whose fixed-shape step was tested (tiny models of each); it sets every position itself
#: (the mask's running sum, plus the Qwen-VL family's rotary offset), so it pads every one of them
GRAPH_TYPES = (
    "llava_next", "llava", "internvl", "idefics3", "gemma3", "qwen2_vl", "qwen2_5_vl", "qwen3_vl",
)  # fmt: skip
#: generation settings that add a logits processor or stopping rule ``generate`` would apply
GRAPH_NEUTRAL: dict[str, Any] = {
    "repetition_penalty": 1.0, "encoder_repetition_penalty": 1.0, "no_repeat_ngram_size": 0,
    "encoder_no_repeat_ngram_size": 0, "bad_words_ids": None, "min_length": 0, "min_new_tokens": None,
    "forced_bos_token_id": None, "forced_eos_token_id": None, "remove_invalid_values": False,
    "exponential_decay_length_penalty": None, "suppress_tokens": None, "begin_suppress_tokens": None,
    "sequence_bias": None, "stop_strings": None, "max_time": None, "num_beams": 1,
}  # fmt: skip


def graph_refusal(model: Any, sampling: dict[str, Any]) -> str | None:
    """Why ``model`` cannot decode on this path with ``sampling`` (one line), or None."""
    kind = getattr(model.config, "model_type", "")
    if kind not in GRAPH_TYPES:
        return f"model type {kind!r} is not one of {', '.join(GRAPH_TYPES)}"
    config = getattr(model, "generation_config", None)
    for name, neutral in GRAPH_NEUTRAL.items():
        value = sampling.get(name, getattr(config, name, None))
        if value is not None and value != neutral and not (neutral is None and value in ([], {})):
            return f"the generation setting {name} = {value!r} is not reproduced on this path"
    return None


class GraphDecoder:
    """Keeps the last :class:`GraphState` (and its graph) for calls of the same shape."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.state: GraphState | None = None

    def state_for(self, prefix: Any, rows: int, width: int, steps: int) -> GraphState:
        shape = (rows, prefix.get_seq_length(), width, steps)
        if self.state is None or self.state.shape() != shape:
            self.state = None  # free the old buffers first
            self.state = GraphState(self.model, prefix, rows, width, steps)
        else:
            self.state.load(prefix)
        return self.state

    @torch.inference_mode()
    def generate_group(
        self,
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
        """Each row's new tokens (through its first end token) on :class:`GraphState`, in
        :func:`~.hf_shared_prefix.generate_shared_group`'s signature and with its answers."""
        steps = int(sampling["max_new_tokens"])
        first: dict[tuple[int, ...], int] = {}  # a row's distinct prompt (seeds repeat a prompt)
        which = [first.setdefault(tuple(p[prefix_len:]), len(first)) for p in prompts]
        distinct = [list(prompts[0][:prefix_len]) + list(suffix) for suffix in first]
        input_ids, mask2d = suffix_padded(model, distinct, sampling, prefix_len=prefix_len, width=width)
        rows = torch.tensor(which, device=model.device)
        state = self.state_for(prefix, len(prompts), width, steps)
        pick = _picker(sampling, warpers, seeds, model.device)
        stop = torch.tensor(sorted(eos_ids(model)) or [-1], device=model.device)
        with shared_prefix_attention_on(model):
            mask, positions = _prefill_inputs(mask2d, prefix_len, state.mask.shape[-1])
            offset = getattr(getattr(model, "model", None), "rope_deltas", None)  # Qwen-VL: the prefix pass's
            if isinstance(offset, torch.Tensor):
                positions = positions + offset.to(positions.device)
            drawn = [pick(state.prefill(input_ids[:, prefix_len:], mask, positions, rows))]
            finished = torch.isin(drawn[0], stop)
            for _ in range(1, steps):
                if bool(finished.all()):
                    break
                state.tokens.copy_(drawn[-1][:, None])
                drawn.append(pick(state.replay()))
                finished |= torch.isin(drawn[-1], stop)
        return new_tokens(model, torch.stack(drawn, dim=1), 0)


def _prefill_inputs(mask2d: torch.Tensor, prefix_len: int, total: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The 4-D mask (B, 1, W, total) and positions (B, W) of the suffix prefill."""
    own = mask2d[:, prefix_len:].bool()
    rows, width = own.shape
    causal = torch.ones(width, width, dtype=torch.bool, device=own.device).tril()
    mask = torch.zeros(rows, 1, width, total, dtype=torch.bool, device=own.device)
    mask[..., :prefix_len] = True
    mask[..., prefix_len : prefix_len + width] = causal[None, None] & own[:, None, None, :]
    positions = (prefix_len + own.long().cumsum(-1) - 1).masked_fill(~own, 1)
    return mask, positions


def _picker(
    sampling: dict[str, Any], warpers: LogitsProcessorList, seeds: Sequence[int], device: torch.device
) -> Callable[[torch.Tensor], torch.Tensor]:
    """Logits (B, V) -> each row's next token, picked as :func:`~.hf_generate.generate_rows` picks it."""
    sampler = PerRowSampler(warpers, seeds, device) if sampling.get("do_sample", False) else None

    def pick(logits: torch.Tensor) -> torch.Tensor:
        scores = logits.float()
        if sampler is not None:
            scores = sampler(torch.empty(0, dtype=torch.long), scores)  # type: ignore[arg-type]
        return torch.argmax(scores, dim=-1)

    return pick


__all__ = ["GRAPH_NEUTRAL", "GRAPH_TYPES", "GraphDecoder", "graph_refusal"]
