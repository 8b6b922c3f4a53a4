"""Shared look of a demo face: the fixed appearance, colours, head geometry and the dome shape.

A :class:`Look` fixes everything about one face (skin tone, hair, build, age marks); a
variation image is the same look with exactly one cue drawn or changed. Randomness comes
only from ``random.Random`` instances seeded by the face seed and a tag, so an image
does not depend on the order in which images are drawn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from PIL import ImageDraw

RENDERER_VERSION = "2"  # bump whenever a drawing changes: cached images are redrawn
FACE_SIZE: tuple[int, int] = (96, 96)
BODY_SIZE: tuple[int, int] = (96, 160)

RGB = tuple[int, int, int]
WHITE: RGB = (255, 255, 255)
SKIN_BY_ETHNICITY: dict[str, RGB] = {
    "Asian": (234, 198, 160), "African": (124, 84, 58), "European": (240, 206, 186),
    "Middle Eastern": (206, 160, 122), "Latino": (198, 148, 108),
}  # fmt: skip
HAIR_COLORS: dict[str, RGB] = {
    "Black": (28, 24, 22), "Brown": (104, 64, 34), "Blonde": (226, 194, 120),
    "Red": (176, 62, 30), "Gray": (165, 165, 165),
}  # fmt: skip
#: Base hair colours: natural shades none of which is a named colour, so that every hair_color
#: variation changes the hair (a base drawn in a named colour made that cue a null edit).
BASE_HAIR_EUROPEAN: tuple[RGB, ...] = ((112, 70, 38), (218, 184, 112), (70, 44, 26), (42, 33, 28))
BASE_HAIR_OTHER: tuple[RGB, ...] = ((42, 33, 28), (50, 34, 24), (70, 44, 26))
#: Base hair lengths, none of them a hair_length value (whose cue would then change nothing):
#: a close crop for men, chin or shoulder length for women.
BASE_HAIR_LENGTHS_FEMALE: tuple[str, ...] = ("Chin", "Shoulder")
#: Lower edge of the back hair below the head centre, per length with back hair.
HAIR_BOTTOM: dict[str, int] = {"Medium": 12, "Chin": 24, "Shoulder": 36, "Long": 48}
UNNATURAL_HAIR: tuple[RGB, ...] = ((40, 110, 230), (230, 60, 170), (60, 190, 90), (140, 60, 210))
HEAD_HALF_WIDTH = {"thin": 15, "normal": 18, "obese": 22}
BUILD_HALF_WIDTH = {"thin": 13, "normal": 16, "obese": 23}


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """Linear blend ``(1 - t) * a + t * b``."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


@dataclass(frozen=True)
class Look:
    """Everything that identifies one demo face (the identity held fixed)."""

    seed: int
    gender: str
    age: str
    body_type: str
    skin: RGB
    hair: RGB
    hair_length: str  # base: 'Cropped' | 'Chin' | 'Shoulder'; cue: 'Bald' | 'Short' | 'Medium' | 'Long'
    hair_style: str | None
    eye: RGB
    shirt: RGB
    unnatural_hair: RGB

    def rng(self, tag: str) -> random.Random:
        """A generator private to this face and ``tag`` (a cue), independent of drawing order."""
        return random.Random(f"{self.seed}:{tag}")


def base_look(seed: int, age: str, gender: str, ethnicity: str, body_type: str) -> Look:
    """Draw the fixed appearance of a face from its seed and demographics."""
    rng = random.Random(seed)
    shade = rng.uniform(-14, 14)
    base_skin = SKIN_BY_ETHNICITY.get(ethnicity, (210, 170, 140))
    r, g, b = (max(0, min(255, round(c + shade + rng.uniform(-4, 4)))) for c in base_skin)
    skin: RGB = (r, g, b)
    if ethnicity == "European":
        hair = rng.choice(BASE_HAIR_EUROPEAN)
        eye = rng.choice([(70, 110, 160), (80, 120, 70), (90, 60, 35)])
    else:
        hair = rng.choice(BASE_HAIR_OTHER)
        eye = rng.choice([(60, 40, 25), (90, 60, 35)])
    gray = {"middle-aged adult": 0.35, "elderly": 0.85}.get(age, 0.0)
    hair = mix(hair, (205, 205, 205), gray)
    length = "Cropped" if gender == "male" else rng.choice(BASE_HAIR_LENGTHS_FEMALE)
    shirt = rng.choice([(70, 90, 140), (150, 60, 60), (60, 120, 90), (110, 110, 120), (180, 150, 90)])
    return Look(
        seed, gender, age, body_type, skin, hair, length, None, eye, shirt, rng.choice(UNNATURAL_HAIR)
    )


@dataclass(frozen=True)
class Head:
    """Head geometry on a canvas: centre, half width and half height."""

    cx: int
    cy: int
    hw: int  # half width
    hh: int  # half height

    @property
    def box(self) -> tuple[int, int, int, int]:
        return (self.cx - self.hw, self.cy - self.hh, self.cx + self.hw, self.cy + self.hh)

    @property
    def eye_y(self) -> int:
        return self.cy - 3

    def eye_xs(self) -> tuple[int, int]:
        dx = round(self.hw * 0.42)
        return self.cx - dx, self.cx + dx

    @property
    def mouth_y(self) -> int:
        return self.cy + 12


def dome(d: ImageDraw.ImageDraw, head: Head, hairline: int, color: RGB, pad: int = 2, lift: int = 4) -> None:
    """A hair (or hat) dome over the head whose lower edge sits at ``hairline``."""
    top = head.cy - head.hh - lift
    d.chord((head.cx - head.hw - pad, top, head.cx + head.hw + pad, 2 * hairline - top), 180, 360, fill=color)
