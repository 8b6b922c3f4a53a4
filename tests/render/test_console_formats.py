"""The consoles print through the render layer's formatters in plain text: the strings of
every console use, and the StylisticBias headlines printed from a planted result table."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest
from rich.console import Console

from cueshift.designs.stylisticbias.console import print_headlines
from cueshift.render import (
    PLAIN_MINUS,
    PLAIN_MISSING,
    fmt_ci,
    fmt_integer,
    fmt_num,
    fmt_p,
    fmt_percent,
    fmt_percent_ci,
    fmt_pvalue,
    fmt_pvalue_sci,
)
from cueshift.stats import POOLED


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (fmt_num(0.07512), "0.075"),  # |SBS|, shares, r, ρ, η²p
        (fmt_num(-0.07512), "-0.075"),  # ASCII minus in plain text
        (fmt_num(0.02736, 4, signed=True), "+0.0274"),  # SBS, Δ, Cohen's d
        (fmt_num(-0.0234, 4, signed=True), "-0.0234"),
        (fmt_num(3.0, 0), "3"),  # the mixed model's F(df, df_resid)
        (fmt_num(12.345, 1), "12.3"),
        (fmt_num(None), PLAIN_MISSING),
        (fmt_num(float("nan"), 2), "—"),
        (fmt_p(0.0321), "0.032"),
        (fmt_p(0.001), "0.001"),
        (fmt_p(0.000999), "9.99e-04"),
        (fmt_p(2.314e-11), "2.31e-11"),
        (fmt_p(0.0), "< 1e-300"),  # an underflow prints its bound, never "0"
        (fmt_p(None), "—"),
        (fmt_pvalue_sci(0.0), "< 10⁻³⁰⁰"),  # the same implementation as the typeset tables
        (fmt_pvalue(0.0009), "< 0.001"),  # the pairwise console's q, as in its report
        (fmt_ci(-0.0121, 0.0339, 4, minus=PLAIN_MINUS), "[-0.0121, +0.0339]"),
        (fmt_ci(None, 0.0339, minus=PLAIN_MINUS, missing=""), ""),
        (fmt_percent_ci(0.1234, 0.3391), "[12–34]"),
        (fmt_percent(0.7648), "76%"),
        (fmt_percent(0.1234, 1), "12.3%"),
        (fmt_percent(None, 1, missing=PLAIN_MISSING), "—"),
        (fmt_integer(15726), "15,726"),
    ],
)
def test_console_strings(value: str, expected: str) -> None:
    assert value == expected


def test_stylisticbias_headlines_print_the_planted_values() -> None:
    con = duckdb.connect(":memory:")
    table5 = pl.DataFrame(
        {
            "model_id": ["m1"],
            "estimate": [-0.01234],
            "ci_low": [-0.02],
            "ci_high": [-0.004],
            "cohens_d": [-0.25],
            "zero_share": [0.5],
            "large_share": [0.125],
            "n": [8],
        }
    )
    sbs = pl.DataFrame(
        {
            "level": ["model", "variation_value", "variation_value"],
            "model_id": ["m1", POOLED, POOLED],
            "variation_value": [None, "Blonde", "Gray"],
            "scenario_id": [None, None, None],
            "estimate": [-0.01234, 0.0461, -0.0234],
            "ci_low": [-0.02, 0.03, None],
            "ci_high": [-0.004, 0.06, None],
            "abs_sbs": [0.02, 0.05, 0.03],
            "p_adj": [0.0, 2.314e-11, 0.0],
            "n": [8, 8, 8],
        }
    )
    con.register("t5", table5.to_arrow())
    con.register("sbs", sbs.to_arrow())
    con.execute("CREATE TABLE result_table5 AS SELECT * FROM t5")
    con.execute("CREATE TABLE result_sbs AS SELECT * FROM sbs")
    console = Console(record=True, width=200, color_system=None)
    print_headlines(con, console)
    text = console.export_text()
    assert "-0.0123" in text and "[-0.0200, -0.0040]" in text and "-0.250" in text and "***" in text
    cells = {
        line.split("│")[1].strip(): [cell.strip() for cell in line.split("│")[2:-1]]
        for line in text.splitlines()
        if "Blonde" in line or "Gray" in line
    }
    assert cells["Blonde"] == ["+0.046", "[+0.030, +0.060]", "***", "0.050", "2.31e-11", "8"]
    assert cells["Gray"] == ["-0.023", "", "***", "0.030", "< 1e-300", "8"]  # p = 0: its bound, as the report


@pytest.mark.parametrize(
    ("estimates", "reversed_", "expected"),
    [
        ([0.2], [11], "r = 0.20; 11 sign-reversed scenarios per pair (2 of 11 with evidence"),
        ([0.1, 0.2], [3, 11], "r = 0.10 to 0.20; 3 to 11 sign-reversed scenarios per pair (4 of 14"),
        ([0.2, 0.2], [3, 11], "r = 0.20; 3 to 11 sign-reversed scenarios per pair (4 of 14"),
    ],
)
def test_the_cross_model_line_gives_one_value_where_the_pairs_agree(
    estimates: list[float], reversed_: list[int], expected: str
) -> None:
    con = duckdb.connect(":memory:")
    table5 = pl.DataFrame({"model_id": ["m1"], "estimate": [0.01], "ci_low": [0.0], "ci_high": [0.02]})
    table5 = table5.with_columns(cohens_d=0.1, zero_share=0.5, large_share=0.1, n=8)
    pairs = len(estimates)
    cross = pl.DataFrame(
        {
            "estimate": estimates,
            "n_sign_reversed": reversed_,
            "n_reversed_significant": [2] * pairs,
            "category_ranking_preserved": [True] * pairs,
        }
    )
    con.register("t5", table5.to_arrow())
    con.register("pairs", cross.to_arrow())
    con.execute("CREATE TABLE result_table5 AS SELECT * FROM t5")
    con.execute("CREATE TABLE result_cross_model AS SELECT * FROM pairs")
    console = Console(record=True, width=400, color_system=None)
    print_headlines(con, console)
    assert expected in console.export_text()
