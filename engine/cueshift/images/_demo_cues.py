"""The cues the demo face wears (:func:`cueshift.images._demo_face.draw_face`): skin marks, facial
hair, makeup, lipstick, piercings and tattoos drawn over the face (:data:`_OVERLAYS`, by feature
key), and the headwear and eyewear drawn over the hair.
"""

from __future__ import annotations

from PIL import ImageDraw

from cueshift.images._demo_look import RGB, WHITE, Head, Look, dome, mix


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
