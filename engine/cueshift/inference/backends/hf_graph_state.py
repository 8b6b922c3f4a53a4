"""The fixed-shape buffers of :mod:`.hf_graph_decode`: one call shape's prefix copy, per-row suffix
buffers, mask, positions and write index, and the decoding step on them alone (graph-capturable:
no host synchronisation), replayed as a ``torch.cuda.CUDAGraph`` on CUDA."""

from __future__ import annotations

from typing import Any

import torch

from cueshift.errors import CueshiftError
from cueshift.inference.backends.hf_shared_attention import SharedPrefixLayer


def captures(tensor: torch.Tensor) -> bool:
    """Whether steps on ``tensor``'s device are captured as CUDA graphs (CUDA only)."""
    return tensor.device.type == "cuda"


class SuffixBufferLayer(SharedPrefixLayer):  # type: ignore[no-untyped-call]
    """One layer: the prefix (1, KV, P, d) and every row's suffix buffer (B, KV, W + N, d),
    written in place at the positions of a shared ``write_index`` tensor."""

    def __init__(self, prefix_keys: torch.Tensor, prefix_values: torch.Tensor, rows: int, width: int,
                 write_index: torch.Tensor) -> None:  # fmt: skip
        super().__init__(prefix_keys.clone(), prefix_values.clone(), prefix_keys.shape[2])
        kv, head_dim = prefix_keys.shape[1], prefix_keys.shape[3]
        self.point_at(
            prefix_keys.new_zeros(rows, kv, width, head_dim),
            prefix_values.new_zeros(rows, kv, width, prefix_values.shape[3]),
            write_index,
        )
        self.is_initialized = True

    def point_at(self, keys: torch.Tensor, values: torch.Tensor, write_index: torch.Tensor) -> None:
        """Write to and attend over ``keys``/``values`` at ``write_index`` from now on."""
        self.keys = self.key_buffer = keys
        self.values = self.value_buffer = values
        self.write_index = write_index

    def update(
        self, key_states: torch.Tensor, value_states: torch.Tensor, *args: Any, **kwargs: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        self.key_buffer.index_copy_(2, self.write_index, key_states)
        self.value_buffer.index_copy_(2, self.write_index, value_states)
        return self.mark_pending()


class GraphState:
    """Fixed-address buffers of one call shape (rows, prefix P, suffix width W, new tokens N)."""

    def __init__(self, model: Any, prefix: Any, rows: int, width: int, steps: int) -> None:
        from transformers.cache_utils import Cache

        self.model, self.width, self.steps = model, width, steps
        self.prefix_len = prefix.get_seq_length()
        device = model.device
        self.write_index = torch.zeros(1, dtype=torch.long, device=device)
        self.layers = [SuffixBufferLayer(layer.keys, layer.values, rows, width + steps, self.write_index)
                       for layer in prefix.layers]  # fmt: skip
        self.cache = Cache(layers=list(self.layers))
        self.tokens = torch.zeros(rows, 1, dtype=torch.long, device=device)
        self.positions = torch.zeros(rows, 1, dtype=torch.long, device=device)
        self.mask = torch.zeros(rows, 1, 1, self.prefix_len + width + steps, dtype=torch.bool, device=device)
        self.graph: Any = None
        self.logits: torch.Tensor | None = None

    def shape(self) -> tuple[int, int, int, int]:
        return self.tokens.shape[0], self.prefix_len, self.width, self.steps

    def load(self, prefix: Any) -> None:
        """Copy an image's prefix keys/values into the buffers (the addresses stay)."""
        for source, target in zip(prefix.layers, self.layers, strict=True):
            target.prefix_keys.copy_(source.keys)
            target.prefix_values.copy_(source.values)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        """The last position's logits of ``tokens`` (B, q) on the cache."""
        out = self.model(input_ids=tokens, attention_mask=mask, position_ids=positions, cache=self.cache,
                         use_cache=True, logits_to_keep=1)  # fmt: skip
        return out.logits[:, -1]  # type: ignore[no-any-return]

    def prefill(
        self, tokens: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor, rows: torch.Tensor
    ) -> torch.Tensor:
        """Run the D distinct suffixes (D, W) once, copy each to its rows (``rows``: the B rows'
        indices into D) at buffer positions 0..W-1, set the decoding buffers after them and return
        the B rows' last logits. Rows that differ only in their seed share one prefill."""
        at = torch.arange(tokens.shape[1], device=tokens.device)
        held = [(layer.key_buffer, layer.value_buffer) for layer in self.layers]
        for layer, (keys, values) in zip(self.layers, held, strict=True):
            shape = (tokens.shape[0], *keys.shape[1:])
            layer.point_at(keys.new_zeros(shape), values.new_zeros(*shape[:3], values.shape[3]), at)
        try:
            logits = self.forward(tokens, mask, positions)
            for layer, (keys, values) in zip(self.layers, held, strict=True):
                keys.copy_(layer.key_buffer.index_select(0, rows))
                values.copy_(layer.value_buffer.index_select(0, rows))
        finally:
            for layer, (keys, values) in zip(self.layers, held, strict=True):
                layer.point_at(keys, values, self.write_index)
        self.write_index.fill_(tokens.shape[1] - 1)
        self.positions.copy_(positions.index_select(0, rows)[:, -1:])
        self.mask.copy_(mask.index_select(0, rows)[:, :, -1:])
        return logits.index_select(0, rows)

    def step(self) -> torch.Tensor:
        """One decoding step on the buffers alone (no host synchronisation): graph-capturable."""
        self.positions.add_(1)
        self.write_index.add_(1)
        self.mask.index_fill_(-1, self.write_index + self.prefix_len, True)
        return self.forward(self.tokens, self.mask, self.positions)

    def replay(self) -> torch.Tensor:
        """:meth:`step`, as a CUDA graph on CUDA (captured on its second use), eagerly elsewhere."""
        if not captures(self.tokens):
            return self.step()
        if self.graph is None:
            if self.logits is None:  # first use: run eagerly on a side stream (warm-up)
                side = torch.cuda.Stream()  # type: ignore[no-untyped-call]
                side.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(side):
                    self.logits = self.step()
                torch.cuda.current_stream().wait_stream(side)
                return self.logits
            self.graph = torch.cuda.CUDAGraph()
            try:
                with torch.cuda.graph(self.graph):
                    self.logits = self.step()
            except RuntimeError as exc:  # an operation of this model that capture does not allow
                first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                raise CueshiftError(
                    f"cuda_graph: capturing the decoding step failed: {first}; set cuda_graph = false"
                ) from None
        self.graph.replay()
        assert self.logits is not None
        return self.logits


__all__ = ["GraphState", "SuffixBufferLayer", "captures"]
