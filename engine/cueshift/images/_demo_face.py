"""Head-and-shoulders demo images (96 x 96): a base face, or the face with one cue drawn (the
cues: :mod:`._demo_cues`)."""

from __future__ import annotations

from dataclasses import replace

from PIL import Image, ImageDraw

from cueshift.images._demo_cues import _OVERLAYS, _eyewear, _headwear, _scarf_color
from cueshift.images._demo_look import (
    BUILD_HALF_WIDTH,
    FACE_SIZE,
    HAIR_BOTTOM,
    HAIR_COLORS,
    HEAD_HALF_WIDTH,
    WHITE,
    Head,
    Look,
    dome,
    mix,
)


def draw_face(look: Look, key: str | None, value: str | None) -> Image.Image:
    """The base face (``key`` None) or the face with the cue ``key = value``."""
    if key == "hair_color" and value:
        look = replace(look, hair=look.unnatural_hair if value == "Unnatural" else HAIR_COLORS[value])
    elif key == "hair_length" and value:
        look = replace(look, hair_length=value, hair_style=None)
    elif key == "hair_style" and value:
        look = replace(look, hair_style=value)
    img = Image.new("RGB", FACE_SIZE, WHITE)
    d = ImageDraw.Draw(img)
    head = Head(48, 42, HEAD_HALF_WIDTH.get(look.body_type, 18), 22)
    covered = key == "accessories" and value == "Headscarf"
    if covered:
        d.ellipse(
            (head.cx - head.hw - 7, head.cy - head.hh - 7, head.cx + head.hw + 7, head.cy + head.hh + 8),
            fill=_scarf_color(look),
        )
    else:
        _hair_back(d, look, head)
    shoulder = BUILD_HALF_WIDTH.get(look.body_type, 16) + 20
    d.rounded_rectangle((48 - shoulder, 78, 48 + shoulder, 120), radius=16, fill=look.shirt)
    neck = 7 if look.body_type != "obese" else 10
    d.rectangle((48 - neck, head.cy + head.hh - 8, 48 + neck, 82), fill=mix(look.skin, (0, 0, 0), 0.08))
    d.ellipse((head.cx - head.hw - 3, head.eye_y, head.cx - head.hw + 3, head.cy + 9), fill=look.skin)  # ears
    d.ellipse((head.cx + head.hw - 3, head.eye_y, head.cx + head.hw + 3, head.cy + 9), fill=look.skin)
    d.ellipse(head.box, fill=look.skin)
    if look.body_type == "obese":
        d.arc(
            (head.cx - 12, head.cy + head.hh - 8, head.cx + 12, head.cy + head.hh + 3),
            20,
            160,
            fill=mix(look.skin, (0, 0, 0), 0.2),
        )
    _features(d, look, head, key, value)
    _age_marks(d, look, head)
    if key in _OVERLAYS and value:
        _OVERLAYS[key](d, look, head, value)
    if not covered:
        _hair_front(d, look, head)
    if key == "accessories" and value:
        _headwear(d, look, head, value)
    if key == "eyewear" and value:
        _eyewear(d, head, value)
    return img


def _hair_back(d: ImageDraw.ImageDraw, look: Look, head: Head) -> None:
    cx, cy, hw, hh = head.cx, head.cy, head.hw, head.hh
    style, hair = look.hair_style, look.hair
    if style == "Afro":
        d.ellipse((cx - hw - 13, cy - hh - 15, cx + hw + 13, cy + 8), fill=hair)
    elif style == "Ponytail":
        d.ellipse((cx + hw - 4, cy - 12, cx + hw + 8, cy + 24), fill=hair)
    elif style == "Braid":
        for k in range(6):
            d.ellipse(
                (cx + hw - 3, cy - 8 + 7 * k, cx + hw + 6, cy + 7 * k),
                fill=hair,
                outline=mix(hair, WHITE, 0.3),
            )
    elif style == "Bun":
        d.ellipse((cx - 8, cy - hh - 13, cx + 8, cy - hh + 2), fill=hair)
    elif style is None and look.hair_length in HAIR_BOTTOM:
        bottom = cy + HAIR_BOTTOM[look.hair_length]
        d.rounded_rectangle((cx - hw - 5, cy - hh - 3, cx + hw + 5, bottom), radius=12, fill=hair)


