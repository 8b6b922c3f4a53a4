"""Binomial proportions (Wilson interval, exact binomial test, odds with a pseudo-count) and BH by
family, against statsmodels / scipy and the published numbers of seed 002 Tables 3–4."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from cueshift.stats import (
    bh_adjust,
    bh_by_family,
    binomial_test,
    odds_ratio,
    proportion_rows,
    wilson_interval,
)

# Seed 002 Table 4 (k of 40, Wilson CI in %, OR, q) and the Arab rows of Table 3 (k from the %).
TABLE4 = [
    ("East Asian F", "Gemini", 32, (65, 90), 3.82, "<1e-3"),
    ("East Asian F", "GPT-4o", 37, (80, 97), 10.71, "<1e-3"),
    ("East Asian F", "Hunyuan", 9, (12, 38), 0.30, "<1e-3"),
    ("East Asian M", "Gemini", 27, (52, 80), 2.04, 0.04),
    ("East Asian M", "GPT-4o", 38, (83, 99), 15.40, "<1e-3"),
    ("East Asian M", "Hunyuan", 12, (18, 45), 0.43, 0.002),
    ("White F", "Gemini", 34, (71, 93), 5.31, "<1e-3"),
    ("White F", "GPT-4o", 37, (80, 97), 10.71, "<1e-3"),
    ("White F", "Hunyuan", 26, (49, 78), 1.86, 0.10),
    ("White M", "Gemini", 36, (77, 96), 8.11, "<1e-3"),
    ("White M", "GPT-4o", 39, (87, 100), 26.33, "<1e-3"),
    ("White M", "Hunyuan", 35, (74, 95), 6.45, "<1e-3"),
    ("Black F", "Gemini", 38, (83, 99), 15.40, "<1e-3"),
    ("Black F", "GPT-4o", 34, (71, 93), 5.31, "<1e-3"),
    ("Black F", "Hunyuan", 8, (10, 35), 0.25, "<1e-3"),
    ("Black M", "Gemini", 39, (87, 100), 26.33, "<1e-3"),
    ("Black M", "GPT-4o", 35, (74, 95), 6.45, "<1e-3"),
    ("Black M", "Hunyuan", 20, (35, 65), 1.00, 1.00),
    ("South Asian F", "Gemini", 34, (71, 93), 5.31, "<1e-3"),
    ("South Asian F", "GPT-4o", 34, (71, 93), 5.31, "<1e-3"),
    ("South Asian F", "Hunyuan", 7, (9, 32), 0.21, "<1e-3"),
    ("South Asian M", "Gemini", 40, (91, 100), 81.00, "<1e-3"),
    ("South Asian M", "GPT-4o", 38, (83, 99), 15.40, "<1e-3"),
    ("South Asian M", "Hunyuan", 18, (31, 60), 0.82, 0.65),
]
TABLE3_ARAB = [
    ("Arab F", "Gemini", 37, (80, 97)),
    ("Arab F", "GPT-4o", 25, (46, 76)),
    ("Arab F", "Hunyuan", 29, (57, 84)),
    ("Arab M", "Gemini", 37, (80, 97)),
    ("Arab M", "GPT-4o", 34, (70, 93)),
    ("Arab M", "Hunyuan", 29, (57, 84)),
]


def _published() -> pl.DataFrame:
    rows = [(c, m, k) for c, m, k, *_ in TABLE4] + [(c, m, k) for c, m, k, _ in TABLE3_ARAB]
    return pl.DataFrame(
        rows, schema={"cohort": pl.String, "model_id": pl.String, "k": pl.Int64}, orient="row"
    ).with_columns(pl.lit(40, dtype=pl.Int64).alias("n"))


def test_wilson_intervals_reproduce_table4() -> None:
    for _, _, k, (lo, hi), *_ in TABLE4:
        low, high = wilson_interval(k, 40)
        assert (low, high) == pytest.approx(proportion_confint(k, 40, method="wilson"), abs=1e-12)
        if k == 26:  # published 49; Wilson gives 49.51 -> 50 (the one inconsistent bound of Table 4)
            assert round(100 * low, 2) == 49.51 and round(100 * high) == hi
            continue
        assert (round(100 * low), round(100 * high)) == (lo, hi), k
    for _, _, k, (lo, hi) in TABLE3_ARAB:  # Table 3 rounds some lower bounds down by one point
        low, high = wilson_interval(k, 40)
        assert abs(round(100 * low) - lo) <= 1 and round(100 * high) == hi


def test_binomial_p_values_and_bh_q_reproduce_table4() -> None:
    table = proportion_rows(_published())
    for k, p in zip(table["k"], table["p"], strict=True):
        assert p == pytest.approx(stats.binomtest(k, 40, 0.5).pvalue, rel=1e-9)
    q = multipletests(table["p"].to_numpy(), method="fdr_bh")[1]
    adjusted = bh_by_family(table, [])
    assert adjusted["p_adj"].to_numpy() == pytest.approx(q)
    by_row = dict(
        zip(zip(adjusted["cohort"], adjusted["model_id"], strict=True), adjusted["p_adj"], strict=True)
    )
    for cohort, model, k, _, _, published_q in TABLE4:
        ours = by_row[(cohort, model)]
        if published_q == "<1e-3":
            assert ours < 1e-3, (cohort, model)
        elif k in (27, 20):
            assert round(ours, 2) == published_q
        elif k == 12:  # published 0.002 < its own p = 0.0166: impossible for BH; we get 0.020
            assert round(ours, 3) == 0.020 and stats.binomtest(12, 40).pvalue > published_q
        else:  # 26/40 and 18/40: published 0.10 and 0.65, BH over the 30 tests gives 0.090 and 0.658
            assert abs(ours - published_q) < 0.011


def test_odds_ratios_and_pseudo_count_rules() -> None:
    for _, _, k, _, published, _ in TABLE4:
        # the table mixes the two rules
        rule: Literal["none", "always"] = "none" if k in (7, 8, 12, 26) else "always"
        assert round(odds_ratio(k, 40, rule), 2) == pytest.approx(published), k
    assert odds_ratio(40, 40, "extreme") == pytest.approx(81.0)  # the caption's rule at k = n
    assert odds_ratio(32, 40, "extreme") == pytest.approx(4.0)
    assert odds_ratio(40, 40, "none") == float("inf")


def test_wilson_and_binomial_equal_the_libraries_on_every_small_table() -> None:
    # the library versions round differently (a few ulp); the values agree to 1e-12
    for n in range(1, 61):
        for k in range(n + 1):
            low, high = wilson_interval(k, n, 0.9)
            ref_low, ref_high = proportion_confint(k, n, alpha=0.1, method="wilson")
            assert (low, high) == pytest.approx((max(0.0, ref_low), min(1.0, ref_high)), abs=1e-12)
            assert binomial_test(k, n, 0.3) == pytest.approx(stats.binomtest(k, n, 0.3).pvalue, rel=1e-9)
    assert all(math.isnan(v) for v in (*wilson_interval(0, 0), binomial_test(0, 0), odds_ratio(0, 0)))


def test_proportion_rows_columns_and_empty_cells() -> None:
    frame = pl.DataFrame({"k": [3, 0], "n": [4, 0]}, schema={"k": pl.Int64, "n": pl.Int64})
    rows = proportion_rows(frame, confidence=0.9, pseudo_count="none")
    assert rows.columns == ["k", "n", "estimate", "ci_low", "ci_high", "p", "odds_ratio"]
    first = rows.row(0, named=True)
    assert first["estimate"] == 0.75 and first["odds_ratio"] == 3.0
    assert (first["ci_low"], first["ci_high"]) == wilson_interval(3, 4, 0.9)
    assert first["p"] == pytest.approx(0.625)  # P(X = 0, 1, 3, 4 | n = 4, 1/2) = 10/16
    assert rows["estimate"][1] is None and math.isnan(rows["ci_low"][1])


def test_bh_by_family_per_family_none_and_empty() -> None:
    rng = np.random.default_rng(4)
    frame = pl.DataFrame({"model": np.repeat(["a", "b"], 20), "p": rng.uniform(0, 1, 40) ** 2}).with_columns(
        pl.when(pl.int_range(pl.len()) == 5).then(None).otherwise(pl.col("p")).alias("p")
    )
    adjusted = bh_by_family(frame, ["model"])
    assert adjusted.columns == ["model", "p", "p_adj"] and adjusted["p_adj"][5] is None
    for model in ("a", "b"):
        part = adjusted.filter(pl.col("model") == model).drop_nulls("p")
        expected = multipletests(part["p"].to_numpy(), method="fdr_bh")[1]
        np.testing.assert_allclose(part["p_adj"].to_numpy(), expected, rtol=1e-12)
    whole = bh_by_family(frame, [])["p_adj"].to_numpy()
    np.testing.assert_allclose(whole, bh_adjust(frame["p"].fill_null(np.nan).to_numpy()), equal_nan=True)
    assert bh_by_family(frame, ["model"], "none")["p_adj"].equals(frame["p"].alias("p_adj"))
    empty = bh_by_family(frame.clear(), ["model"])
    assert empty.height == 0 and empty.schema["p_adj"] == pl.Float64
    assert bh_by_family(pl.DataFrame(), [], "none").columns == ["p_adj"]  # no p column needed when empty


def test_bh_by_family_reads_the_old_column_name_with_a_warning() -> None:
    frame = pl.DataFrame({"p_value": [0.01, 0.04, 0.03]})
    with pytest.warns(DeprecationWarning, match="'p' \\(was 'p_value'\\)"):
        adjusted = bh_by_family(frame, [])
    np.testing.assert_allclose(adjusted["p_adj"].to_numpy(), [0.03, 0.04, 0.04], rtol=1e-12)
