"""Formatters and significance marks: display text of stored values, the seed papers' notations."""

from __future__ import annotations

import pytest

from cueshift.designs.stylisticbias.report import delta_class, delta_fill
from cueshift.render import (
    MISSING,
    Notation,
    fmt_ci,
    fmt_effect,
    fmt_integer,
    fmt_number,
    fmt_percent,
    fmt_percent_ci,
    fmt_pvalue,
    fmt_pvalue_sci,
    marks,
    significance_mark,
    stars,
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (fmt_number(0.07512), "0.075"),
        (fmt_number(-0.0004), "0.000"),
        (fmt_number(None), MISSING),
        (fmt_number(float("nan")), MISSING),
        (fmt_effect(0.0461), "+0.046"),
        (fmt_effect(-0.0234), "−0.023"),
        (fmt_effect(0.0), "+0.000"),
        (fmt_effect(0.02736, 4), "+0.0274"),
        (fmt_pvalue(0.0321), "0.032"),
        (fmt_pvalue(0.0009), "< 0.001"),
        (fmt_pvalue(1.0), "1.000"),
        (fmt_pvalue_sci(2.31e-11), "2.3×10⁻¹¹"),
        (fmt_ci(-0.0121, 0.0339), "[−0.012, +0.034]"),
        (fmt_ci(None, 0.1), MISSING),
        (fmt_percent(0.7648), "76%"),
        (fmt_percent(0.01234, 2), "1.23%"),
        (fmt_integer(15726), "15,726"),
    ],
)
def test_formatters(value: str, expected: str) -> None:
    assert value == expected


def test_significance_notation_and_delta_scale() -> None:
    # seed 000 §4.4: bold p < 0.001, underline p >= 0.05, plain in between
    assert [significance_mark(p).value for p in (0.0009, 0.001, 0.049, 0.05)] == [  # type: ignore[union-attr]
        "strong",
        "significant",
        "significant",
        "ns",
    ]
    assert significance_mark(None) is None
    # Table 11 bounds, inclusive as the caption states them
    assert [delta_class(x) for x in (0.10, 0.0999, 0.04, 0.0399, -0.0399, -0.04, -0.0999, -0.10)] == [
        "strong positive",
        "moderate positive",
        "moderate positive",
        "neutral",
        "neutral",
        "moderate negative",
        "moderate negative",
        "strong negative",
    ]
    assert delta_fill(0.0) is None and delta_fill(0.2) != delta_fill(-0.2)


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        (0.0, "***"),
        (0.000999, "***"),
        (0.001, "**"),
        (0.00999, "**"),
        (0.01, "*"),
        (0.0499, "*"),
        (0.05, ""),
        (0.07, ""),
        (1.0, ""),
        (None, ""),
        (float("nan"), ""),
    ],
)
def test_star_notation_thresholds(p: float | None, expected: str) -> None:
    # seed 001 App. D-F "standard star notation", seed 004 Fig. 7: strict thresholds
    assert stars(p) == expected
    assert marks(p, Notation.STARS).suffix == (f" {expected}" if expected else "")
    assert not marks(p, Notation.STARS).bold and not marks(p, Notation.STARS).underline


def test_marks_emphasis_and_trend_code() -> None:
    assert marks(0.0009).bold and not marks(0.0009).underline
    assert not marks(0.001).bold and not marks(0.001).underline
    assert marks(0.05).underline and not marks(0.05).bold
    assert marks(None) == marks(float("nan")) == marks(None, Notation.STARS)
    assert [stars(p, trend=True) for p in (0.05, 0.0999, 0.1)] == [".", ".", ""]
    with pytest.raises(TypeError, match="p-value"):
        stars("0.01")


def test_percent_interval() -> None:
    assert fmt_percent_ci(0.1234, 0.3391) == "[12–34]"
    assert fmt_percent_ci(None, 0.3) == MISSING and fmt_percent_ci(float("nan"), 0.3) == MISSING
