"""Where a shared-prefix generate call spends its time on a GPU (issue 34's next step).

Builds the 7 B benchmark model (``bench_backend_hf_7b.build_7b``: random LLaVA-NeXT, Mistral-7B text
shape, CLIP-L/336 any-resolution tower), judges one image's 300 prompts once to warm up, then once
under ``torch.profiler`` and prints: wall seconds, GPU-busy seconds (sum of kernel times), the
top operators by GPU time and by CPU time, and the kernel-launch count. A GPU busy for a small
share of the wall time means the decoding step is bound by the host (Python and launches), not by
the GPU's arithmetic or memory.

Usage (a CUDA machine; from the repository root)::

    PYTHONPATH=engine:benchmarks python3 benchmarks/profile_shared_prefix.py --batch 300 --graph 1 --out p.txt
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import torch
import transformers
from bench_backend_hf_7b import _rows, build_7b
from bench_images import make_images
from torch.profiler import ProfilerActivity, profile

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.inference.backends.base import StudyContext
from cueshift.inference.backends.hf import TransformersBackend
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import RELEASED_TEMPLATE


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=300)
    ap.add_argument("--shared", type=int, default=1, help="1: shared-prefix decoding, 0: per-row copies")
    ap.add_argument("--graph", type=int, default=0, help="1: the decoding step replayed as a CUDA graph")
    ap.add_argument("--max-new-tokens", type=int, default=16)
    ap.add_argument("--out", type=Path, help="also write the report here")
    args = ap.parse_args(argv)
    if not torch.cuda.is_available():
        print("profile_shared_prefix.py needs a CUDA device", file=sys.stderr)
        return 2
    transformers.utils.logging.set_verbosity_error()
    model, processor = build_7b(torch.bfloat16, "cuda")
    root = Path(tempfile.mkdtemp(prefix="prof_shared_"))
    (root / "warm").mkdir()
    warm, images = make_images(root / "warm", 1, 512), make_images(root, 1, 512)
    scenarios = {s.scenario_id: s for s in STYLISTICBIAS_25}
    context = StudyContext(images=warm | images, scenarios=scenarios, template=RELEASED_TEMPLATE)
    settings = {
        "device": "cuda", "dtype": "bfloat16", "mode": "generate", "batch_size": args.batch,
        "max_new_tokens": args.max_new_tokens, "shared_prefix_attention": bool(args.shared),
        "cuda_graph": bool(args.graph),
    }  # fmt: skip
    cfg = ModelConfig(model_id="prof", backend="transformers", checkpoint="in-memory", settings=settings)
    backend = TransformersBackend(cfg, context, loaded=(model, processor))
    seeds = [1, 2, 3]
    backend.judge(_rows(warm, seeds))
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        t0 = time.perf_counter()
        answers = backend.judge(_rows(images, seeds))
        torch.cuda.synchronize()
        wall = time.perf_counter() - t0
    backend.close()
    events = prof.key_averages()
    gpu_us = sum(e.self_device_time_total for e in events)
    launches = sum(e.count for e in events if e.key.startswith("cudaLaunchKernel"))
    rows = len(answers.response_text)
    lines = [
        f"rows {rows}, wall {wall:.3f} s, {rows / wall:.1f} rows/s, GPU busy {gpu_us / 1e6:.3f} s "
        f"({100 * gpu_us / 1e6 / wall:.0f} % of wall), kernel launches {launches}",
        "== top by GPU time ==",
        events.table(sort_by="self_device_time_total", row_limit=20, max_name_column_width=60),
        "== top by CPU time ==",
        events.table(sort_by="self_cpu_time_total", row_limit=20, max_name_column_width=60),
    ]
    report = "\n".join(lines)
    print(report)
    if args.out:
        args.out.write_text(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
