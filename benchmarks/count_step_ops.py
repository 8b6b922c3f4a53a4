"""Operations the host dispatches to judge one image, shared-prefix ``generate`` against the CUDA-graph step.

Issue 34's profile (BENCHMARKS.md) found shared-prefix decoding bound by the host: every tensor
operation is a Python call and a kernel launch, ~100k launches for one image's 300 prompts. This
counts, on the CPU, the operations each path dispatches (torch's dispatcher sees every one; the
count does not depend on widths, so the 7 B model's 32 layers at test widths give the real count),
leaving out those that only make a view (no kernel). With ``cuda_graph = true`` the operations inside
:meth:`GraphState.step` run as one graph replay on CUDA, so the launches there are the rest plus one
per replay. A count, not a rate: what it saves in seconds is for a GPU run to say.

Usage (from the repository root)::

    PYTHONPATH=engine:benchmarks .venv/bin/python benchmarks/count_step_ops.py [--layers 32] [--batch 300]
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import torch
import transformers
from bench_backend_hf_7b import TEXT_SMOKE, _rows, build_7b
from bench_images import make_images
from torch.utils._python_dispatch import TorchDispatchMode

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.inference.backends import hf_graph_state
from cueshift.inference.backends.base import StudyContext
from cueshift.inference.backends.hf import TransformersBackend
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import RELEASED_TEMPLATE

#: operations that return a view or metadata: no kernel on CUDA
VIEWS = {
    "aten.view", "aten._unsafe_view", "aten.transpose", "aten.permute", "aten.unsqueeze", "aten.squeeze",
    "aten.slice", "aten.select", "aten.expand", "aten.t", "aten.alias", "aten.as_strided", "aten.detach",
    "aten.split", "aten.unbind", "aten.reshape", "aten.empty", "aten.lift_fresh", "aten.sym_size",
}  # fmt: skip


class Counted(TorchDispatchMode):
    """Counts kernel-launching operations, and those inside :meth:`GraphState.step` apart."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: Counter[str] = Counter()
        self.in_step = False

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        name = str(func.overloadpacket)
        if name not in VIEWS:
            self.ops["step" if self.in_step else "host"] += 1
        return func(*args, **(kwargs or {}))


def count(loaded: Any, images: dict[str, Any], **settings: Any) -> Counter[str]:
    """Operations of judging ``images`` (every scenario x ordering x 3 seeds) with ``settings``."""
    context = StudyContext(
        images=images, scenarios={s.scenario_id: s for s in STYLISTICBIAS_25}, template=RELEASED_TEMPLATE
    )
    cfg = ModelConfig(model_id="count", backend="transformers", checkpoint="in-memory", settings=settings)
    backend = TransformersBackend(cfg, context, loaded=loaded)
    real_step = hf_graph_state.GraphState.step
    counter = Counted()

    def step(state: Any) -> Any:
        counter.in_step = True
        counter.ops["replays"] += 1
        try:
            return real_step(state)
        finally:
            counter.in_step = False

    hf_graph_state.GraphState.step = step  # type: ignore[method-assign]
    try:
        with counter:
            backend.judge(_rows(images, [1, 2, 3]))
    finally:
        hf_graph_state.GraphState.step = real_step  # type: ignore[method-assign]
    return counter.ops


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=32, help="text layers (the 7 B model's 32)")
    ap.add_argument("--batch", type=int, default=300, help="rows per call (300: one image's prompts)")
    ap.add_argument("--max-new-tokens", type=int, default=16)
    args = ap.parse_args(argv)
    transformers.utils.logging.set_verbosity_error()
    TEXT_SMOKE["num_hidden_layers"] = args.layers
    loaded = build_7b(torch.float32, "cpu", smoke=True)
    images = make_images(Path(tempfile.mkdtemp(prefix="count_ops_")), 1, 512)
    run = {"device": "cpu", "dtype": "float32", "mode": "generate", "batch_size": args.batch,
           "max_new_tokens": args.max_new_tokens, "temperature": 1.0}  # fmt: skip
    shared = count(loaded, images, **run)
    graph = count(loaded, images, **run, cuda_graph=True)
    launches = graph["host"] + graph["replays"]
    print(f"one 512x512 image, 300 judgments, {args.layers} layers, batch {args.batch}, "
          f"{args.max_new_tokens} new tokens (no early end at T = 1)")  # fmt: skip
    print("| path | kernel-launching operations | of them in the decoding steps |")
    print("|---|---:|---:|")
    print(f"| shared prefix, `generate` | {shared['host']:,} | - |")
    eager = graph["host"] + graph["step"]
    print(f"| shared prefix, fixed-shape step, eager (CPU) | {eager:,} | {graph['step']:,} |")
    print(f"| same, step replayed as a CUDA graph | {launches:,} | {graph['replays']} (one per replay) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
