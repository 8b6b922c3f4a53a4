"""Missing answers as a bias (docs/decisions.md#d2): invalid and refusal rates, their shift per variation, and
invalid answers by ordering x letter, against hand-worked cases, scipy/statsmodels, and the
simulated judge with a planted variation that raises refusals (and a null where none is planted)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from cueshift import store
from cueshift.designs import load_study
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.stats import (
    missing_by_ordering,
    missing_lean,
    missing_rates,
    missing_shift,
)
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.stats import Resampling, wilson_interval
from cueshift.stats._clustered_share import clustered_wilson
from tests.execution.test_runner import study_file
from tests.scalars import real

BOOT = Resampling(resamples=400, seed=1, confidence_level=0.95, ci_method="percentile")
# face i: (base invalid of 8, base refusals, V invalid of 12, V refusals, W invalid of 12)
FACES = [(0, 0, 3, 1, 1), (1, 1, 1, 0, 0), (2, 0, 7, 3, 2), (0, 0, 5, 5, 0),
         (3, 2, 2, 2, 1), (1, 0, 9, 4, 0), (4, 4, 1, 0, 3), (0, 0, 6, 6, 1)]  # fmt: skip


def _image(face: int, image: str, role: str, value: str | None, n: int, k: int, r: int) -> dict[str, object]:
    return {
        "model_id": "m", "face_id": f"f{face}", "image_id": image, "role": role,
        "base_image_id": None if role == "base" else f"f{face}_base",
        "variation_category": None if value is None else "Cat",
        "feature_key": None if value is None else "cat",
        "variation_value": value, "age": "young adult", "gender": "female" if face % 2 else "male",
        "ethnicity": "Asian", "body_type": None, "ordering": 1,
        "n_answers": n, "n_invalid": k, "n_refusal": r, "n_unrecorded": 0,
    }  # fmt: skip


def hand_counts() -> pl.DataFrame:
    rows = []
    for i, (kb, rb, kv, rv, kw) in enumerate(FACES):
        rows.append(_image(i, f"f{i}_base", "base", None, 8, kb, rb))
        rows.append(_image(i, f"f{i}_v", "variation", "V", 12, kv, rv))
        rows.append(_image(i, f"f{i}_w", "variation", "W", 12, kw, 0))
    return pl.DataFrame(rows).with_columns(pl.col("n_answers", "n_invalid", "n_refusal").cast(pl.Int64))


def _cell(frame: pl.DataFrame, **where: object) -> dict[str, Any]:
    rows = frame.filter(*(pl.col(k) == v for k, v in where.items()))
    assert rows.height == 1, where
    return rows.row(0, named=True)


def _overall(out: dict[str, pl.DataFrame] | pl.DataFrame, rate: str, model: str = "sim") -> pl.DataFrame:
    shift = out if isinstance(out, pl.DataFrame) else out["missing_shift"]
    return shift.filter(pl.col("model_id") == model, pl.col("dimension") == "(all)", pl.col("rate") == rate)


def test_shift_matches_scipy_wilcoxon_and_statsmodels_bh() -> None:
    out = missing_shift(hand_counts(), resampling=BOOT)
    shifts = {}
    for value, column in (("V", 2), ("W", 4)):
        # exact rationals: in floats 1/12 - 4/8 and -5/12 differ in the last bit, and scipy would
        # rank a tie as two values (docs/decisions.md#d4)
        delta = np.array([float(Fraction(f[column], 12) - Fraction(f[0], 8)) for f in FACES])
        shifts[value] = delta
        row = _cell(out, model_id="m", dimension="(all)", variation_value=value, rate="invalid")
        reference = sps.wilcoxon(delta)  # two-sided, zero_method 'wilcox'
        assert row["estimate"] == pytest.approx(delta.mean(), abs=1e-15)
        assert row["statistic"] == pytest.approx(reference.statistic)
        assert row["p"] == pytest.approx(reference.pvalue, rel=1e-12)
        assert row["rate_base"] == pytest.approx(np.mean([f[0] / 8 for f in FACES]))
        assert row["ci_low"] <= row["estimate"] <= row["ci_high"]
        assert (row["n"], row["n_obs"]) == (8, 96)
    family = _overall(out, "invalid", model="m")
    expected = multipletests(family["p"].to_numpy(), method="fdr_bh")[1]
    np.testing.assert_allclose(family["p_adj"].to_numpy(), expected, rtol=1e-12)
    refusal = _cell(out, model_id="m", dimension="(all)", variation_value="V", rate="refusal")
    assert refusal["estimate"] == pytest.approx(np.mean([f[3] / 12 - f[1] / 8 for f in FACES]))
    female = _cell(out, model_id="m", dimension="gender", group="female", variation_value="V", rate="invalid")
    assert female["estimate"] == pytest.approx(shifts["V"][1::2].mean())
    assert female["n"] == 4
    assert out.filter(pl.col("dimension") == "body_type").height == 0  # no labels: no rows


def test_results_do_not_depend_on_row_order() -> None:
    counts = hand_counts()
    reference = missing_shift(counts, resampling=BOOT)
    shuffled = missing_shift(counts.sample(fraction=1.0, shuffle=True, seed=7), resampling=BOOT)
    assert shuffled.equals(reference)


def test_rates_are_the_face_level_shares() -> None:
    counts = hand_counts()
    out = missing_rates(counts)
    base = _cell(out, model_id="m", dimension="(all)", variation_value="(base)", rate="invalid")
    assert base["estimate"] == pytest.approx(np.mean([f[0] / 8 for f in FACES]))
    assert (base["n_answers"], base["n_events"], base["n"]) == (64, sum(f[0] for f in FACES), 8)
    where = {"dimension": "age", "group": "young adult", "variation_value": "V"}
    v = _cell(out, model_id="(pooled)", rate="refusal", **where)
    assert v["estimate"] == pytest.approx(np.mean([f[3] / 12 for f in FACES]))
    assert ((out["ci_low"] <= out["estimate"]) & (out["estimate"] <= out["ci_high"])).all()
    unrecorded = counts.with_columns(pl.lit(1).alias("n_unrecorded"))
    assert set(missing_rates(unrecorded)["rate"]) == {"invalid"}  # refusal status unknown


def test_clustered_wilson_against_statsmodels_and_the_independent_case() -> None:
    # clustered: faces differ, so n_eff = p(1-p) / (s^2 / n_F) < N; the interval is statsmodels'
    # Wilson interval of p at n_eff answers
    shares = np.array([[0.0], [0.25], [0.5], [0.125], [0.0], [0.375]])
    estimate, low, high, n = clustered_wilson(shares, np.array([48.0]))
    p = shares.mean()
    n_eff = p * (1 - p) / (shares.var(ddof=1) / 6)
    assert n_eff < 48 and n[0] == 6 and estimate[0] == pytest.approx(p)
    reference = proportion_confint(p * n_eff, n_eff, alpha=0.05, method="wilson")
    np.testing.assert_allclose([low[0], high[0]], reference, rtol=1e-9)
    # every face alike (or a share of 0): the answers count as independent, n_eff = N
    same = np.full((4, 2), np.nan)
    same[:, 0] = 0.25
    same[:, 1] = 0.0
    estimate, low, high, _ = clustered_wilson(same, np.array([40.0, 40.0]))
    np.testing.assert_allclose([low[0], high[0]], wilson_interval(10, 40), rtol=1e-12)
    np.testing.assert_allclose([low[1], high[1]], wilson_interval(0, 40), rtol=1e-12, atol=1e-15)
    assert high[1] > 0  # a share seen as 0 is not known to be 0


def test_by_ordering_shares_and_poles() -> None:
    counts = pl.DataFrame(
        {
            "model_id": ["m"] * 4, "face_id": ["f1", "f1", "f2", "f2"], "ordering": [1, 3, 1, 3],
            "n_answers": [10, 10, 20, 20],
        }
    )  # fmt: skip
    named = pl.DataFrame(
        {
            "model_id": ["m"] * 3, "face_id": ["f1", "f1", "f2"], "ordering": [1, 3, 3],
            "named_letter": ["a", "a", "none"], "n_invalid": [2, 1, 4],
        }
    )  # fmt: skip
    out = missing_by_ordering(counts, named, resampling=BOOT)
    a1 = _cell(out, model_id="m", ordering=1, named_letter="a")
    a3 = _cell(out, model_id="m", ordering=3, named_letter="a")
    none3 = _cell(out, model_id="m", ordering=3, named_letter="none")
    assert (a1["pole"], a3["pole"]) == ("favorable", "unfavorable")  # ordering 3: (b) is favorable
    assert a1["estimate"] == pytest.approx((2 / 10 + 0 / 20) / 2)
    assert a3["estimate"] == pytest.approx((1 / 10 + 0 / 20) / 2)
    assert none3["pole"] is None and none3["estimate"] == pytest.approx((0 + 4 / 20) / 2)
    assert (a1["n_answers"], a1["n_events"], a1["n"]) == (30, 2, 2)
    assert out.height == 2 * 2 * 4  # (m, pooled) x 2 orderings x 4 named letters


def test_lean_toward_a_pole_against_scipy() -> None:
    """Invalid answers that name the favorable pole's letter (ordering 1: a, ordering 3: b) more often
    than the other: per face (k+ - k-) / n, WSRT as scipy on the exact values."""
    rng = np.random.default_rng(3)
    faces = [f"f{i}" for i in range(10)]
    k_fav = rng.integers(0, 6, 10)
    k_unfav = rng.integers(0, 3, 10)
    counts = pl.DataFrame(
        {
            "model_id": "m",
            "face_id": faces * 2,
            "ordering": [1] * 10 + [3] * 10,
            "n_answers": [12] * 10 + [8] * 10,
        }
    )
    named = pl.DataFrame(
        {
            "model_id": "m", "face_id": faces * 2, "ordering": [1] * 10 + [3] * 10,
            "named_letter": ["a"] * 10 + ["a"] * 10,  # ordering 1: favorable; ordering 3: unfavorable
            "n_invalid": np.concatenate([k_fav, k_unfav]).tolist(),
        }
    )  # fmt: skip
    out = missing_lean(counts, named, resampling=BOOT)
    row = _cell(out, model_id="m")
    lean = np.array([float(Fraction(int(kf) - int(ku), 20)) for kf, ku in zip(k_fav, k_unfav, strict=True)])
    reference = sps.wilcoxon(lean)
    assert row["estimate"] == pytest.approx(lean.mean())
    assert row["p"] == pytest.approx(reference.pvalue, rel=1e-12)
    assert row["share_favorable"] == pytest.approx(np.mean(k_fav / 20))
    assert row["ci_low"] <= row["estimate"] <= row["ci_high"] and row["n_answers"] == 200


# --------------------------------------------------------------------------- simulated judge

PLANTED_RATE, BASE_RATE, REFUSAL_SHARE = 0.3, 0.02, 0.5  # default invalid_rate and refusal weight
ANALYSES = ["missing_rates", "missing_shift", "missing_by_ordering", "missing_lean"]


def _simulate(tmp: Path, cache: Path, name: str, extra: str) -> dict[str, pl.DataFrame]:
    path = study_file(tmp, cache, name=name, faces=12, settings=f"seed = 5\n{extra}")
    summary = run_study(load_study(path), RunOptions(progress=False))
    con = store.open_study(summary.database)
    try:
        return run_analyses(con, Resampling(resamples=400), only=ANALYSES, write=False, progress=False)
    finally:
        con.close()


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> tuple[dict[str, pl.DataFrame], dict[str, pl.DataFrame]]:
    tmp = tmp_path_factory.mktemp("missing")
    planting = f'variation_invalid_rates = {{ "eyewear=Thick-rimmed" = {PLANTED_RATE} }}'
    planted = _simulate(tmp, tmp / "cache", "planted", planting)
    return planted, _simulate(tmp, tmp / "cache", "null", "")


def test_a_variation_that_raises_refusals_is_recovered(simulated) -> None:
    planted, _ = simulated
    shift = PLANTED_RATE - BASE_RATE
    for rate, truth in (("invalid", shift), ("refusal", REFUSAL_SHARE * shift)):
        cells = _overall(planted, rate)
        row = _cell(cells, variation_value="Thick-rimmed")
        assert row["ci_low"] <= truth <= row["ci_high"], (rate, row)
        assert row["p_adj"] < 0.05
        others = cells.filter(pl.col("variation_value") != "Thick-rimmed")
        assert (others["p_adj"] < 0.05).sum() <= 1  # BH: the nulls stay (almost) quiet
    rates = planted["missing_rates"].filter(pl.col("model_id") == "sim", pl.col("rate") == "invalid")
    base = _cell(rates, dimension="(all)", variation_value="(base)")
    assert base["ci_low"] <= BASE_RATE <= base["ci_high"]
    # the planted variation shifts every demographic group of the faces alike
    groups = planted["missing_shift"].filter(
        pl.col("model_id") == "sim", pl.col("rate") == "invalid", pl.col("variation_value") == "Thick-rimmed"
    )
    assert (groups["estimate"] > 0.15).all()


def test_no_shift_where_none_is_planted(simulated) -> None:
    _, null = simulated
    for rate in ("invalid", "refusal"):
        cells = _overall(null, rate)
        assert cells.height > 20
        assert (cells["p_adj"] < 0.05).sum() == 0
        assert abs(real(cells["estimate"].mean())) < 0.01


def test_invalid_answers_by_ordering_show_the_judges_hedge(simulated) -> None:
    """The simulated judge's only hedge that names a letter is 'Maybe (a), ...': its invalid answers
    name (a) in every ordering and never (b); the share does not follow the pole (a) holds."""
    _, null = simulated
    out = null["missing_by_ordering"].filter(pl.col("model_id") == "sim")
    named_b = out.filter(pl.col("named_letter") == "b")
    assert (named_b["n_events"] == 0).all()
    named_a = out.filter(pl.col("named_letter") == "a")
    assert (named_a["n_events"] > 0).all()
    favorable = named_a.filter(pl.col("pole") == "favorable")["estimate"].mean()
    unfavorable = named_a.filter(pl.col("pole") == "unfavorable")["estimate"].mean()
    assert abs(favorable - unfavorable) < 0.003
    lean = _cell(null["missing_lean"], model_id="sim")  # 'Maybe (a)' names either pole equally often
    assert lean["ci_low"] <= 0 <= lean["ci_high"] and lean["p_adj"] > 0.05
