"""Random RGB images as base-image records: the inputs of the Transformers backend benchmarks
(``bench_backend_hf.py`` and its 7 B part ``bench_backend_hf_7b.py``), shared here so neither
script imports the other's module for them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image

from cueshift.inference.backends.base import ImageRecord


def make_images(root: Path, n: int, size: int) -> dict[str, ImageRecord]:
    """Write ``n`` random ``size`` × ``size`` PNGs under ``root`` (seeded: the same every run).

    Returns
    -------
    dict[str, ImageRecord]
        ``img0``, ``img1``, … → a base-image record of each (identity ``id0``, ``id1``, …).
    """
    rng = np.random.default_rng(0)
    out = {}
    for i in range(n):
        path = root / f"img{i}.png"
        Image.fromarray(rng.integers(0, 255, (size, size, 3), dtype=np.uint8)).save(path)
        out[f"img{i}"] = ImageRecord(
            f"img{i}", f"id{i}", path, "base", None, None, None, "face", None, None, None, None
        )
    return out
