"""Value formatters and significance/colour rules shared by every output of the report.

One formatter, several outputs (the great_tables habit): each function here turns a
stored value into display text; the HTML, typst and console renderers differ only in
how they apply the *marks* (bold, underline, fill) that :func:`significance_mark` and
:func:`delta_fill` attach. Rounding happens here and nowhere else.

Notation (seed 000 §4.4): **bold** p < 0.001; underlined: not significant (p ≥ 0.05);
plain: 0.001 ≤ p < 0.05. Colour scale of Table 11 (seed 000 App. D.3): strong positive
Δ ≥ +0.10, moderate positive +0.04 ≤ Δ < +0.10, neutral |Δ| < 0.04, moderate negative
−0.10 < Δ ≤ −0.04, strong negative Δ ≤ −0.10.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from enum import StrEnum
from typing import Final

#: Text of a missing value (no estimate, not applicable).
MISSING: Final = "–"
#: The minus sign used in signed numbers (U+2212), as in typeset tables.
MINUS: Final = "−"

#: Significance thresholds of the paper's notation.
P_STRONG: Final = 0.001
P_SIGNIFICANT: Final = 0.05

#: value (and any further columns a declaration names) → display text
Formatter = Callable[..., str]


def _is_missing(value: object) -> bool:
    if value is None:
        return True
    try:
        return math.isnan(value)  # type: ignore[arg-type]
    except TypeError:
        return False


def _as_float(value: object) -> float:
    """``value`` as a float: ints, floats, Decimals and numpy scalars; text is an error."""
    if isinstance(value, bool | str | bytes):
        raise TypeError(f"expected a number, got {value!r}")
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"expected a number, got {value!r}") from None


def fmt_number(value: object, decimals: int = 3) -> str:
    """Fixed-point number, e.g. ``0.075``; missing → ``–``.

    Parameters
    ----------
    value : float or None
        The stored value (never rounded before display).
    decimals : int
        Digits after the decimal point.

    Returns
    -------
    str
        The display text; negative numbers carry a typographic minus.

    Examples
    --------
    >>> fmt_number(0.07512)
    '0.075'
    >>> fmt_number(-0.5, 1)
    '−0.5'
    """
    if _is_missing(value):
        return MISSING
    text = f"{_as_float(value):.{decimals}f}"
    if text.startswith("-"):
        text = MINUS + text[1:] if float(text) != 0 else text[1:]
    return text


def fmt_effect(value: object, decimals: int = 3) -> str:
    """Signed effect (Δ, SBS, d), always with its sign: ``+0.046``, ``−0.023``, ``+0.000``.

    Examples
    --------
    >>> fmt_effect(0.0461)
    '+0.046'
    >>> fmt_effect(-0.0234)
    '−0.023'
    >>> fmt_effect(-0.0001)
    '−0.000'
    """
    if _is_missing(value):
        return MISSING
    x = _as_float(value)
    text = f"{abs(x):.{decimals}f}"
    return (MINUS if x < 0 else "+") + text


def fmt_pvalue(value: object, decimals: int = 3) -> str:
    """p-value: ``< 0.001`` below the display precision, else fixed-point (``0.032``).

    Examples
    --------
    >>> fmt_pvalue(0.0000123)
    '< 0.001'
    >>> fmt_pvalue(0.0321)
    '0.032'
    """
    if _is_missing(value):
        return MISSING
    p = _as_float(value)
    floor = 10.0 ** (-decimals)
    if p < floor:
        return f"< {floor:.{decimals}f}"
    return f"{p:.{decimals}f}"


def fmt_pvalue_sci(value: object, digits: int = 2) -> str:
    """p-value in scientific notation for very small values: ``2.3×10⁻¹¹``; else as :func:`fmt_pvalue`.

    Examples
    --------
    >>> fmt_pvalue_sci(2.31e-11)
    '2.3×10⁻¹¹'
    >>> fmt_pvalue_sci(0.2)
    '0.200'
    """
    if _is_missing(value):
        return MISSING
    p = _as_float(value)
    if p >= 0.001:
        return fmt_pvalue(p)
    if p == 0:
        return "0"
    mantissa, exponent = f"{p:.{digits - 1}e}".split("e")
    superscript = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{mantissa}×10{str(int(exponent)).translate(superscript)}"


def fmt_ci(low: object, high: object, decimals: int = 3, signed: bool = True) -> str:
    """Confidence interval ``[−0.012, +0.034]``; missing bound → ``–``.

    Examples
    --------
    >>> fmt_ci(-0.0121, 0.0339)
    '[−0.012, +0.034]'
    """
    if _is_missing(low) or _is_missing(high):
        return MISSING
    fmt = fmt_effect if signed else fmt_number
    return f"[{fmt(low, decimals)}, {fmt(high, decimals)}]"


def fmt_percent(value: object, decimals: int = 0) -> str:
    """A share in [0, 1] as a percentage: ``0.76`` → ``76%``.

    Examples
    --------
    >>> fmt_percent(0.7648)
    '76%'
    >>> fmt_percent(0.01234, 2)
    '1.23%'
    """
    if _is_missing(value):
        return MISSING
    return f"{100 * _as_float(value):.{decimals}f}%"


def fmt_integer(value: object) -> str:
    """Integer with thousands separators: ``15726`` → ``15,726``."""
    if _is_missing(value):
        return MISSING
    return f"{int(_as_float(value)):,}"


def fmt_text(value: object) -> str:
    """Any value as text; missing → ``–``."""
    if _is_missing(value):
        return MISSING
    return str(value)


def number(decimals: int = 3) -> Formatter:
    """A :func:`fmt_number` with fixed decimals (for declarations)."""
    return lambda value: fmt_number(value, decimals)


def effect(decimals: int = 3) -> Formatter:
    """A :func:`fmt_effect` with fixed decimals (for declarations)."""
    return lambda value: fmt_effect(value, decimals)


def percent(decimals: int = 0) -> Formatter:
    """A :func:`fmt_percent` with fixed decimals (for declarations)."""
    return lambda value: fmt_percent(value, decimals)


class Mark(StrEnum):
    """Significance mark of a cell (seed 000 notation)."""

    STRONG = "strong"  # p < 0.001: bold
    SIGNIFICANT = "significant"  # 0.001 <= p < 0.05: plain
    NOT_SIGNIFICANT = "ns"  # p >= 0.05: underlined


def significance_mark(p: object) -> Mark | None:
    """Mark of a (BH-adjusted) p-value; ``None`` when there is no test.

    Examples
    --------
    >>> significance_mark(0.0004).value, significance_mark(0.01).value, significance_mark(0.2).value
    ('strong', 'significant', 'ns')
    """
    if _is_missing(p):
        return None
    value = _as_float(p)
    if value < P_STRONG:
        return Mark.STRONG
    if value < P_SIGNIFICANT:
        return Mark.SIGNIFICANT
    return Mark.NOT_SIGNIFICANT


#: Colour scale of Table 11: (name, fill colour). Greens favorable, reds unfavorable.
DELTA_SCALE: Final = {
    "strong positive": "#7fc97f",
    "moderate positive": "#d4f0d4",
    "neutral": None,
    "moderate negative": "#f8d0d0",
    "strong negative": "#e57373",
}
#: Fill of a not-applicable cell (e.g. facial hair for female faces).
NOT_APPLICABLE_FILL: Final = "#d9d9d9"


def delta_class(value: object) -> str | None:
    """Class of Δ on the Table 11 scale; ``None`` when missing.

    Examples
    --------
    >>> [delta_class(x) for x in (0.10, 0.04, 0.039, -0.04, -0.10)]
    ['strong positive', 'moderate positive', 'neutral', 'moderate negative', 'strong negative']
    """
    if _is_missing(value):
        return None
    x = _as_float(value)
    if x >= 0.10:
        return "strong positive"
    if x >= 0.04:
        return "moderate positive"
    if x > -0.04:
        return "neutral"
    if x > -0.10:
        return "moderate negative"
    return "strong negative"


def delta_fill(value: object) -> str | None:
    """Fill colour of Δ on the Table 11 scale (``None``: no fill)."""
    cls = delta_class(value)
    return None if cls is None else DELTA_SCALE[cls]


NOTATION_LEGEND: Final = (
    "Bold: p < 0.001; underlined: not significant (p ≥ 0.05); otherwise p < 0.05 "
    "(Benjamini–Hochberg adjusted where stated)."
)
