"""Benchmark: does a generate-mode run repeat itself, batched and per prompt, on this device?

Generate mode on one random 256x256 image x 25 scenarios x 4 orderings x 3 seeds (300 rows):
the per-prompt loop (``batch_size = 1``) twice, the batched path (``batch_size = 32``) twice,
for the tiny Qwen2-VL and the widened LLaVA-NeXT of ``bench_backend_hf.py --scale small``;
prints how many rows each repeat and the batched path agree on. The GPU figures in
BENCHMARKS.md come from ``python3 benchmarks/bench_repeat.py --device cuda --dtype bfloat16``.

Usage::

    .venv/bin/python benchmarks/bench_repeat.py [--device cpu|cuda] [--dtype float32|bfloat16]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from bench_backend_hf import backend_run, build_model, same_rows
from bench_images import make_images

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.inference.backends.base import StudyContext
from cueshift.study.scenarios import RELEASED_TEMPLATE


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    ap.add_argument("--dtype", default="float32", choices=["float32", "bfloat16"])
    args = ap.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="bench_repeat_"))
    scenarios = {s.scenario_id: s for s in STYLISTICBIAS_25}
    context = StudyContext(images=make_images(root, 1, 256), scenarios=scenarios, template=RELEASED_TEMPLATE)
    for arch, scale in (("qwen2_vl", "tiny"), ("llava_next", "small")):
        loaded = build_model(arch, scale)
        answers: dict[str, list[str]] = {}
        for name, batch_size in (("per prompt", 1), ("batched", 32)):
            first, again = (
                backend_run(loaded, context, args.device, args.dtype, mode="generate", batch_size=batch_size)
                for _ in range(2)
            )
            answers[name] = first[2]
            repeat = same_rows(first[2], again[2])
            print(f"{arch} {scale} {name}: a repeat equals {repeat} of {first[1]} rows")
        same = same_rows(answers["per prompt"], answers["batched"])
        print(f"{arch} {scale} batched vs per prompt: {same} of {len(answers['batched'])} rows")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
