"""Pixel statistics on real PNG files against values computed by hand."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from PIL import Image

from cueshift.images import PIXEL_MEASURES, pixel_frame, pixel_statistics
from cueshift.images.pixel_stats import changed_pixel_fraction


def _png(path: Path, pixels: np.ndarray) -> Path:
    Image.fromarray(pixels.astype(np.uint8), "RGB").save(path)
    return path


def _gray(value: int, height: int, width: int) -> np.ndarray:
    return np.full((height, width, 3), value, dtype=np.uint8)


def test_uniform_grey(tmp_path: Path) -> None:
    stats = pixel_statistics(_png(tmp_path / "g.png", _gray(128, 12, 16)))
    assert list(stats) == list(PIXEL_MEASURES)
    assert stats["brightness"] == pytest.approx(128 / 255)
    assert stats["face_brightness"] == pytest.approx(128 / 255)
    for name in ("contrast", "saturation", "sharpness", "subject_area", "face_sharpness"):
        assert stats[name] == pytest.approx(0.0, abs=1e-12), name
    assert stats["red_green"] == pytest.approx(0.5) and stats["blue_yellow"] == pytest.approx(0.5)
    assert (stats["width"], stats["height"]) == (16.0, 12.0) and stats["aspect"] == pytest.approx(16 / 12)
    assert (stats["subject_cx"], stats["subject_cy"]) == (0.5, 0.5)


def test_half_black(tmp_path: Path) -> None:
    pixels = _gray(255, 4, 8)
    pixels[:, :4] = 0  # left half black
    stats = pixel_statistics(_png(tmp_path / "h.png", pixels))
    assert stats["brightness"] == pytest.approx(0.5)
    assert stats["contrast"] == pytest.approx(0.5)  # population std of half 0, half 1
    # interior rows: Laplacian 0, 0, +1 (last black column), -1 (first white), 0, 0 -> variance 2/6
    assert stats["sharpness"] == pytest.approx(1 / 3)


def test_pure_red_colour_balance(tmp_path: Path) -> None:
    pixels = np.zeros((5, 5, 3), dtype=np.uint8)
    pixels[..., 0] = 255
    stats = pixel_statistics(_png(tmp_path / "r.png", pixels))
    assert stats["brightness"] == pytest.approx(0.299)
    assert stats["red_green"] == pytest.approx(1.0)  # (1 - 0) / 2 + 0.5
    assert stats["blue_yellow"] == pytest.approx(0.25)  # (0 - 0.5) / 2 + 0.5
    assert stats["saturation"] == pytest.approx(1.0)


def test_known_blur_lowers_sharpness_by_the_hand_computed_factor(tmp_path: Path) -> None:
    checker = (np.indices((10, 10)).sum(axis=0) % 2).astype(float)  # 0/1 checkerboard
    sharp = pixel_statistics(_png(tmp_path / "s.png", np.repeat(checker[..., None] * 255, 3, axis=2)))
    assert sharp["sharpness"] == pytest.approx(16.0)  # Laplacian +-4 everywhere
    # a 3 x 3 box blur of the (periodic) checkerboard: 4/9 on the 0 cells, 5/9 on the 1 cells
    blurred = np.where(checker == 1, 142, 113)  # round(255 * 5/9), round(255 * 4/9)
    soft = pixel_statistics(_png(tmp_path / "b.png", np.repeat(blurred[..., None], 3, axis=2)))
    assert soft["sharpness"] == pytest.approx((4 * 29 / 255) ** 2)


def test_subject_area_and_centroid_against_the_border_colour(tmp_path: Path) -> None:
    pixels = _gray(255, 10, 20)
    pixels[3:7, 2:6] = (200, 30, 30)  # a 4 x 4 subject at columns 2-5, rows 3-6
    stats = pixel_statistics(_png(tmp_path / "f.png", pixels))
    assert stats["subject_area"] == pytest.approx(16 / 200)
    assert stats["subject_cx"] == pytest.approx(4 / 20)  # mean column 3.5, pixel centre +0.5
    assert stats["subject_cy"] == pytest.approx(5 / 10)
    assert stats["aspect"] == pytest.approx(2.0)


def test_face_box_reads_only_its_region(tmp_path: Path) -> None:
    pixels = _gray(255, 10, 10)
    pixels[:5, :5] = 0
    path = _png(tmp_path / "q.png", pixels)
    stats = pixel_statistics(path, face_box=(0.0, 0.0, 0.5, 0.5))
    assert stats["face_brightness"] == pytest.approx(0.0)
    assert stats["brightness"] == pytest.approx(0.75)
    with pytest.raises(ValueError, match="face box"):
        pixel_statistics(path, face_box=(0.5, 0.0, 0.2, 1.0))


def test_pixel_frame_and_changed_pixels(tmp_path: Path) -> None:
    a = _png(tmp_path / "a.png", _gray(10, 10, 10))
    changed = _gray(10, 10, 10)
    changed[0, :3] = 11
    b = _png(tmp_path / "b.png", changed)
    frame = pixel_frame([a, b])
    assert frame.columns == ["path", *PIXEL_MEASURES]
    assert frame.schema["path"] == pl.String
    assert all(frame.schema[name] == pl.Float64 for name in PIXEL_MEASURES)
    assert frame["path"].to_list() == [str(a), str(b)]
    assert changed_pixel_fraction(a, b) == pytest.approx(0.03)
    assert changed_pixel_fraction(a, a) == 0.0
    assert changed_pixel_fraction(a, _png(tmp_path / "c.png", _gray(10, 5, 10))) == 1.0
