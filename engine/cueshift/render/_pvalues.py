"""p-value formatters: fixed-point with a display floor (``< 0.001``), scientific notation below
0.001 (``2.3×10⁻¹¹``), and the consoles' plain-text p (``2.31e-11``); the other value formatters
are in :mod:`cueshift.render._formats`."""

from __future__ import annotations

from cueshift.render._formats import MISSING, PLAIN_MISSING, _as_float, _is_missing


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


def fmt_pvalue_sci(value: object, digits: int = 2, *, plain: bool = False, missing: str = MISSING) -> str:
    """p-value in scientific notation below 0.001: ``2.3×10⁻¹¹``; else as :func:`fmt_pvalue`.

    ``digits`` significant digits; ``plain``: e-notation (``2.3e-11``). A p-value of exactly 0 is an
    underflow, not a certainty: it prints the bound, ``< 10⁻³⁰⁰`` (``plain``: ``< 1e-300``).

    Examples
    --------
    >>> fmt_pvalue_sci(2.31e-11)
    '2.3×10⁻¹¹'
    >>> fmt_pvalue_sci(2.31e-11, 3, plain=True)
    '2.31e-11'
    >>> fmt_pvalue_sci(0.2)
    '0.200'
    """
    if _is_missing(value):
        return missing
    p = _as_float(value)
    if p >= 0.001:
        return fmt_pvalue(p)
    if p == 0:
        return "< 1e-300" if plain else "< 10⁻³⁰⁰"
    if plain:
        return f"{p:.{digits - 1}e}"
    mantissa, exponent = f"{p:.{digits - 1}e}".split("e")
    superscript = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
    return f"{mantissa}×10{str(int(exponent)).translate(superscript)}"


def fmt_p(value: object) -> str:
    """Plain-text p-value of the consoles: ``0.032``; below 0.001 ``2.31e-11``; 0 → ``< 1e-300``;
    missing → ``—`` (:func:`fmt_pvalue_sci` with three significant digits).

    Examples
    --------
    >>> fmt_p(0.0321)
    '0.032'
    >>> fmt_p(2.314e-11)
    '2.31e-11'
    """
    return fmt_pvalue_sci(value, 3, plain=True, missing=PLAIN_MISSING)
