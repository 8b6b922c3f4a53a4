"""``bench_backend_hf.py --scale 7b``: the transformers backend on a random model of real size (CUDA only).

The model is a random LLaVA-NeXT (LLaVA-v1.6-Mistral's class) with Mistral-7B's text shape
(hidden 4096, 32 layers, 32 heads, 8 KV heads, intermediate 14336, vocab 32064) and a
CLIP-L/336 vision tower (hidden 1024, 24 layers, patch 14, image 336) with LLaVA-NeXT's
any-resolution tiling (pinpoints up to 672x672: a base view and 4 tiles of 24x24 patches, about
2,000+ image tokens per prompt). It is built directly on the GPU in the target dtype (default
dtype and device set while the modules are created: no float32 CPU copy). Per image it measures:

- the image prefix (vision tower + prefill of the shared prompt start), seconds, warm (after one
  untimed image), and the processor's host time per image before it;
- score mode, prompts/s (each prompt's answer distribution; x3 judgments-equivalent);
- generate mode, judgments/s at each ``--batches`` size: the batched path with the image prefix's
  cache copied per row (dynamic cache), the static cache, and the static cache with compiled
  decoding (``--compile-batches``); and shared-prefix decoding (one copy of the prefix for all
  rows, cascade attention; ``--shared-batches``, default 128, 256, 300: 300 is one image's prompts),
  also with its decoding step on fixed-shape buffers replayed as a CUDA graph (``shared+graph``);
- the release protocol (processor + ``generate`` per prompt, 4 new tokens) on ``--release-prompts``
  prompts;
- the weight-reading bound: a decoding step reads every text-model weight once,
  :math:`t_\\text{step} \\ge W / B` (W bytes of weights, B bytes/s of memory bandwidth), so a batch
  of b rows and s steps is at most :math:`b / (s \\, t_\\text{step})` judgments/s; with the cache
  read too, :math:`t_\\text{step} \\ge (W + b \\, K) / B` (K bytes of one row's cache); with ONE
  shared prefix read per step (shared-prefix decoding), :math:`t_\\text{step} \\ge (W + K_P + b \\,
  K_S) / B` (:math:`K_P` the prefix's cache once, :math:`K_S` a row's own suffix and new tokens);
- the compute bound: every text-model FLOP of an image at ``--flops`` (its prefix once, each
  judgment's suffix and new tokens, and their attention to the prefix), judgments/s; for
  ``shared+graph``, which prefills a prompt's suffix once for its 3 seeds, a third of the suffixes.

``--smoke`` runs the same code on the CPU in float32 with the vision tower and text model shrunk
to test widths (2 layers; the token counts stay real), one image, a few batch sizes: a check that
the script runs, not a measurement.

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
from cueshift.inference.backends.hf_batch_size import CallOutOfMemory
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
#: ``--smoke``: the same classes and token counts at test widths (the CPU, seconds)
TEXT_SMOKE = {
    **TEXT_7B,
    "hidden_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "intermediate_size": 128,
}
CLIP_SMOKE = {
    **CLIP_L_336,
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "projection_dim": 32,
}
#: LLaVA-v1.6's any-resolution grid
PINPOINTS = [[336, 672], [672, 336], [672, 672], [1008, 336], [336, 1008]]
MISTRAL = ChatTemplate("<s>", "[INST] ", "<image>\n", " [/INST]", "", "</s>")
#: judgments of one image in generate mode (25 scenarios x 4 orderings x 3 seeds)
PER_IMAGE = 300
CSV_COLUMNS = COLUMNS  # the cost model's table (cueshift.power.throughput)


def build_7b(dtype: torch.dtype, device: str = "cuda", *, smoke: bool = False) -> tuple[Any, Any]:
    """The random 7 B LLaVA-NeXT and its processor, created on ``device`` in ``dtype`` (``smoke``:
    at test widths)."""
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
        vision_config=CLIPVisionConfig(**(CLIP_SMOKE if smoke else CLIP_L_336)),
        text_config=MistralConfig(**(TEXT_SMOKE if smoke else TEXT_7B), **ids),
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


def kv_token_bytes(model: Any) -> int:
    """Bytes of one token's keys and values over all text layers."""
    return row_bytes(model, 1) - row_bytes(model, 0)


def _sync() -> None:
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def suffix_mean(processor: Any, images: dict[str, Any]) -> float:
    """Mean suffix length (tokens after the shared prefix) of one image's 100 prompts."""
    prompts = [o.render(RELEASED_TEMPLATE, s) for s in STYLISTICBIAS_25 for o in ORDERINGS]
    record = next(iter(images.values()))
    with Image.open(record.path) as im:
        enc = encode_image(processor, im.convert("RGB"), prompts)
    return sum(len(x) for x in enc.suffix_ids) / len(enc.suffix_ids)


