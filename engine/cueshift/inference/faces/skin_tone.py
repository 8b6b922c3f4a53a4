r"""Skin tone of a detected face: CIELAB and the individual typology angle (ITA°).

The pixels go from sRGB (0-255) to CIE XYZ (D65, IEC 61966-2-1 linearisation) and to CIELAB with the
D65 white ``(0.95047, 1, 1.08883)``. The individual typology angle (Chardon et al. 1991) of the
skin region's mean :math:`L^*` and :math:`b^*` is

.. math:: \mathrm{ITA} = \arctan\left(\frac{L^* - 50}{b^*}\right) \frac{180}{\pi},

higher for lighter skin (> 55° very light, < -30° dark, Del Bino & Bernerd 2013). The skin region
comes from the five landmarks (:mod:`.detection`): with :math:`e` the distance between the eye
centres and :math:`d` the vector from the eyes' midpoint to the mouth's, two cheek ellipses
(centred at each eye + 0.6 d, moved 0.1 e outwards, radius 0.2 e) and a forehead ellipse (centred
at the eyes' midpoint - 0.45 |d| along d, radii 0.4 e across and 0.12 e along d). They leave out
the eyes, the nose's ridge and the mouth; pixels darker than L* 15 or lighter than L* 98 (shadow,
glare) are dropped.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from cueshift._types import F64

#: The D65 reference white of CIELAB (CIE 1931 2°).
D65_WHITE = np.array([0.95047, 1.0, 1.08883])
_RGB_TO_XYZ = np.array(
    [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750], [0.0193339, 0.1191920, 0.9503041]]
)
MIN_SKIN_PIXELS = 20


def srgb_to_lab(rgb: npt.NDArray[np.generic]) -> F64:
    """CIELAB ``(..., 3)`` of sRGB pixels on 0-255.

    >>> np.round(srgb_to_lab(np.array([255, 255, 255])), 2)
    array([100.,   0.,   0.])
    """
    c = np.asarray(rgb, dtype=np.float64) / 255.0
    linear = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    xyz = linear @ _RGB_TO_XYZ.T / D65_WHITE
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1
    )


def ita_degrees(lightness: float, b_star: float) -> float:
    """ITA° of a mean ``L*`` and ``b*`` (module docstring).

    >>> round(ita_degrees(65.0, 15.0), 6)
    45.0
    """
    return float(np.degrees(np.arctan2(lightness - 50.0, b_star)))


def skin_mask(shape: tuple[int, int], landmarks: F64) -> npt.NDArray[np.bool_]:
    """The cheek and forehead pixels (module docstring) of an image of ``shape`` (height, width)."""
    eyes, mouth = landmarks[:2], landmarks[3:5]
    eye_mid, mouth_mid = eyes.mean(axis=0), mouth.mean(axis=0)
    e = float(np.linalg.norm(eyes[1] - eyes[0]))
    d = mouth_mid - eye_mid
    length = float(np.linalg.norm(d)) or 1.0
    down = d / length
    across = np.array([down[1], -down[0]]) * np.sign(np.dot([down[1], -down[0]], eyes[1] - eyes[0]) or 1.0)
    ys, xs = np.mgrid[0 : shape[0], 0 : shape[1]]
    points = np.stack([xs, ys], axis=-1).astype(np.float64) + 0.5

    def ellipse(centre: F64, r_across: float, r_down: float) -> npt.NDArray[np.bool_]:
        rel = points - centre
        u, v = rel @ across / r_across, rel @ down / r_down
        return np.asarray(u * u + v * v <= 1.0)

    mask = ellipse(eye_mid - 0.45 * length * down, 0.4 * e, 0.12 * e)
    for eye, side in ((eyes[0], -1.0), (eyes[1], 1.0)):
        centre = eye + 0.6 * d + side * 0.1 * e * across
        mask |= ellipse(centre, 0.2 * e, 0.2 * e)
    return mask


def skin_lab(rgb: npt.NDArray[np.uint8], landmarks: F64) -> tuple[float, float, float, int]:
    """``(mean L*, mean b*, ITA°, skin pixels)`` of the face whose landmarks are given (NaN: too few)."""
    lab = srgb_to_lab(rgb[..., :3])
    mask = skin_mask((rgb.shape[0], rgb.shape[1]), landmarks)
    mask &= (lab[..., 0] > 15.0) & (lab[..., 0] < 98.0)
    n = int(mask.sum())
    if n < MIN_SKIN_PIXELS:
        return float("nan"), float("nan"), float("nan"), n
    lightness, b_star = float(lab[..., 0][mask].mean()), float(lab[..., 2][mask].mean())
    return lightness, b_star, ita_degrees(lightness, b_star), n


__all__ = ["D65_WHITE", "MIN_SKIN_PIXELS", "ita_degrees", "skin_lab", "skin_mask", "srgb_to_lab"]
