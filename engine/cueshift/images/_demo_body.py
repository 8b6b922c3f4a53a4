"""Full-body demo images (96 x 160): the face's figure in one outfit per fashion style."""

from __future__ import annotations

from PIL import Image, ImageDraw

from cueshift.images._demo_look import (
    BODY_SIZE,
    BUILD_HALF_WIDTH,
    HEAD_HALF_WIDTH,
    RGB,
    WHITE,
    Head,
    Look,
    dome,
    mix,
)

_OUTFITS: dict[str, tuple[RGB, RGB, RGB, str, str]] = {
    "Professional / Business formal": ((35, 45, 75), (35, 45, 75), (15, 15, 15), "long", "pants"),
    "Formal / Evening wear": ((15, 15, 20), (15, 15, 20), (10, 10, 10), "long", "pants"),
    "Casual": ((70, 130, 190), (60, 90, 150), (240, 240, 240), "short", "pants"),
    "Smart casual": ((120, 100, 80), (200, 180, 140), (110, 70, 40), "long", "pants"),
    "Sporty / Athletic wear": ((240, 120, 20), (30, 30, 30), (250, 250, 250), "none", "shorts"),
    "Streetwear": ((60, 60, 60), (90, 100, 80), (230, 60, 60), "long", "pants"),
    "Functional / outdoor wear": ((90, 110, 60), (120, 100, 70), (90, 60, 30), "long", "pants"),
    "Luxury / High fashion": ((200, 160, 110), (30, 30, 30), (120, 20, 30), "long", "pants"),
    "Vintage / Retro": ((200, 150, 40), (130, 80, 40), (110, 60, 30), "short", "pants"),
    "Worn / Distressed clothing": ((130, 120, 105), (95, 90, 85), (80, 70, 60), "short", "pants"),
    "Daring / Provocative": ((200, 10, 40), (20, 20, 20), (20, 20, 20), "none", "skirt"),
}


