"""Value formatters shared by every output of the report: stored value in, display text out.

One formatter, several outputs (the great_tables habit): each function here turns a
stored value into display text; the HTML, typst and console renderers differ only in
how they apply the *marks* (bold, underline, fill) that
:func:`~cueshift.render.marks.marks` and a declaration's fill rule attach.
Rounding happens here (p-values: :mod:`._pvalues`) and nowhere else; significance marks are
computed in :mod:`cueshift.render.marks`.

The consoles (every design's summary, ``cueshift status``, the importers) print through the
same functions in plain text: an ASCII minus (terminals, copying into R), an em dash for a
missing value and e-notation exponents (:func:`fmt_num`, :func:`~cueshift.render._pvalues.fmt_p`,
``minus=PLAIN_MINUS``). The p-value formatters are in :mod:`cueshift.render._pvalues`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Final

#: Text of a missing value (no estimate, not applicable).
MISSING: Final = "–"
#: The minus sign used in signed numbers (U+2212), as in typeset tables.
MINUS: Final = "−"
#: The minus sign of plain text (the consoles).
PLAIN_MINUS: Final = "-"
#: Text of a missing value in plain text (the consoles).
PLAIN_MISSING: Final = "—"

#: Fill of a cell that is not applicable (a pivot's row × column absent from the result).
NOT_APPLICABLE_FILL: Final = "#d9d9d9"

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


def fmt_number(value: object, decimals: int = 3, *, minus: str = MINUS, missing: str = MISSING) -> str:
    """Fixed-point number, e.g. ``0.075``; missing → ``–``.

    Parameters
    ----------
    value : float or None
        The stored value (never rounded before display).
    decimals : int
        Digits after the decimal point.
    minus, missing : str
        The minus sign and the text of a missing value.

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
        return missing
    text = f"{_as_float(value):.{decimals}f}"
    if text.startswith("-"):
        text = minus + text[1:] if float(text) != 0 else text[1:]
    return text


def fmt_effect(value: object, decimals: int = 3, *, minus: str = MINUS, missing: str = MISSING) -> str:
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
        return missing
    x = _as_float(value)
    text = f"{abs(x):.{decimals}f}"
    return (minus if x < 0 else "+") + text


def fmt_ci(
    low: object,
    high: object,
    decimals: int = 3,
    signed: bool = True,
    *,
    minus: str = MINUS,
    missing: str = MISSING,
) -> str:
    """Confidence interval ``[−0.012, +0.034]``; missing bound → ``missing``.

    Examples
    --------
    >>> fmt_ci(-0.0121, 0.0339)
    '[−0.012, +0.034]'
    >>> fmt_ci(-0.0121, 0.0339, minus=PLAIN_MINUS)
    '[-0.012, +0.034]'
    """
    if _is_missing(low) or _is_missing(high):
        return missing
    fmt = fmt_effect if signed else fmt_number
    return f"[{fmt(low, decimals, minus=minus)}, {fmt(high, decimals, minus=minus)}]"


def fmt_percent_ci(low: object, high: object, decimals: int = 0) -> str:
    """Interval of two shares as percentages without the sign: ``[12–34]``; missing bound → ``–``.

    Examples
    --------
    >>> fmt_percent_ci(0.1234, 0.3391)
    '[12–34]'
    """
    if _is_missing(low) or _is_missing(high):
        return MISSING
    return f"[{100 * _as_float(low):.{decimals}f}–{100 * _as_float(high):.{decimals}f}]"


def fmt_percent(value: object, decimals: int = 0, *, missing: str = MISSING) -> str:
    """A share in [0, 1] as a percentage: ``0.76`` → ``76%``.

    Examples
    --------
    >>> fmt_percent(0.7648)
    '76%'
    >>> fmt_percent(0.01234, 2)
    '1.23%'
    """
    if _is_missing(value):
        return missing
    return f"{100 * _as_float(value):.{decimals}f}%"


def fmt_num(value: object, decimals: int = 3, *, signed: bool = False) -> str:
    """Plain-text number of the consoles: :func:`fmt_effect` (``signed``) or :func:`fmt_number`
    with an ASCII minus; missing → ``—``.

    Examples
    --------
    >>> fmt_num(-0.07512)
    '-0.075'
    >>> fmt_num(0.0461, 4, signed=True)
    '+0.0461'
    >>> fmt_num(None)
    '—'
    """
    fmt = fmt_effect if signed else fmt_number
    return fmt(value, decimals, minus=PLAIN_MINUS, missing=PLAIN_MISSING)


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


def points(decimals: int = 2) -> Formatter:
    """A difference of two shares in signed percentage points (the column header says "pp"), so it
    reads on the scale of the percentages beside it: ``0.0065`` → ``+0.65``.

    Examples
    --------
    >>> points(2)(0.0065)
    '+0.65'
    >>> points(2)(None)
    '–'
    """
    return lambda value: MISSING if _is_missing(value) else fmt_effect(100 * _as_float(value), decimals)


def points_ci(decimals: int = 2) -> Formatter:
    """An interval of :func:`points` (declare ``args=("ci_high",)``): ``[−0.10, +0.42]``.

    Examples
    --------
    >>> points_ci(2)(-0.001, 0.0042)
    '[−0.10, +0.42]'
    """

    def fmt(low: object, high: object) -> str:
        if _is_missing(low) or _is_missing(high):
            return MISSING
        return fmt_ci(100 * _as_float(low), 100 * _as_float(high), decimals)

    return fmt


def ci(decimals: int = 3, signed: bool = True) -> Formatter:
    """A :func:`fmt_ci` with fixed decimals and sign rule (declare ``args=("ci_high",)``)."""
    return lambda low, high: fmt_ci(low, high, decimals, signed)


def estimate_ci(decimals: int = 3, signed: bool = False) -> Formatter:
    """An estimate and its interval in one cell, ``0.041 [0.001, 0.085]`` (declare
    ``args=("ci_low", "ci_high")``): for a pivot, whose cells hold one value each; a missing
    interval leaves the estimate alone.

    Examples
    --------
    >>> estimate_ci(3)(0.0412, 0.00065, 0.0849)
    '0.041 [0.001, 0.085]'
    >>> estimate_ci(3, signed=True)(-0.02, -0.031, None)
    '−0.020'
    """

    def fmt(value: object, low: object, high: object) -> str:
        shown = (fmt_effect if signed else fmt_number)(value, decimals)
        if shown == MISSING or _is_missing(low) or _is_missing(high):
            return shown
        return f"{shown} {fmt_ci(low, high, decimals, signed)}"

    return fmt


def multiple(decimals: int = 2) -> Formatter:
    """A ratio as a multiple: ``2.31×`` (missing → ``–``)."""
    return lambda value: MISSING if _is_missing(value) else f"{fmt_number(value, decimals)}×"
