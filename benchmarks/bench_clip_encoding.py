"""CLIP encoders one input per forward pass (D50) against chunks of 64 (before D50).

Times the tiny CLIP stand-in's encoders on the demo images (float32, CPU, one thread: the
machine is shared) both ways, the largest difference between the two embeddings of an image
(what made the stored scores depend on the batcher), and ``studies/tiny-clip.toml`` run end
to end on the CPU with the current code. Run::

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_clip_encoding.py --out BENCHMARKS.md
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path

import duckdb
import numpy as np
import torch
from bench_markdown import replace_section
from PIL import Image

from cueshift.designs import load_study
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.inference.stand_ins.tiny_clip import build_tiny_clip

START, END = "<!-- bench_clip_encoding:start -->", "<!-- bench_clip_encoding:end -->"
STUDY = Path(__file__).resolve().parents[1] / "studies" / "tiny-clip.toml"
CHUNK = 64


def encode(
    model: torch.nn.Module, processor: object, paths: list[Path], chunk: int
) -> tuple[float, np.ndarray]:
    """Seconds and features of ``paths`` encoded ``chunk`` images per processor call and forward pass."""
    rows, started = [], time.perf_counter()
    for start in range(0, len(paths), chunk):
        pictures = []
        for path in paths[start : start + chunk]:
            with Image.open(path) as img:
                pictures.append(img.convert("RGB"))
        pixels = processor(images=pictures, return_tensors="pt")["pixel_values"]  # type: ignore[operator]
        with torch.inference_mode():
            out = model.get_image_features(pixel_values=pixels)  # type: ignore[operator]
        rows.append(getattr(out, "pooler_output", out).numpy())
    return time.perf_counter() - started, np.concatenate(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the table into this markdown file")
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        study_path = Path(tmp) / "tiny-clip.toml"
        demo = Path(tmp, "demo").as_posix()
        text = STUDY.read_text().replace('device = "auto"', 'device = "cpu"')
        text = text.replace('size = "small"', f'size = "small"\ncache_dir = "{demo}"')
        study_path.write_text(f'database = "{Path(tmp, "tiny-clip.duckdb").as_posix()}"\n{text}')
        study = load_study(study_path)
        run_study(study, RunOptions(progress=False, limit=0))  # renders the demo images once
        started = time.perf_counter()
        summary = run_study(study, RunOptions(progress=False))
        study_seconds = time.perf_counter() - started
        with duckdb.connect(str(summary.database), read_only=True) as con:
            (n_images,) = con.execute("SELECT count(DISTINCT image_id) FROM judgment").fetchone() or (0,)
        paths = sorted(Path(demo).rglob("*.png"))[:600]
        model, processor = build_tiny_clip(seed=0)
        model.eval()  # type: ignore[no-untyped-call]
        single_s, single = encode(model, processor, paths, 1)
        chunked_s, chunked = encode(model, processor, paths, CHUNK)
    gap = float(np.abs(single - chunked).max())
    extra = (single_s - chunked_s) / len(paths) * n_images
    lines = [
        START,
        "## CLIP encoders: one input per forward pass (D50) vs chunks (`bench_clip_encoding.py`)",
        "",
        f"`OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_clip_encoding.py --out BENCHMARKS.md` "
        f"({platform.machine()}, Python {platform.python_version()}, torch {torch.__version__}, one thread, "
        f"shared machine). The tiny random CLIP stand-in, float32 on the CPU, {len(paths)} demo images "
        "(open, preprocess, image features).",
        "",
        "| images per forward pass | ms per image |",
        "|---|---|",
        f"| 1 (D50) | {1000 * single_s / len(paths):.2f} |",
        f"| {CHUNK} (before D50) | {1000 * chunked_s / len(paths):.2f} |",
        "",
        f"Largest difference between an image's features encoded alone and in a chunk: {gap:.1e}. "
        f"`studies/tiny-clip.toml` end to end (device cpu, {summary.n_written:,} judgments, images "
        f"rendered beforehand): {study_seconds:.1f} s, of which encoding its {n_images:,} images alone "
        f"costs about {extra:.1f} s more than in chunks. Not measured on a GPU (none lent), where a "
        "batch of one leaves more of the device idle.",
        END,
        "",
    ]
    section = "\n".join(lines)
    print(section)
    if args.out:
        replace_section(args.out, section, START, END)


if __name__ == "__main__":
    main()
