"""Head-and-shoulders demo images (96 x 96): a base face, or the face with one cue drawn."""

from __future__ import annotations

from dataclasses import replace

from PIL import Image, ImageDraw

from cueshift.images._demo_look import (
    BUILD_HALF_WIDTH,
    FACE_SIZE,
    HAIR_BOTTOM,
    HAIR_COLORS,
    HEAD_HALF_WIDTH,
    RGB,
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


def _skin(d: ImageDraw.ImageDraw, look: Look, head: Head, value: str) -> None:
    rng = look.rng(f"skin:{value}")
    cx, cy = head.cx, head.cy
    if value == "Freckles":
        color = mix(look.skin, (110, 60, 30), 0.45)
        for _ in range(26):
            x, y = cx + rng.randint(-head.hw + 4, head.hw - 4), cy + rng.randint(-1, 7)
            d.point((x, y), fill=color)
    elif value == "Acne":
        for _ in range(12):
            x, y = cx + rng.randint(-head.hw + 3, head.hw - 3), cy + rng.randint(-14, 14)
            r = rng.choice([0, 1])
            d.ellipse((x - r, y - r, x + r, y + r), fill=mix(look.skin, (200, 40, 40), 0.6))
    elif value == "Scars":
        x = cx + rng.choice([-1, 1]) * rng.randint(5, 9)
        color = mix(look.skin, (230, 150, 150), 0.6)
        d.line((x - 3, cy - 8, x + 3, cy + 6), fill=color, width=2)
        for t in (-4, 0, 4):
            d.line(
                (x - 2 + t // 2, cy - 1 + t, x + 2 + t // 2, cy - 2 + t), fill=mix(look.skin, (0, 0, 0), 0.3)
            )
    elif value == "Moles":
        for _ in range(3):
            x, y = cx + rng.randint(-head.hw + 4, head.hw - 4), cy + rng.randint(-12, 16)
            d.ellipse((x - 1, y - 1, x + 1, y + 1), fill=mix(look.skin, (50, 25, 10), 0.7))


def _facial_hair(d: ImageDraw.ImageDraw, look: Look, head: Head, value: str) -> None:
    beard = mix(look.hair, (0, 0, 0), 0.1)
    cx, cy, my = head.cx, head.cy, head.mouth_y
    if value == "Stubble":
        rng = look.rng("stubble")
        for _ in range(120):
            x, y = cx + rng.randint(-head.hw + 2, head.hw - 2), cy + rng.randint(6, head.hh - 1)
            if ((x - cx) / head.hw) ** 2 + ((y - cy) / head.hh) ** 2 < 0.92:
                d.point((x, y), fill=mix(look.skin, beard, 0.6))
    elif value == "Mustache":
        d.polygon([(cx - 7, my - 1), (cx, my - 5), (cx + 7, my - 1), (cx, my - 2)], fill=beard)
    elif value == "Full beard":
        d.chord(
            (head.cx - head.hw - 1, head.cy - head.hh, head.cx + head.hw + 1, head.cy + head.hh + 3),
            12,
            168,
            fill=beard,
        )
        d.polygon([(cx - 7, my - 1), (cx, my - 5), (cx + 7, my - 1), (cx, my - 2)], fill=beard)
        d.line((cx - 4, my + 1, cx + 4, my + 1), fill=mix(look.skin, (80, 20, 20), 0.5), width=2)


def _makeup(d: ImageDraw.ImageDraw, look: Look, head: Head, value: str) -> None:
    heavy = value == "Heavy"
    blush = mix(look.skin, (230, 90, 120), 0.5 if heavy else 0.22)
    for ex in head.eye_xs():
        d.ellipse((ex - 4, head.cy + 3, ex + 3, head.cy + 8), fill=blush)
        if heavy:
            d.chord((ex - 4, head.eye_y - 5, ex + 4, head.eye_y + 1), 180, 360, fill=(120, 60, 150))
            d.ellipse((ex - 3, head.eye_y - 2, ex + 3, head.eye_y + 2), fill=WHITE)
            d.ellipse((ex - 1, head.eye_y - 1, ex + 1, head.eye_y + 1), fill=look.eye)
        d.line((ex - 3, head.eye_y - 2, ex + 4, head.eye_y - 3), fill=(20, 15, 15), width=2 if heavy else 1)


def _lips(d: ImageDraw.ImageDraw, look: Look, head: Head, value: str) -> None:
    color = {"Neutral": mix(look.skin, (190, 120, 110), 0.6), "Red lipstick": (200, 20, 35)}.get(
        value, (120, 20, 80)
    )
    my = head.mouth_y
    d.ellipse((head.cx - 6, my - 3, head.cx + 6, my + 3), fill=color)
    d.line((head.cx - 5, my, head.cx + 5, my), fill=mix(color, (0, 0, 0), 0.4))


def _piercings(d: ImageDraw.ImageDraw, look: Look, head: Head, value: str) -> None:
    metal, gold = (205, 205, 215), (225, 185, 60)
    cx, cy, my = head.cx, head.cy, head.mouth_y
    spots = {
        "Single nose": [("dot", cx + 3, cy + 6)],
        "Single lip": [("ring", cx + 3, my + 2)],
        "Single eyebrow": [("ring", head.eye_xs()[1] + 3, head.eye_y - 6)],
        "Earrings": [("hoop", cx - head.hw - 1, cy + 10), ("hoop", cx + head.hw + 1, cy + 10)],
    }.get(
        value,
        [
            ("dot", cx + 3, cy + 6),
            ("ring", cx - 3, my + 2),
            ("ring", head.eye_xs()[1] + 3, head.eye_y - 6),
            ("dot", cx + head.hw + 1, cy + 2),
            ("dot", cx + head.hw + 1, cy + 6),
        ],
    )  # Multiple
    for kind, x, y in spots:
        if kind == "dot":
            d.ellipse((x - 1, y - 1, x + 1, y + 1), fill=metal)
        elif kind == "ring":
            d.ellipse((x - 2, y - 2, x + 2, y + 2), outline=metal)
        else:
            d.ellipse((x - 3, y - 1, x + 3, y + 6), outline=gold, width=1)


def _tattoo(d: ImageDraw.ImageDraw, look: Look, head: Head, value: str) -> None:
    ink, rng = (30, 40, 70), look.rng("tattoo")
    x, y = head.cx + round(head.hw * 0.5), head.cy + 3
    pattern = rng.randrange(3)
    if pattern == 0:  # tribal curls
        for k in range(3):
            d.arc((x - 4 + 2 * k, y - 5 + 3 * k, x + 4 + 2 * k, y + 1 + 3 * k), 180, 360, fill=ink, width=1)
    elif pattern == 1:  # teardrop and star
        d.ellipse((head.eye_xs()[0] - 1, head.eye_y + 4, head.eye_xs()[0] + 1, head.eye_y + 8), fill=ink)
        d.polygon([(x, y - 4), (x + 2, y + 2), (x - 3, y - 2), (x + 3, y - 2), (x - 2, y + 2)], outline=ink)
    else:  # script line
        d.line((x - 5, y, x - 2, y - 3, x + 1, y, x + 4, y - 3, x + 6, y), fill=ink, width=1)


def _headwear(d: ImageDraw.ImageDraw, look: Look, head: Head, value: str) -> None:
    color = look.rng("headwear").choice([(180, 40, 40), (40, 70, 140), (40, 40, 40), (90, 120, 60)])
    cx, top, hw = head.cx, head.cy - head.hh, head.hw
    if value == "Cap":
        dome(d, head, top + 12, color, pad=3, lift=6)
        d.ellipse((cx - hw, top + 8, cx + hw + 12, top + 15), fill=mix(color, (0, 0, 0), 0.25))
    elif value == "Beanie":
        dome(d, head, head.cy - 9, color, pad=3, lift=9)
        d.rectangle((cx - hw - 3, head.cy - 15, cx + hw + 3, head.cy - 9), fill=mix(color, (0, 0, 0), 0.25))
        for x in range(cx - hw, cx + hw + 1, 4):
            d.line((x, head.cy - 15, x, head.cy - 9), fill=mix(color, WHITE, 0.25))
    elif value == "Hat":
        d.rectangle((cx - hw + 1, top - 12, cx + hw - 1, top + 6), fill=color)
        d.rectangle((cx - hw + 1, top + 1, cx + hw - 1, top + 5), fill=(20, 20, 20))
        d.ellipse((cx - hw - 14, top + 2, cx + hw + 14, top + 10), fill=mix(color, (0, 0, 0), 0.2))
    elif value == "Headscarf":
        dome(d, head, head.cy - 12, _scarf_color(look), pad=4, lift=6)


def _scarf_color(look: Look) -> RGB:
    return look.rng("scarf").choice([(150, 40, 80), (40, 110, 130), (200, 150, 60), (90, 60, 120)])


def _eyewear(d: ImageDraw.ImageDraw, head: Head, value: str) -> None:
    left, right = head.eye_xs()
    y = head.eye_y
    for ex in (left, right):
        if value == "Thick-rimmed":
            d.rectangle((ex - 6, y - 4, ex + 6, y + 4), outline=(15, 15, 15), width=2)
        elif value == "Thin metal":
            d.ellipse((ex - 5, y - 4, ex + 5, y + 4), outline=(150, 150, 165), width=1)
        else:
            d.rounded_rectangle(
                (ex - 6, y - 4, ex + 6, y + 4), radius=3, fill=(25, 25, 35), outline=(0, 0, 0)
            )
    bridge = (15, 15, 15) if value != "Thin metal" else (150, 150, 165)
    d.line((left + 5, y - 1, right - 5, y - 1), fill=bridge, width=2 if value == "Thick-rimmed" else 1)
    d.line((left - 6, y - 2, head.cx - head.hw, y - 1), fill=bridge)
    d.line((right + 6, y - 2, head.cx + head.hw, y - 1), fill=bridge)


_OVERLAYS = {
    "skin_irregularities": _skin,
    "facial_hair_male": _facial_hair,
    "makeup_female": _makeup,
    "lip_makeup_female": _lips,
    "piercings": _piercings,
    "tattoos": _tattoo,
}