def draw_body(look: Look, style: str) -> Image.Image:
    """The full-body figure of ``look`` dressed in fashion ``style``."""
    img = Image.new("RGB", BODY_SIZE, WHITE)
    d = ImageDraw.Draw(img)
    top_color, bottom_color, shoes, sleeves, bottom_kind = _OUTFITS.get(style, _OUTFITS["Casual"])
    if style == "Formal / Evening wear" and look.gender == "female":
        top_color, bottom_color, bottom_kind = (110, 20, 60), (110, 20, 60), "gown"
    cx, w = 48, BUILD_HALF_WIDTH.get(look.body_type, 16)
    head = Head(cx, 22, HEAD_HALF_WIDTH.get(look.body_type, 18) * 2 // 3, 14)
    if look.hair_length in ("Medium", "Long", "Chin", "Shoulder"):
        d.rounded_rectangle(
            (cx - head.hw - 3, 8, cx + head.hw + 3, 52 if look.hair_length in ("Long", "Shoulder") else 34),
            radius=6,
            fill=look.hair,
        )
    d.rectangle((cx - 4, 32, cx + 4, 42), fill=look.skin)  # neck
    leg_w, gap = {"thin": 5, "normal": 6, "obese": 9}.get(look.body_type, 6), 2
    for side in (-1, 1):  # legs, shoes
        x0 = cx + gap if side > 0 else cx - gap - leg_w
        d.rectangle((x0, 96, x0 + leg_w, 148), fill=look.skin)
        length = {"pants": 148, "shorts": 112, "skirt": 96}.get(bottom_kind, 96)
        d.rectangle((x0, 94, x0 + leg_w, length), fill=bottom_color)
        d.rectangle((x0 - 1, 148, x0 + leg_w + 2, 155), fill=shoes)
    arm = WHITE if sleeves == "none" else top_color
    for side in (-1, 1):  # arms with sleeves (skin below a short sleeve)
        x0 = cx + side * (w + 1) - (5 if side < 0 else 0)
        d.rectangle((x0, 44, x0 + 5, 92), fill=look.skin)
        if sleeves != "none":
            d.rectangle((x0, 44, x0 + 5, 92 if sleeves == "long" else 58), fill=arm)
    d.rounded_rectangle((cx - w, 41, cx + w, 98), radius=6, fill=top_color)
    if bottom_kind == "skirt":
        d.polygon([(cx - w, 92), (cx + w, 92), (cx + w + 3, 108), (cx - w - 3, 108)], fill=bottom_color)
        d.rectangle((cx - w, 60, cx + w, 92), fill=look.skin)  # crop top: bare midriff
    elif bottom_kind == "gown":
        d.polygon([(cx - w, 80), (cx + w, 80), (cx + w + 10, 154), (cx - w - 10, 154)], fill=bottom_color)
    detail = _BODY_DETAILS.get(style)
    if detail is not None:
        detail(d, look, cx, w)
    d.ellipse(head.box, fill=look.skin)
    for ex in head.eye_xs():
        d.point((ex, head.eye_y), fill=(30, 30, 30))
    d.line((cx - 3, head.cy + 7, cx + 3, head.cy + 7), fill=mix(look.skin, (80, 20, 20), 0.5))
    if look.hair_length != "Bald":
        dome(d, head, head.cy - 6, look.hair, pad=1, lift=2)
    return img


def _detail_business(d: ImageDraw.ImageDraw, look: Look, cx: int, w: int) -> None:
    d.polygon([(cx - 5, 41), (cx + 5, 41), (cx, 58)], fill=WHITE)
    if look.gender == "male":
        d.polygon([(cx - 1, 43), (cx + 1, 43), (cx + 2, 58), (cx, 61), (cx - 2, 58)], fill=(150, 20, 30))
    d.line((cx, 60, cx, 96), fill=(20, 25, 45))


def _detail_evening(d: ImageDraw.ImageDraw, look: Look, cx: int, w: int) -> None:
    if look.gender == "male":
        d.polygon([(cx - 5, 41), (cx + 5, 41), (cx, 60)], fill=WHITE)
        d.polygon(
            [(cx - 4, 42), (cx, 45), (cx + 4, 42), (cx + 4, 48), (cx, 45), (cx - 4, 48)], fill=(0, 0, 0)
        )
    else:
        d.ellipse((cx - 3, 46, cx + 3, 50), fill=(230, 230, 240))  # pendant


def _detail_smart(d: ImageDraw.ImageDraw, look: Look, cx: int, w: int) -> None:
    d.rectangle((cx - 5, 41, cx + 5, 98), fill=(235, 235, 245))  # shirt under an open blazer
    d.line((cx - 5, 41, cx - 5, 98), fill=(60, 50, 40))


def _detail_sporty(d: ImageDraw.ImageDraw, look: Look, cx: int, w: int) -> None:
    for y in (52, 58):
        d.line((cx - w, y, cx + w, y), fill=WHITE, width=2)


def _detail_street(d: ImageDraw.ImageDraw, look: Look, cx: int, w: int) -> None:
    d.ellipse((cx - 12, 34, cx + 12, 48), fill=(50, 50, 50))  # hood
    d.rectangle((cx - 6, 60, cx + 6, 72), fill=(240, 200, 30))  # print
    d.rectangle((cx - w + 2, 84, cx + w - 2, 92), fill=(45, 45, 45))  # kangaroo pocket


def _detail_outdoor(d: ImageDraw.ImageDraw, look: Look, cx: int, w: int) -> None:
    d.line((cx, 41, cx, 98), fill=(30, 30, 30))
    for x in (cx - w + 3, cx + 3):
        d.rectangle((x, 66, x + w - 6, 76), outline=(50, 60, 30))
    d.rectangle((cx - w - 4, 110, cx - w + 2, 120), fill=(100, 85, 60))  # cargo pocket


def _detail_luxury(d: ImageDraw.ImageDraw, look: Look, cx: int, w: int) -> None:
    d.polygon(
        [(cx - w, 90), (cx + w, 90), (cx + w + 4, 128), (cx - w - 4, 128)], fill=(200, 160, 110)
    )  # long coat
    d.arc((cx - 7, 38, cx + 7, 54), 20, 160, fill=(230, 190, 40), width=2)  # gold chain
    for y in (56, 68, 80):
        d.ellipse((cx - 1, y, cx + 1, y + 2), fill=(230, 190, 40))


def _detail_vintage(d: ImageDraw.ImageDraw, look: Look, cx: int, w: int) -> None:
    for y in range(46, 94, 8):
        for x in range(cx - w + 3, cx + w - 1, 7):
            d.ellipse((x, y, x + 2, y + 2), fill=WHITE)  # polka dots
    d.polygon([(cx - 9, 140), (cx - 2, 140), (cx, 149), (cx - 12, 149)], fill=(130, 80, 40))  # flares
    d.polygon([(cx + 2, 140), (cx + 9, 140), (cx + 12, 149), (cx, 149)], fill=(130, 80, 40))


def _detail_worn(d: ImageDraw.ImageDraw, look: Look, cx: int, w: int) -> None:
    rng = look.rng("worn")
    for _ in range(5):
        x, y = cx + rng.randint(-w + 3, w - 5), rng.randint(48, 130)
        d.ellipse((x, y, x + 3, y + 2), fill=look.skin)  # holes
    d.rectangle((cx - w + 3, 70, cx - w + 9, 76), fill=(150, 90, 60))  # patch
    for x in range(cx - w, cx + w, 3):
        d.line((x, 98, x + 1, 101), fill=(130, 120, 105))  # frayed hem


_BODY_DETAILS = {
    "Professional / Business formal": _detail_business,
    "Formal / Evening wear": _detail_evening,
    "Smart casual": _detail_smart,
    "Sporty / Athletic wear": _detail_sporty,
    "Streetwear": _detail_street,
    "Functional / outdoor wear": _detail_outdoor,
    "Luxury / High fashion": _detail_luxury,
    "Vintage / Retro": _detail_vintage,
    "Worn / Distressed clothing": _detail_worn,
}
