"""Real photographs of people that install offline, for the face-model tests (no hub, no download).

- ``astronaut()``: scikit-image's ``skimage.data.astronaut()`` (Eileen Collins, NASA, public domain);
- ``grace_hopper()``: matplotlib's sample ``grace_hopper.jpg`` (US Navy photograph, public domain).

Each skips its test with the reason when the package holding it is not installed.
"""

from __future__ import annotations

import io

import numpy as np
import numpy.typing as npt
import pytest
from PIL import Image

RGB = npt.NDArray[np.uint8]


def astronaut() -> RGB:
    """Eileen Collins (512 x 512 RGB)."""
    data = pytest.importorskip("skimage.data", reason="scikit-image (the 'faces' extra) holds the photo")
    return np.asarray(data.astronaut(), dtype=np.uint8)


def grace_hopper() -> RGB:
    """Grace Hopper (600 x 512 RGB): a second, different person."""
    cbook = pytest.importorskip("matplotlib.cbook", reason="matplotlib (the 'report' extra) holds the photo")
    with cbook.get_sample_data("grace_hopper.jpg") as handle, Image.open(handle) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)


def jpeg(rgb: RGB, quality: int) -> RGB:
    """``rgb`` through a JPEG of ``quality``."""
    buffer = io.BytesIO()
    Image.fromarray(rgb).save(buffer, format="JPEG", quality=quality)
    buffer.seek(0)
    with Image.open(buffer) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8)


def resized(rgb: RGB, factor: float) -> RGB:
    """``rgb`` scaled by ``factor`` (Lanczos)."""
    size = (round(rgb.shape[1] * factor), round(rgb.shape[0] * factor))
    return np.asarray(Image.fromarray(rgb).resize(size, Image.Resampling.LANCZOS), dtype=np.uint8)