def _hair_front(d: ImageDraw.ImageDraw, look: Look, head: Head) -> None:
    style, hair, cx, top = look.hair_style, look.hair, head.cx, head.cy - head.hh
    if look.hair_length == "Bald" and style is None:
        d.ellipse((cx - 7, top + 3, cx + 1, top + 7), fill=mix(look.skin, WHITE, 0.45))  # scalp shine
        return
    if style == "Buzz cut":
        dome(d, head, head.cy - 13, mix(hair, look.skin, 0.5), pad=0, lift=0)
        return
    if style == "Mohawk":
        dome(d, head, head.cy - 13, mix(hair, look.skin, 0.8), pad=0, lift=0)
        d.polygon([(cx - 4, top + 12), (cx - 3, top - 11), (cx + 3, top - 11), (cx + 4, top + 12)], fill=hair)
        return
    hairline = head.cy - 15 if style == "Slicked back" else head.cy - 11
    if look.hair_length == "Cropped" and style is None:  # the base's close crop: thinner than Short
        dome(d, head, hairline, hair, pad=1, lift=1)
        return
    dome(d, head, hairline, hair)
    if style == "Slicked back":
        for k in (-6, 0, 6):
            d.arc((cx + k - 5, top - 2, cx + k + 5, top + 12), 200, 330, fill=mix(hair, WHITE, 0.45))
    elif style == "Messy":
        rng = look.rng("messy")
        spikes = [(cx - head.hw - 2 + 4 * k, top - rng.randint(2, 8)) for k in range(head.hw // 2 + 2)]
        for x, y in spikes:
            d.polygon([(x - 3, top + 4), (x + rng.randint(-2, 2), y), (x + 3, top + 4)], fill=hair)


def _age_marks(d: ImageDraw.ImageDraw, look: Look, head: Head) -> None:
    line = mix(look.skin, (60, 30, 20), 0.35)
    cx, top = head.cx, head.cy - head.hh
    if look.age in ("middle-aged adult", "elderly"):
        d.line((cx - 7, top + 13, cx + 7, top + 13), fill=line)
    if look.age == "elderly":
        d.line((cx - 8, top + 10, cx + 8, top + 10), fill=line)
        for ex in head.eye_xs():
            side = 1 if ex > cx else -1
            d.line((ex + side * 5, head.eye_y - 1, ex + side * 7, head.eye_y - 3), fill=line)
            d.line((ex + side * 5, head.eye_y + 1, ex + side * 7, head.eye_y + 3), fill=line)
        d.line((cx - 6, head.cy + 6, cx - 8, head.cy + 13), fill=line)
        d.line((cx + 6, head.cy + 6, cx + 8, head.cy + 13), fill=line)


def _features(d: ImageDraw.ImageDraw, look: Look, head: Head, key: str | None, value: str | None) -> None:
    brow = mix(look.hair, (20, 20, 20), 0.4)
    for ex in head.eye_xs():
        d.ellipse((ex - 3, head.eye_y - 2, ex + 3, head.eye_y + 2), fill=WHITE)
        d.ellipse((ex - 1, head.eye_y - 1, ex + 1, head.eye_y + 1), fill=look.eye)
        d.line((ex - 4, head.eye_y - 5, ex + 3, head.eye_y - 6), fill=brow, width=1)
    nose = mix(look.skin, (0, 0, 0), 0.3)
    d.line((head.cx, head.cy - 1, head.cx - 1, head.cy + 6, head.cx + 2, head.cy + 7), fill=nose)
    my = head.mouth_y
    if look.gender == "male" and not (key == "facial_hair_male" and value == "Clean-shaven"):
        d.chord(
            (head.cx - head.hw + 2, head.cy - 10, head.cx + head.hw - 2, head.cy + head.hh),
            20,
            160,
            fill=mix(look.skin, look.hair, 0.12),
        )  # the natural jaw shadow a clean shave removes
    if look.gender == "female":
        d.ellipse((head.cx - 5, my - 2, head.cx + 5, my + 2), fill=mix(look.skin, (170, 70, 80), 0.35))
    d.line((head.cx - 5, my, head.cx + 5, my), fill=mix(look.skin, (80, 20, 20), 0.55))