def bounds(model: Any, args: argparse.Namespace, batch: int, prefix: int, suffix: float) -> dict[str, float]:
    """Judgments/s bounds of generate mode at ``batch`` rows (see the module docstring)."""
    weights, kv, steps = text_weight_bytes(model), kv_token_bytes(model), args.max_new_tokens
    text = model.config.text_config
    own = suffix + steps  # a row's own tokens
    step = lambda extra: steps * (weights + extra) / args.bandwidth  # noqa: E731
    head_dim = text.hidden_size // text.num_attention_heads
    attention = 4 * text.num_hidden_layers * text.num_attention_heads * head_dim  # FLOPs per query x key
    params = weights / model.dtype.itemsize
    flops = 2 * params * (prefix / PER_IMAGE + own) + attention * (
        prefix * prefix / 2 / PER_IMAGE + own * (prefix + own / 2)
    )
    # shared+graph prefills a prompt's suffix once for its 3 seeds
    once = 2 * params * suffix * (1 - 1 / 3) + attention * suffix * (prefix + suffix / 2) * (1 - 1 / 3)
    return {
        "compute": args.flops / flops,
        "compute_once": args.flops / (flops - once),
        "weights": batch / step(0),
        "copied": batch / step(batch * kv * (prefix + own)),
        "shared": batch / step(kv * prefix + batch * kv * own),
    }


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
            if self.gpu == "cpu smoke":
                return  # a check that the script runs: no rate for the cost model
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
    _sync()
    return done / (time.perf_counter() - t0)


def prefix_seconds(
    model: Any, processor: Any, warm: dict[str, Any], images: dict[str, Any]
) -> tuple[float, float, int]:
    """Mean seconds of one image's processor call and of its prefix pass (vision tower + prefill)
    over ``images``, after one untimed pass over ``warm`` (first-call kernel loads and allocations
    are not a per-image cost), and the prefix's length in tokens."""
    prompts = [o.render(RELEASED_TEMPLATE, STYLISTICBIAS_25[0]) for o in ORDERINGS]
    encode, total, length = 0.0, 0.0, 0
    for timing, record in [(False, r) for r in warm.values()] + [(True, r) for r in images.values()]:
        t0 = time.perf_counter()
        with Image.open(record.path) as im:
            enc = encode_image(processor, im.convert("RGB"), prompts)
        t1 = time.perf_counter()
        _sync()
        t2 = time.perf_counter()
        prefix_cache(model, enc)
        _sync()
        if timing:
            encode, total = encode + t1 - t0, total + time.perf_counter() - t2
        length = len(enc.prefix_ids)
    return encode / len(images), total / len(images), length


#: ``--smoke``: small settings of every measure (one image, short answers)
SMOKE = {"images": 1, "size": 256, "batches": [32], "compile_batches": [], "shared_batches": [64, 300],
         "release_prompts": 2, "max_new_tokens": 4, "dtype": "float32"}  # fmt: skip


def variants(args: argparse.Namespace) -> list[tuple[int, str, dict[str, Any]]]:
    """``(batch, cache, settings)`` of every generate-mode run ``args`` asks for (``--variants``)."""
    copied = {"shared_prefix_attention": False}
    graphed = {"shared_prefix_attention": True, "cuda_graph": True}
    runs = [  # first, side by side at each batch size
        (b, cache, extra)
        for b in args.shared_batches
        for cache, extra in (("shared+graph", graphed), ("shared", {"shared_prefix_attention": True}))
    ]
    runs += [(b, "static", {"static_cache": True}) for b in args.batches]
    runs += [(b, "dynamic", copied) for b in args.batches]
    runs += [(b, "static+compile", {"static_cache": True, "compile": True}) for b in args.compile_batches]
    return [run for run in runs if run[1] in args.variants]


