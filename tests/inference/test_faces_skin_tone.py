"""Skin tone (CIELAB, ITA°) of faces found by the REAL MTCNN, against scikit-image's CIELAB."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from cueshift.inference.faces.skin_tone import ita_degrees, skin_lab, skin_mask, srgb_to_lab
from tests.inference.real_faces import astronaut

color = pytest.importorskip("skimage.color", reason="scikit-image (the 'faces' extra) is the reference")


def test_cielab_matches_scikit_image() -> None:
    rng = np.random.default_rng(3)
    pixels = rng.integers(0, 256, size=(64, 64, 3), dtype=np.uint8)
    np.testing.assert_allclose(srgb_to_lab(pixels), color.rgb2lab(pixels), atol=0.02)


@pytest.mark.parametrize(
    ("lightness", "b_star", "expected"),
    [(50.0, 20.0, 0.0), (60.0, 10.0, 45.0), (40.0, 10.0, -45.0), (75.0, 0.0, 90.0)],
)
def test_ita_by_hand(lightness: float, b_star: float, expected: float) -> None:
    assert ita_degrees(lightness, b_star) == pytest.approx(expected)


def test_the_skin_mask_leaves_out_eyes_and_mouth() -> None:
    landmarks = np.array([[40.0, 40.0], [60.0, 40.0], [50.0, 52.0], [42.0, 62.0], [58.0, 62.0]])
    mask = skin_mask((100, 100), landmarks)
    for x, y in landmarks[[0, 1, 3, 4]]:
        assert not mask[int(y), int(x)]
    assert mask[30, 50]  # forehead
    assert mask[52, 36] and mask[52, 64]  # cheeks beside the nose
    assert mask.sum() > 100


@pytest.mark.skipif(importlib.util.find_spec("facenet_pytorch") is None, reason="the 'faces' extra")
def _relit(photo: np.ndarray, shift: float) -> np.ndarray:
    """``photo`` with every pixel's L* moved by ``shift`` in scikit-image's CIELAB."""
    lab = color.rgb2lab(photo)
    lab[..., 0] += shift
    return np.asarray(np.clip(np.round(color.lab2rgb(lab) * 255), 0, 255), dtype=np.uint8)


# The lightening starts from the photo darkened by 12 L* first: the astronaut's light skin lightened
# further leaves the sRGB gamut (the red channel clips), which no editor's output can show.
@pytest.mark.parametrize(("start", "shift"), [(0.0, -8.0), (-12.0, 8.0)])
def test_a_planted_change_of_lightness_moves_ita_by_its_amount(start: float, shift: float) -> None:
    from cueshift.inference.faces.mtcnn import MTCNN

    photo = _relit(astronaut(), start) if start else astronaut()
    detector = MTCNN()
    base_face = detector.detect(photo)[0]
    lab = color.rgb2lab(photo)
    x0, y0, x1, y1 = (int(v) for v in base_face.box)
    lab[y0:y1, x0:x1, 0] += shift  # the face box's lightness, in scikit-image's CIELAB
    edited = np.clip(np.round(color.lab2rgb(lab) * 255), 0, 255).astype(np.uint8)
    # the expected change, from scikit-image's L* and b* of the base's skin with L* moved by the shift
    mask = skin_mask(photo.shape[:2], base_face.landmarks) & (lab[..., 0] - shift > 15)
    mean_l, mean_b = color.rgb2lab(photo)[..., 0][mask].mean(), color.rgb2lab(photo)[..., 2][mask].mean()
    expected = np.degrees(np.arctan((mean_l + shift - 50) / mean_b) - np.arctan((mean_l - 50) / mean_b))
    edited_faces = detector.detect(edited)
    assert len(edited_faces) == 1
    before = skin_lab(photo, base_face.landmarks)[2]
    after = skin_lab(edited, edited_faces[0].landmarks)[2]
    assert np.sign(after - before) == np.sign(shift)
    assert after - before == pytest.approx(expected, abs=1.0)
    assert abs(expected) > 5  # the plant is large enough to tell from the tolerance
