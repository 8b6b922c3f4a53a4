"""Strict parsers of the pairwise answer ("1 (left)" / "2 (right)") and the 0-10 rating.

Like :mod:`cueshift.inference.parser`, they accept only answers that name exactly one option
(or exactly one number) in a recognised form, and return the reason for everything else;
an answer is never guessed.
"""

from __future__ import annotations

import re
from typing import Literal

Side = Literal["left", "right"]

_DECOR = re.compile(r"^[\s*_`\"'“”]+|[\s*_`\"'“”]+$")
_DIGIT_FORM = re.compile(
    r"(?:(?:answer|choice)\s*[:\-]\s*)?(?:image|picture|person|option)?\s*\(?([12])\)?"
    r"(?:\s*[(\[]\s*(left|right)\s*[)\]])?\s*\.?"
)
_WORD_FORM = re.compile(
    r"(?:(?:answer|choice)\s*[:\-]\s*)?(?:the\s+)?(left|right)(?:\s+(?:one|image|picture|person))?\.?"
)
_RATING_FORM = re.compile(
    r"(?:(?:rating|score|answer)\s*[:=\-]?\s*)?(-?\d+(?:\.\d+)?)\s*(?:/\s*10|out of 10)?\s*\.?"
)


def _clean(text: str) -> str:
    return _DECOR.sub("", " ".join(text.split())).casefold()


def parse_pairwise_answer(text: str) -> tuple[Side | None, str]:
    """The side an answer names, or ``None`` with the reason.

    Accepted (case-insensitive, optional markdown emphasis and final period): ``1``, ``2``,
    ``(1)``, ``1 (left)``, ``Image 2``, ``Answer: 1``, ``Left``, ``the right one``. Refused:
    both or neither image, a number with the wrong side (``1 (right)``), any other text.

    Examples
    --------
    >>> parse_pairwise_answer("**2**")
    ('right', 'ok')
    >>> parse_pairwise_answer("1 or 2")
    (None, 'names both images')
    """
    cleaned = _clean(text)
    if not cleaned:
        return None, "empty answer"
    match = _DIGIT_FORM.fullmatch(cleaned)
    if match:
        side: Side = "left" if match.group(1) == "1" else "right"
        if match.group(2) is not None and match.group(2) != side:
            return None, f"image {match.group(1)} is not the {match.group(2)} image"
        return side, "ok"
    match = _WORD_FORM.fullmatch(cleaned)
    if match:
        return ("left" if match.group(1) == "left" else "right"), "ok"
    has_1 = re.search(r"\b1\b|\bleft\b", cleaned) is not None
    has_2 = re.search(r"\b2\b|\bright\b", cleaned) is not None
    if has_1 and has_2:
        return None, "names both images"
    return None, "not a bare choice of image 1 (left) or 2 (right)"


def parse_rating(text: str, low: float = 0.0, high: float = 10.0) -> tuple[float | None, str]:
    """The rating an answer states, or ``None`` with the reason.

    Accepted: one number, optionally prefixed ``Rating:`` / ``Score:`` / ``Answer:`` and
    followed by ``/10`` or ``out of 10`` (case-insensitive, optional emphasis and period).
    Refused: ranges, several numbers, words, values outside ``[low, high]``.

    Examples
    --------
    >>> parse_rating("Rating: 7/10")
    (7.0, 'ok')
    >>> parse_rating("Between 5 and 7.")
    (None, 'not a single number')
    """
    cleaned = _clean(text)
    if not cleaned:
        return None, "empty answer"
    match = _RATING_FORM.fullmatch(cleaned)
    if not match:
        return None, "not a single number"
    value = float(match.group(1))
    if not low <= value <= high:
        return None, f"{value:g} is outside {low:g}-{high:g}"
    return value, "ok"
