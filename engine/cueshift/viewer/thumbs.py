"""Thumbnails cached on disk, and the placeholder shown for an image that is not there.

A thumbnail is made once per registered image and width, keyed by the image's stored
SHA-256 (``image.sha256``), and written atomically into the cache folder; later requests read
the cached JPEG. An image whose file is missing or unreadable gets a placeholder, never an error.
"""

from __future__ import annotations

import html
import os
import tempfile
from pathlib import Path

from PIL import Image, UnidentifiedImageError

#: Widths (px) a page may ask for.
WIDTHS: tuple[int, ...] = (96, 160, 320)
#: Default thumbnail folder, beside the project's other caches.
DEFAULT_CACHE = Path(".cueshift-cache") / "view-thumbs"


def placeholder_svg(label: str, width: int = 160) -> bytes:
    """A grey square naming why there is no picture (``label``, e.g. ``'image missing'``)."""
    text = html.escape(label)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{width}" '
        f'viewBox="0 0 160 160" role="img" aria-label="{text}">'
        '<rect width="160" height="160" fill="#e5e5e5"/>'
        '<path d="M40 115 L70 75 L92 100 L105 88 L125 115 Z" fill="#bdbdbd"/>'
        '<circle cx="108" cy="58" r="10" fill="#bdbdbd"/>'
        f'<text x="80" y="145" font-size="12" text-anchor="middle" fill="#666">{text}</text></svg>'
    ).encode()


def thumbnail(source: Path, sha256: str, width: int, cache: Path) -> Path | None:
    """The cached JPEG thumbnail of ``source`` at ``width`` px, made on first use.

    Returns
    -------
    Path or None
        The thumbnail file; ``None`` when ``source`` cannot be read as an image.
    """
    if width not in WIDTHS:
        raise ValueError(f"thumbnail width {width} not in {WIDTHS}")
    key = "".join(c for c in sha256.lower() if c in "0123456789abcdef")[:64] or "nohash"
    target = cache / f"{key}-{width}.jpg"
    if target.is_file():
        return target
    try:
        with Image.open(source) as picture:
            picture.thumbnail((width, width * 2))
            rgb = picture.convert("RGB")
    except (OSError, UnidentifiedImageError, ValueError):
        return None
    cache.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=cache, suffix=".part")
    try:
        with os.fdopen(handle, "wb") as out:
            rgb.save(out, format="JPEG", quality=85)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target
