"""Significance marks, computed from stored p-values at render time: the one place they are computed.

Result tables store p-values only (``p``, ``p_adj``); every mark a reader sees — a bold or
underlined cell, a star code — is derived here when a table is rendered. Two notations of the
seed papers are supported, with the same strict thresholds (p = 0.05 is *not* significant):

=============  =============================================  =========================================
notation       rule                                           source
=============  =============================================  =========================================
``emphasis``   **bold** p < 0.001; plain 0.001 ≤ p < 0.05;    seed 000 §4.4 ("Statistical notation") and
               underlined p ≥ 0.05 (not significant)          the caption of its Table 11
``stars``      ``***`` p < 0.001, ``**`` p < 0.01,            seed 001 App. D–F ("the standard star
               ``*`` p < 0.05, nothing otherwise              notation"), seed 004 Fig. 7
=============  =============================================  =========================================

R's significance codes add ``.`` for 0.05 ≤ p < 0.1; no seed paper uses that level, so no report
shows it (``stars(p, trend=True)`` gives it for a console summary that wants R's codes).
A missing p-value (``None``, NaN: no test) carries no mark in either notation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

#: p below which a result is marked strongly significant (bold; ``***``).
P_STRONG: Final = 0.001
#: p below which a result is significant (α of the seed papers).
P_SIGNIFICANT: Final = 0.05
#: Star codes by upper p threshold (exclusive), strictest first.
STAR_LEVELS: Final = ((0.001, "***"), (0.01, "**"), (0.05, "*"))
#: R's extra code for 0.05 ≤ p < 0.1 (``trend=True``).
TREND: Final = (0.1, ".")


class Notation(StrEnum):
    """How a declared column shows the significance of its test."""

    EMPHASIS = "emphasis"  # seed 000: bold / plain / underlined cell
    STARS = "stars"  # seeds 001, 004: star code appended to the cell text


class Mark(StrEnum):
    """Significance mark of a cell in the emphasis notation (seed 000)."""

    STRONG = "strong"  # p < 0.001: bold
    SIGNIFICANT = "significant"  # 0.001 <= p < 0.05: plain
    NOT_SIGNIFICANT = "ns"  # p >= 0.05: underlined


def p_or_none(p: object) -> float | None:
    """``p`` as a float, or ``None`` when it is missing (``None`` or NaN).

    Raises
    ------
    TypeError
        ``p`` is not a number (text, bool).
    """
    if p is None:
        return None
    if isinstance(p, bool | str | bytes):
        raise TypeError(f"expected a p-value, got {p!r}")
    try:
        value = float(p)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"expected a p-value, got {p!r}") from None
    return None if math.isnan(value) else value


def significance_mark(p: object) -> Mark | None:
    """Emphasis mark of a (BH-adjusted) p-value; ``None`` when there is no test.

    Parameters
    ----------
    p : float or None
        The stored p-value.

    Returns
    -------
    Mark or None
        ``STRONG`` if p < 0.001, ``SIGNIFICANT`` if 0.001 ≤ p < 0.05, ``NOT_SIGNIFICANT`` if p ≥ 0.05.

    References
    ----------
    .. [1] Seed 000 (StylisticBias), §4.4 "Statistical notation" and Table 11.

    Examples
    --------
    >>> [significance_mark(p).value for p in (0.0004, 0.001, 0.049, 0.05)]
    ['strong', 'significant', 'significant', 'ns']
    >>> significance_mark(None) is None
    True
    """
    value = p_or_none(p)
    if value is None:
        return None
    if value < P_STRONG:
        return Mark.STRONG
    if value < P_SIGNIFICANT:
        return Mark.SIGNIFICANT
    return Mark.NOT_SIGNIFICANT


def stars(p: object, *, trend: bool = False) -> str:
    """Star code of a p-value: ``***`` p < 0.001, ``**`` p < 0.01, ``*`` p < 0.05, else ``""``.

    Parameters
    ----------
    p : float or None
        The stored p-value; missing (``None``, NaN) gives ``""``.
    trend : bool
        Also mark 0.05 ≤ p < 0.1 with ``.`` (R's significance codes).

    References
    ----------
    .. [1] Seed 001 (attractiveness bias in LLaVA), App. D–F: "p-values are denoted using the
       standard star notation".
    .. [2] Seed 004 (CLIP facial impressions), Fig. 7: "* < .05, ** < .01, *** < .001".

    Examples
    --------
    >>> [stars(p) for p in (0.0009, 0.001, 0.0099, 0.01, 0.049, 0.05, None)]
    ['***', '**', '**', '*', '*', '', '']
    >>> stars(0.07, trend=True)
    '.'
    """
    value = p_or_none(p)
    if value is None:
        return ""
    for threshold, code in STAR_LEVELS:
        if value < threshold:
            return code
    if trend and value < TREND[0]:
        return TREND[1]
    return ""


@dataclass(frozen=True)
class Marks:
    """What a tested cell shows of its significance: bold, underline, a star code after the text."""

    bold: bool = False
    underline: bool = False
    suffix: str = ""


#: A cell without a test, or whose value is missing.
NO_MARKS: Final = Marks()


def marks(p: object, notation: Notation = Notation.EMPHASIS) -> Marks:
    """The marks of a cell whose test has p-value ``p``, in ``notation``.

    Every declared table cell with a test gets its marks from this function when it is rendered.

    Parameters
    ----------
    p : float or None
        The stored p-value (BH-adjusted where the table stores one); missing: no marks.
    notation : Notation
        ``EMPHASIS`` (:func:`significance_mark`: bold / plain / underlined) or ``STARS``
        (:func:`stars`, appended to the text after a space).

    Examples
    --------
    >>> marks(0.0002)
    Marks(bold=True, underline=False, suffix='')
    >>> marks(0.2).underline, marks(0.004, Notation.STARS).suffix
    (True, ' **')
    """
    if notation is Notation.STARS:
        code = stars(p)
        return Marks(suffix=f" {code}") if code else NO_MARKS
    mark = significance_mark(p)
    return Marks(bold=mark is Mark.STRONG, underline=mark is Mark.NOT_SIGNIFICANT)


#: The emphasis notation as a sentence (preambles, table notes).
EMPHASIS_LEGEND: Final = (
    "Bold: p < 0.001; underlined: not significant (p ≥ 0.05); otherwise p < 0.05 "
    "(Benjamini–Hochberg adjusted where stated)."
)
#: The emphasis notation as a markdown sentence (a report's preamble).
EMPHASIS_LEGEND_MD: Final = (
    "Notation: **bold** p < 0.001; [underlined]{.underline}: not significant (p ≥ 0.05); "
    "otherwise p < 0.05 (Benjamini–Hochberg adjusted p-values where the engine stores them)."
)
#: The star notation as a sentence.
STARS_LEGEND: Final = "*** p < 0.001, ** p < 0.01, * p < 0.05 (Benjamini–Hochberg adjusted where stated)."
#: The star notation as a markdown sentence (stars escaped).
STARS_LEGEND_MD: Final = "Notation: " + STARS_LEGEND.replace("*", "\\*")
