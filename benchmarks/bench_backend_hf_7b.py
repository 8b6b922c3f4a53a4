"""``bench_backend_hf.py --scale 7b``: the transformers backend on a random model of real size (CUDA only).

The model is a random LLaVA-NeXT (LLaVA-v1.6-Mistral's class) with Mistral-7B's text shape
(hidden 4096, 32 layers, 32 heads, 8 KV heads, intermediate 14336, vocab 32064) and a
CLIP-L/336 vision tower (hidden 1024, 24 layers, patch 14, image 336) with LLaVA-NeXT's
any-resolution tiling (pinpoints up to 672x672: a base view and 4 tiles of 24x24 patches, about
2,000+ image tokens per prompt). It is built directly on the GPU in the target dtype (default
dtype and device set while the modules are created: no float32 CPU copy). Per image it measures:

- the image prefix (vision tower + prefill of the shared prompt start), seconds;
- score mode, prompts/s (each prompt's answer distribution; x3 judgments-equivalent);
- generate mode, judgments/s at each ``--batches`` size: the batched path of today (dynamic
  cache), the static cache, and the static cache with compiled decoding (``--compile-batches``);
- the release protocol (processor + ``generate`` per prompt, 4 new tokens) on ``--release-prompts``
  prompts;
- the weight-reading bound: a decoding step reads every text-model weight once,
  :math:`t_\\text{step} \\ge W / B` (W bytes of weights, B bytes/s of memory bandwidth), so a batch
  of b rows and s steps is at most :math:`b / (s \\, t_\\text{step})` judgments/s; with the cache
  read too, :math:`t_\\text{step} \\ge (W + b \\, K) / B` (K bytes of one row's cache).

Every rate goes to ``--csv`` (the cost model's table, :mod:`cueshift.power.throughput`) as soon as
it is measured, so a run cut short keeps what it measured.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import polars as pl
import torch
import transformers
from bench_images import make_images
from PIL import Image

from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.inference.backends.base import StudyContext
from cueshift.inference.backends.hf import TransformersBackend
from cueshift.inference.backends.hf_prompts import chat_text, encode_image
from cueshift.inference.backends.hf_score import prefix_cache
from cueshift.inference.backends.hf_static import row_bytes
from cueshift.inference.stand_ins.tiny_parts import ChatTemplate, build_tokenizer
from cueshift.power.throughput import COLUMNS
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import ORDERINGS, RELEASED_TEMPLATE

TEXT_7B = {
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "intermediate_size": 14336,
    "vocab_size": 32064,
    "max_position_embeddings": 32768,
}
CLIP_L_336 = {
    "hidden_size": 1024,
    "intermediate_size": 4096,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "image_size": 336,
    "patch_size": 14,
    "projection_dim": 768,
}
#: LLaVA-v1.6's any-resolution grid
PINPOINTS = [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]]
MISTRAL = ChatTemplate("<s>", "[INST] ", "<image>\n", " [/INST]", "", "</s>")
#: where the model is built and run (the CPU only in the benchmark's own dry run, shrunk)
DEVICE = "cuda"
CSV_COLUMNS = COLUMNS  # the cost model's table (cueshift.power.throughput)


def build_7b(dtype: torch.dtype, device: str = "cuda") -> tuple[Any, Any]:
    """The random 7 B LLaVA-NeXT and its processor, created on ``device`` in ``dtype``."""
    from transformers import (
        CLIPVisionConfig,
        LlavaNextConfig,
        LlavaNextForConditionalGeneration,
        LlavaNextImageProcessorPil,
        LlavaNextProcessor,
        MistralConfig,
    )

    tok = build_tokenizer({"image_token": "<image>"}, ["[INST]", "[/INST]"], whole_answers=True, bos="<s>")
    image_processor = LlavaNextImageProcessorPil(
        size={"shortest_edge": 336}, crop_size={"height": 336, "width": 336}, image_grid_pinpoints=PINPOINTS
    )
    processor = LlavaNextProcessor(
        image_processor,
        tok,
        patch_size=14,
        vision_feature_select_strategy="default",
        num_additional_image_tokens=1,
        chat_template=MISTRAL.jinja(),
    )
    ids = {
        "pad_token_id": tok.pad_token_id,
        "eos_token_id": tok.eos_token_id,
        "bos_token_id": tok.bos_token_id,
    }
    config = LlavaNextConfig(
        vision_config=CLIPVisionConfig(**CLIP_L_336),
        text_config=MistralConfig(**TEXT_7B, **ids),
        image_token_index=tok.image_token_id,
        image_grid_pinpoints=PINPOINTS,
        vision_feature_layer=-2,
        image_seq_length=576,
    )
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = LlavaNextForConditionalGeneration(config)
    finally:
        torch.set_default_dtype(default)
    return model.eval(), processor


def text_weight_bytes(model: Any) -> int:
    """Bytes of the weights one decoding step reads (text model and output head; not the vision tower)."""
    vision = {id(p) for p in model.model.vision_tower.parameters()}
    vision |= {id(p) for p in model.model.multi_modal_projector.parameters()}
    return sum(p.numel() * p.element_size() for p in model.parameters() if id(p) not in vision)


class Recorder:
    """Rates as CSV rows (written at once) and as markdown table rows."""

    def __init__(self, path: Path | None, gpu: str, dtype: str) -> None:
        self.path, self.gpu, self.dtype = path, gpu, dtype
        self.rows: list[list[str]] = []
        if path is not None and not path.exists():
            with path.open("w", newline="") as f:
                csv.writer(f).writerow(CSV_COLUMNS)

    def add(self, label: str, mode: str, batch: int, cache: str, rate: float, note: str = "") -> None:
        self.rows.append([label, f"{rate:,.1f}", note])
        print(f"{label}: {rate:,.1f}/s {note}", file=sys.stderr, flush=True)
        if self.path is not None and rate > 0:
            source = f"bench_backend_hf.py --scale 7b ({self.gpu}, torch {torch.__version__})"
            row = [self.gpu, "7b", mode, self.dtype, batch, cache, f"{rate:.1f}", source, dt.date.today()]
            with self.path.open("a", newline="") as f:
                csv.writer(f).writerow(row)


def _rows(images: dict[str, Any], seeds: list[int]) -> pl.DataFrame:
    rows = [
        (i, s.scenario_id, o.ordering, k)
        for i in images
        for s in STYLISTICBIAS_25
        for o in ORDERINGS
        for k in seeds
    ]
    schema = {"image_id": pl.String, "scenario_id": pl.String, "ordering": pl.Int32, "seed": pl.Int32}
    return pl.DataFrame(rows, schema=schema, orient="row")


def timed(loaded: Any, warm: dict[str, Any], images: dict[str, Any], **settings: Any) -> tuple[float, int]:
    """Seconds and rows of judging ``images`` (every scenario x ordering, x 3 seeds in generate mode)
    after a warm-up on ``warm``, with ONE backend: its static cache and compiled step are reused."""
    scenarios = {s.scenario_id: s for s in STYLISTICBIAS_25}
    context = StudyContext(images=warm | images, scenarios=scenarios, template=RELEASED_TEMPLATE)
    cfg = ModelConfig(model_id="bench", backend="transformers", checkpoint="in-memory", settings=settings)
    backend = TransformersBackend(cfg, context, loaded=loaded)
    seeds = [0] if backend.deterministic else [1, 2, 3]
    try:
        backend.judge(_rows(warm, seeds))  # first-call allocations, kernels, compilation
        batch = _rows(images, seeds)
        t0 = time.perf_counter()
        answers = backend.judge(batch)  # answers are read back to the host: the device is synchronised
        return time.perf_counter() - t0, len(answers.response_text)
    finally:
        backend.close()  # frees the static cache (the model stays)


def release_subset(model: Any, processor: Any, images: dict[str, Any], n: int) -> float:
    """Prompts/s of the release protocol: processor + ``generate`` per prompt, 4 new tokens."""
    prompts = [o.render(RELEASED_TEMPLATE, s) for s in STYLISTICBIAS_25 for o in ORDERINGS][:n]
    done, t0 = 0, time.perf_counter()
    for record in images.values():
        with Image.open(record.path) as im:
            image = im.convert("RGB")
        for seed, prompt in enumerate(prompts):
            inputs = processor(text=[chat_text(processor, prompt)], images=[image], return_tensors="pt")
            inputs = inputs.to(model.device, dtype=model.dtype)
            torch.manual_seed(seed)
            with torch.inference_mode():
                model.generate(**inputs, do_sample=True, temperature=0.2, max_new_tokens=4, min_new_tokens=4)
            done += 1
    torch.cuda.synchronize()
    return done / (time.perf_counter() - t0)


def prefix_seconds(model: Any, processor: Any, images: dict[str, Any]) -> tuple[float, int]:
    """Mean seconds of one image's prefix pass, and its length in tokens."""
    prompts = [o.render(RELEASED_TEMPLATE, STYLISTICBIAS_25[0]) for o in ORDERINGS]
    total, length = 0.0, 0
    for record in images.values():
        with Image.open(record.path) as im:
            enc = encode_image(processor, im.convert("RGB"), prompts)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        prefix_cache(model, enc)
        torch.cuda.synchronize()
        total += time.perf_counter() - t0
        length = len(enc.prefix_ids)
    return total / len(images), length


