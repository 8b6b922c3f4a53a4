"""Small SYNTHETIC folders in the One Million Impressions layout (OMI's own files are CC BY-NC-SA
and never part of the repository): ``images/<n>.jpg`` and ``attribute_ratings.csv`` with
``stimulus, attribute, rating, rating_type``, ratings on OMI's 0-100 slider scale."""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image


def write_omi(
    root: Path,
    *,
    n_images: int = 12,
    extra_stimuli: Sequence[int] = (1005, 1006),
    attributes: Sequence[str] = ("trustworthy", "happy", "age", "gender"),
    raters: int = 8,
    rating_types: Sequence[str] = ("attribute",),
    consistency: float = 0.8,
    seed: int = 0,
) -> Path:
    """Write an OMI-layout folder; each stimulus × attribute cell gets ``raters`` ratings per type.

    A rating is ``50 + 30 * (sqrt(c) * latent + sqrt(1 - c) * noise)`` clipped to 0-100, with a
    latent value per stimulus × attribute, so the split-half reliability grows with ``c``.
    Stimuli in ``extra_stimuli`` are rated but have no image (OMI's ratings go beyond its images).
    """
    rng = np.random.default_rng(seed)
    images = root / "images"
    images.mkdir(parents=True, exist_ok=True)
    for number in range(1, n_images + 1):
        colour = tuple(int(v) for v in rng.integers(0, 256, size=3))
        Image.new("RGB", (16, 16), colour).save(images / f"{number}.jpg", quality=90)
    stimuli = [*range(1, n_images + 1), *extra_stimuli]
    with (root / "attribute_ratings.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["stimulus", "attribute", "rating", "rating_type"])
        for stimulus in stimuli:
            for attribute in attributes:
                latent = rng.normal()
                for rating_type in rating_types:
                    noise = rng.normal(size=raters)
                    values = 50 + 30 * (np.sqrt(consistency) * latent + np.sqrt(1 - consistency) * noise)
                    for value in np.clip(values, 0, 100):
                        writer.writerow([stimulus, attribute, f"{value:.2f}", rating_type])
    return root
