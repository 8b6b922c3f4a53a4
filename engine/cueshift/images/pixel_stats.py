"""Image statistics of one picture: tone, colour, sharpness and framing, global and of the face region.

The edit audit compares these between a variation and its base (an edit should move none of
them beyond its cue); the probe design uses them as measured baselines of a face. Everything
is computed with numpy on the RGB pixels scaled to 0-1 (``R, G, B``):

* luma ``Y = 0.299 R + 0.587 G + 0.114 B`` (ITU-R BT.601);
* ``brightness = mean(Y)``, ``contrast = std(Y)`` (population standard deviation);
* opponent colour channels on a 0-1 scale (0.5 = balanced), ``red_green = mean((R - G) / 2 + 0.5)``
  and ``blue_yellow = mean((B - (R + G) / 2) / 2 + 0.5)`` (Poirson & Wandell-style opponent axes);
* ``saturation = mean((max - min) / max)`` per pixel (HSV saturation, 0 for black pixels);
* ``sharpness = var(∇²Y)``, the variance of the 4-neighbour Laplacian
  ``Y[i-1,j] + Y[i+1,j] + Y[i,j-1] + Y[i,j+1] - 4 Y[i,j]`` over interior pixels
  (Pech-Pacheco et al. 2000, "Diatom autofocusing in brightfield microscopy");
* framing: ``width``, ``height`` (pixels), ``aspect = width / height``, and the subject —
  the pixels whose largest channel difference from the background colour (the median of the
  one-pixel border) exceeds :data:`SUBJECT_TOLERANCE` — as ``subject_area`` (fraction of the
  image) and its centroid ``subject_cx``, ``subject_cy`` (fractions of width / height; 0.5
  when there is no subject).

The tone, colour and sharpness measures are repeated for the face region with the prefix
``face_``: the fractional box ``(x0, y0, x1, y1)`` of the image, by default
:data:`DEFAULT_FACE_BOX` = (0.2, 0.1, 0.8, 0.75), the head with ears and most hair styles of the
demo renderer's 96 x 96 portraits (head centred at (48, 42), half width 15-22 px, half height
22 px: pixels 19-77 across, 9-72 down). Other image sets set their own box (``[audit] face_box``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import polars as pl
from PIL import Image

from cueshift._types import F64
from cueshift.study.audit import DEFAULT_FACE_BOX

SUBJECT_TOLERANCE = 0.05  # largest channel difference (0-1) from the background colour still background
TONE_MEASURES: tuple[str, ...] = (
    "brightness",
    "contrast",
    "red_green",
    "blue_yellow",
    "saturation",
    "sharpness",
)
FRAMING_MEASURES: tuple[str, ...] = ("width", "height", "aspect", "subject_area", "subject_cx", "subject_cy")
PIXEL_MEASURES: tuple[str, ...] = (
    TONE_MEASURES + tuple(f"face_{name}" for name in TONE_MEASURES) + FRAMING_MEASURES
)


def read_rgb(path: Path) -> F64:
    """The pixels of ``path`` as an ``(height, width, 3)`` float array on 0-1 (alpha dropped)."""
    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"), dtype=np.float64) / 255.0


def tone_statistics(rgb: F64) -> dict[str, float]:
    """Brightness, contrast, colour balance, saturation and sharpness of ``rgb`` (module docstring)."""
    red, green, blue = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    luma = 0.299 * red + 0.587 * green + 0.114 * blue
    high, low = rgb.max(axis=2), rgb.min(axis=2)
    saturation = np.divide(high - low, high, out=np.zeros_like(high), where=high > 0)
    if luma.shape[0] >= 3 and luma.shape[1] >= 3:
        laplacian = (
            luma[:-2, 1:-1] + luma[2:, 1:-1] + luma[1:-1, :-2] + luma[1:-1, 2:] - 4.0 * luma[1:-1, 1:-1]
        )
        sharpness = float(laplacian.var())
    else:
        sharpness = 0.0
    return {
        "brightness": float(luma.mean()),
        "contrast": float(luma.std()),
        "red_green": float(((red - green) / 2.0 + 0.5).mean()),
        "blue_yellow": float(((blue - (red + green) / 2.0) / 2.0 + 0.5).mean()),
        "saturation": float(saturation.mean()),
        "sharpness": sharpness,
    }


def framing_statistics(rgb: F64) -> dict[str, float]:
    """Size, aspect and the subject's area and centroid against the border's colour (module docstring)."""
    height, width = rgb.shape[0], rgb.shape[1]
    border = np.concatenate([rgb[0], rgb[-1], rgb[:, 0], rgb[:, -1]])
    background = np.median(border, axis=0)
    subject = np.abs(rgb - background).max(axis=2) > SUBJECT_TOLERANCE
    area = float(subject.mean())
    if subject.any():
        rows, cols = np.nonzero(subject)
        cx, cy = float((cols.mean() + 0.5) / width), float((rows.mean() + 0.5) / height)
    else:
        cx = cy = 0.5
    return {
        "width": float(width),
        "height": float(height),
        "aspect": width / height,
        "subject_area": area,
        "subject_cx": cx,
        "subject_cy": cy,
    }


def face_crop(rgb: F64, face_box: tuple[float, float, float, float]) -> F64:
    """The pixels inside the fractional box ``(x0, y0, x1, y1)`` (at least one pixel each way)."""
    height, width = rgb.shape[0], rgb.shape[1]
    x0, y0, x1, y1 = face_box
    if not (0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0):
        raise ValueError(
            f"face box {face_box} is not (x0, y0, x1, y1) with 0 <= x0 < x1 <= 1, 0 <= y0 < y1 <= 1"
        )
    left, top = min(int(x0 * width), width - 1), min(int(y0 * height), height - 1)
    right, bottom = max(int(np.ceil(x1 * width)), left + 1), max(int(np.ceil(y1 * height)), top + 1)
    return rgb[top:bottom, left:right]


def pixel_statistics(
    path: Path, *, face_box: tuple[float, float, float, float] = DEFAULT_FACE_BOX
) -> dict[str, float]:
    """Every measure of :data:`PIXEL_MEASURES` for the image at ``path``.

    Parameters
    ----------
    path
        Any image PIL reads; converted to RGB.
    face_box
        The face region as fractions ``(x0, y0, x1, y1)`` of width and height.

    Returns
    -------
    dict[str, float]
        Measure name to value, in the order of :data:`PIXEL_MEASURES`.
    """
    return statistics_of(read_rgb(path), face_box=face_box)


def statistics_of(
    rgb: F64, *, face_box: tuple[float, float, float, float] = DEFAULT_FACE_BOX
) -> dict[str, float]:
    """:func:`pixel_statistics` of pixels already read (:func:`read_rgb`)."""
    face = {f"face_{name}": value for name, value in tone_statistics(face_crop(rgb, face_box)).items()}
    merged = tone_statistics(rgb) | face | framing_statistics(rgb)
    return {name: merged[name] for name in PIXEL_MEASURES}


def pixel_frame(
    paths: Sequence[Path], *, face_box: tuple[float, float, float, float] = DEFAULT_FACE_BOX
) -> pl.DataFrame:
    """:func:`pixel_statistics` of every path: column ``path`` (str), then one Float64 column per measure."""
    rows = [pixel_statistics(Path(path), face_box=face_box) for path in paths]
    columns: dict[str, pl.Series] = {
        "path": pl.Series("path", [str(path) for path in paths], dtype=pl.String)
    }
    for name in PIXEL_MEASURES:
        columns[name] = pl.Series(name, [row[name] for row in rows], dtype=pl.Float64)
    return pl.DataFrame(columns)


def changed_pixel_fraction(base: Path, variation: Path) -> float:
    """The fraction of pixels whose RGB value differs between two images (1.0 when their sizes differ)."""
    return changed_fraction_of(read_rgb(base), read_rgb(variation))


def changed_fraction_of(base: npt.NDArray[np.generic], variation: npt.NDArray[np.generic]) -> float:
    """:func:`changed_pixel_fraction` of two ``(height, width, channels)`` arrays already read."""
    if base.shape != variation.shape:
        return 1.0
    return float((base != variation).any(axis=2).mean())


__all__ = [
    "DEFAULT_FACE_BOX",
    "FRAMING_MEASURES",
    "PIXEL_MEASURES",
    "SUBJECT_TOLERANCE",
    "TONE_MEASURES",
    "changed_fraction_of",
    "changed_pixel_fraction",
    "face_crop",
    "framing_statistics",
    "pixel_frame",
    "pixel_statistics",
    "read_rgb",
    "statistics_of",
    "tone_statistics",
]