def run_7b(args: argparse.Namespace) -> int:
    """Measure every rate (see the module docstring); write the markdown and the CSV."""
    if args.smoke:
        vars(args).update(SMOKE)
    elif not torch.cuda.is_available():
        print("bench_backend_hf.py --scale 7b needs a CUDA device (torch sees none)", file=sys.stderr)
        return 2
    transformers.utils.logging.set_verbosity_error()
    # ``timeout`` (gpu_check.sh) sends SIGTERM: exit through ``finally`` so the markdown is written
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))
    dtype = getattr(torch, args.dtype)
    device = "cpu" if args.smoke else "cuda"
    gpu = "cpu smoke" if args.smoke else torch.cuda.get_device_name(0)
    t0 = time.perf_counter()
    model, processor = build_7b(dtype, device, smoke=args.smoke)
    _sync()
    built = time.perf_counter() - t0
    weights = text_weight_bytes(model)
    rec = Recorder(args.csv, gpu, args.dtype)
    prefix_len, suffix = 0, 0.0
    root = Path(tempfile.mkdtemp(prefix="bench_hf_7b_"))
    lines: list[str] = []
    try:
        (root / "warm").mkdir()
        warm = make_images(root / "warm", 1, args.size)
        images = make_images(root, args.images, args.size)
        run = {"device": device, "dtype": args.dtype, "max_new_tokens": args.max_new_tokens}
        encode_s, prefix_s, prefix_len = prefix_seconds(model, processor, warm, images)
        suffix = suffix_mean(processor, images)
        note = (
            f"({1e3 * prefix_s:.0f} ms per image: vision tower + prefill of {prefix_len} tokens, warm; "
            f"before it the processor (tiling, tokenising) on the host: {1e3 * encode_s:.0f} ms)"
        )
        rec.add("image prefix, images/s", "prefix", 1, "", 1.0 / prefix_s, note)
        if "score" in args.variants:
            seconds, rows = timed((model, processor), warm, images, **run, mode="score", batch_size=32)
            rec.add("score mode, prompts (x3 = judgments-equivalent)", "score", 32, "shared", rows / seconds)
        if "release" in args.variants:
            rec.add("release protocol (subset, 4 new tokens)", "release", 1, "", release_subset(
                model, processor, images, args.release_prompts))  # fmt: skip
        for batch, cache, extra in variants(args):
            settings = {**run, "mode": "generate", "batch_size": batch, **extra}
            label = f"generate mode, batch {batch}, {cache} cache"
            try:
                seconds, rows = timed((model, processor), warm, images, **settings)
            except (torch.OutOfMemoryError, CallOutOfMemory):
                rec.add(label, "generate", batch, cache, 0.0, "(out of memory)")
                torch.cuda.empty_cache()
                continue
            rate = rows / seconds
            bound = bounds(model, args, batch, prefix_len, suffix)
            read = bound["shared" if cache.startswith("shared") else "copied"]
            compute = bound["compute_once" if cache == "shared+graph" else "compute"]
            note = (
                f"(compute bound {compute:,.0f}/s: {compute / rate:.1f}x away; "
                f"weight-reading bound {bound['weights']:,.0f}/s; with the "
                f"{'one shared prefix' if cache.startswith('shared') else 'per-row caches'} read "
                f"{read:,.0f}/s: {read / rate:.1f}x away)"
            )
            rec.add(label, "generate", batch, cache, rate, note)
    finally:
        shutil.rmtree(root, ignore_errors=True)
        from cueshift.inference.backends import hf_cascade

        lines = [
            f"## transformers backend at 7 B, {gpu} ({args.dtype}; `bench_backend_hf.py --scale 7b`"
            f"{' --smoke' if args.smoke else ''})",
            "",
            f"Random LLaVA-NeXT, {'test widths' if args.smoke else 'Mistral-7B text shape + CLIP-L/336'} "
            f"any-resolution tower "
            f"({sum(p.numel() for p in model.parameters()) / 1e9:.2f} B parameters, "
            f"built in {built:.0f} s), "
            f"{args.images} random {args.size}x{args.size} images x 25 scenarios x 4 orderings "
            f"(x 3 seeds in generate mode), prefix {prefix_len} tokens, suffix {suffix:.1f} tokens "
            f"on average, "
            f"at most {args.max_new_tokens} new tokens (random weights: never an early end), "
            f"torch {torch.__version__}, transformers {transformers.__version__}, {dt.date.today()}. "
            f"Weight-reading bound: {weights / 1e9:.1f} GB of text weights / {args.bandwidth:.2g} B/s "
            f"= {1e3 * weights / args.bandwidth:.2f} ms per decoding step; compute bound at "
            f"{args.flops:.3g} FLOP/s; shared-prefix kernels: "
            f"{'fused (torch flash / memory-efficient)' if hf_cascade.FUSED_PREFIX else 'matrix products'}.",
            "",
            "| measure | per s | note |",
            "|---|---:|---|",
            *[f"| {a} | {b} | {c} |" for a, b, c in rec.rows],
        ]
        if args.markdown_out is not None:
            args.markdown_out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0