def run_7b(args: argparse.Namespace) -> int:
    """Measure every rate (see the module docstring); write the markdown and the CSV."""
    if not torch.cuda.is_available():
        print("bench_backend_hf.py --scale 7b needs a CUDA device (torch sees none)", file=sys.stderr)
        return 2
    transformers.utils.logging.set_verbosity_error()
    # ``timeout`` (gpu_check.sh) sends SIGTERM: exit through ``finally`` so the markdown is written
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    dtype = getattr(torch, args.dtype)
    gpu = torch.cuda.get_device_name(0)
    t0 = time.perf_counter()
    model, processor = build_7b(dtype, DEVICE)
    torch.cuda.synchronize()
    built = time.perf_counter() - t0
    weights = text_weight_bytes(model)
    rec = Recorder(args.csv, gpu, args.dtype)
    prefix_len = 0
    root = Path(tempfile.mkdtemp(prefix="bench_hf_7b_"))
    lines: list[str] = []
    try:
        (root / "warm").mkdir()
        warm = make_images(root / "warm", 1, args.size)
        images = make_images(root, args.images, args.size)
        run = {"device": DEVICE, "dtype": args.dtype, "max_new_tokens": args.max_new_tokens}
        prefix_s, prefix_len = prefix_seconds(model, processor, warm | images)
        note = f"({1e3 * prefix_s:.0f} ms per image: vision tower + prefill of {prefix_len} tokens)"
        rec.add("image prefix, images/s", "prefix", 1, "", 1.0 / prefix_s, note)
        seconds, rows = timed((model, processor), warm, images, **run, mode="score", batch_size=32)
        rec.add("score mode, prompts (x3 = judgments-equivalent)", "score", 32, "dynamic", rows / seconds)
        rec.add("release protocol (subset, 4 new tokens)", "release", 1, "", release_subset(
            model, processor, images, args.release_prompts))  # fmt: skip
        variants = [(b, "dynamic", {}) for b in args.batches]
        variants += [(b, "static", {"static_cache": True}) for b in args.batches]
        variants += [
            (b, "static+compile", {"static_cache": True, "compile": True}) for b in args.compile_batches
        ]
        for batch, cache, extra in variants:
            settings = {**run, "mode": "generate", "batch_size": batch, **extra}
            try:
                seconds, rows = timed((model, processor), warm, images, **settings)
            except torch.OutOfMemoryError:
                rec.add(
                    f"generate mode, batch {batch}, {cache} cache",
                    "generate",
                    batch,
                    cache,
                    0.0,
                    "(out of memory)",
                )
                torch.cuda.empty_cache()
                continue
            rate = rows / seconds
            kv = row_bytes(model, prefix_len + 64 + args.max_new_tokens)
            bound = batch / (args.max_new_tokens * weights / args.bandwidth)
            bound_kv = batch / (args.max_new_tokens * (weights + batch * kv) / args.bandwidth)
            note = (
                f"(weight-reading bound {bound:,.0f}/s: {bound / rate:.1f}x away; "
                f"with the cache read {bound_kv:,.0f}/s)"
            )
            rec.add(f"generate mode, batch {batch}, {cache} cache", "generate", batch, cache, rate, note)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        lines = [
            f"## transformers backend at 7 B, {gpu} ({args.dtype}; `bench_backend_hf.py --scale 7b`)",
            "",
            f"Random LLaVA-NeXT, Mistral-7B text shape + CLIP-L/336 any-resolution tower "
            f"({sum(p.numel() for p in model.parameters()) / 1e9:.2f} B parameters, "
            f"built on the GPU in {built:.0f} s), "
            f"{args.images} random {args.size}x{args.size} images x 25 scenarios x 4 orderings "
            f"(x 3 seeds in generate mode), prefix {prefix_len} tokens, "
            f"at most {args.max_new_tokens} new tokens (random weights: never an early end), "
            f"torch {torch.__version__}, transformers {transformers.__version__}, {dt.date.today()}. "
            f"Weight-reading bound: {weights / 1e9:.1f} GB of text weights / {args.bandwidth:.2g} B/s "
            f"= {1e3 * weights / args.bandwidth:.2f} ms per decoding step.",
            "",
            "| measure | per s | note |",
            "|---|---:|---|",
            *[f"| {a} | {b} | {c} |" for a, b, c in rec.rows],
        ]
        if args.markdown_out is not None:
            args.markdown_out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0
