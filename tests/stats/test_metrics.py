"""Hand-worked examples of the seed 000 metrics, and model fits against direct statsmodels fits.

Arithmetic is written out in the comments; expected values are computed by hand, not by the
code under test.
"""

from __future__ import annotations

import datetime as dt
import warnings

import numpy as np
import polars as pl
import pytest
import statsmodels.formula.api as smf

from cueshift import store
from cueshift.designs.stylisticbias.constants import LME_CATEGORY_MAP
from cueshift.designs.stylisticbias.stats import (
    cross_model,
    cumulative_abs_sbs,
    demographic_variation_table,
    face_anova,
    model_summary,
    negativity_asymmetry,
    phi_from_judgments,
    sbs_levels,
    variation_strength,
)
from cueshift.stats import MEAN_OF_MODELS, POOLED, Resampling, bh_adjust, mixed_model, mixed_model_cells
from cueshift.study.scenarios import ORDERING_BY_ID
from tests.simulate.outputs import delta_frame
from tests.simulate.study import SimulationSpec, simulate_study
from tests.stats.frames import base_rows, delta_rows


def _judgments() -> pl.DataFrame:
    """One image × scenario under 4 orderings × 3 seeds (Appendix C.2), answers as letters.

    ordering 1 ((a) fav first):   a, a, b        → fav, fav, unfav
    ordering 2 ((a) fav, second): a, -, b        → fav, invalid, unfav
    ordering 3 ((b) fav, second): a, a, a        → unfav ×3
    ordering 4 ((b) fav first):   b, b, b        → fav ×3
    n_valid = 11, favorable = 2 + 1 + 0 + 3 = 6 → φ = 6/11
    """
    letters: dict[int, list[str | None]] = {
        1: ["a", "a", "b"],
        2: ["a", None, "b"],
        3: ["a", "a", "a"],
        4: ["b", "b", "b"],
    }
    rows = []
    for ordering, answers in letters.items():
        fav = ORDERING_BY_ID[ordering].favorable_letter
        for seed, letter in enumerate(answers, start=1):
            outcome = "invalid" if letter is None else ("favorable" if letter == fav else "unfavorable")
            rows.append(
                {
                    "model_id": "m1",
                    "image_id": "img",
                    "scenario_id": "competent",
                    "ordering": ordering,
                    "seed": seed,
                    "response_text": f"({letter})" if letter else "no idea",
                    "outcome": outcome,
                    "chosen_letter": letter,
                    "p_favorable": None,
                    "p_neither": None,
                    "latency_ms": 1.0,
                    "created_at": dt.datetime(2026, 1, 1),
                    "run_id": "r",
                }
            )
    return pl.DataFrame(
        rows,
        schema_overrides={
            "ordering": pl.Int32,
            "seed": pl.Int32,
            "p_favorable": pl.Float64,
            "p_neither": pl.Float64,
            "chosen_letter": pl.String,
        },
    )


def test_phi_aggregates_across_orderings_and_matches_view(tmp_path):
    judgments = _judgments()
    phi = phi_from_judgments(judgments)
    assert phi.row(0, named=True)["n_valid"] == 11
    assert phi.row(0, named=True)["n_favorable"] == 6
    assert phi["phi"][0] == pytest.approx(6 / 11, abs=1e-15)
    con = store.open_study(tmp_path / "s.duckdb")
    study = simulate_study(
        SimulationSpec(n_faces=1, models=("m1",), scenario_ids=("competent",), variation_values=("Acne",))
    )
    store.write_tables(con, study.tables)
    con.execute("INSERT INTO face VALUES ('x', 'test', NULL, NULL, NULL, NULL, NULL)")
    con.execute(
        "INSERT INTO image VALUES ('img', 'x', 'base', NULL, NULL, NULL, NULL, 'face', 'p', "
        "repeat('a', 64), NULL, NULL, true, NULL)"
    )
    store.write_tables(con, {"judgment": judgments})
    view = con.sql("SELECT phi, n_valid, n_total FROM phi WHERE image_id = 'img'").fetchall()
    assert view == [(pytest.approx(6 / 11, abs=1e-15), 11, 12)]


def test_variation_strength_by_hand():
    # scenario s1: male φ 0.5, 0.7 → 0.6; female 0.2, 0.4 → 0.3; population std of (0.6, 0.3) = 0.15
    # scenario s2: every face 0.5 → std 0
    # plug-in VS = (0.15 + 0) / 2 = 0.075; with ddof = 1: std(0.6, 0.3) = 0.212132… → VS = 0.106066…
    # bias-corrected (stats/_vs.py): var of each group mean = s²_g / n_g = 0.02 / 2 = 0.01 in s1, 0 in s2;
    #   ddof 0: sqrt(0.0225 - (2 - 1) / 2 * 0.01) = sqrt(0.0175) = 0.132288 → VS = 0.066144
    #   ddof 1: sqrt(0.045 - (2 - 1) / 1 * 0.01) = sqrt(0.035) = 0.187083 → VS = 0.093541
    phis = {
        ("f1", "male"): (0.5, 0.5),
        ("f2", "male"): (0.7, 0.5),
        ("f3", "female"): (0.2, 0.5),
        ("f4", "female"): (0.4, 0.5),
    }
    rows = [
        {"face_id": f, "gender": g, "scenario_id": s, "phi": v[i]}
        for (f, g), v in phis.items()
        for i, s in enumerate(("s1", "s2"))
    ]
    base = base_rows(rows)
    vs = variation_strength(base, dimensions=("gender",), resampling=Resampling(resamples=200)).filter(
        pl.col("model_id") == "m1"
    )
    assert vs["plugin_estimate"][0] == pytest.approx(0.075, abs=1e-12)
    assert vs["estimate"][0] == pytest.approx(np.sqrt(0.0175) / 2, abs=1e-12)
    vs1 = variation_strength(
        base, dimensions=("gender",), ddof=1, resampling=Resampling(resamples=200)
    )  # docs/decisions.md#d3
    vs1 = vs1.filter(pl.col("model_id") == "m1")
    assert vs1["plugin_estimate"][0] == pytest.approx(0.3 / np.sqrt(2) / 2, abs=1e-12)
    assert vs1["estimate"][0] == pytest.approx(np.sqrt(0.035) / 2, abs=1e-12)
    assert vs1["ddof"][0] == 1
    for frame in (vs, vs1):
        assert frame["ci_low"][0] <= frame["estimate"][0] <= frame["ci_high"][0]
    # three age groups with means 0.2, 0.5, 0.8 in one scenario: sqrt((0.09 + 0 + 0.09) / 3) = sqrt(0.06);
    # one face per group: the variance of a group mean is unknown, so no bias-corrected VS
    ages = base_rows(
        [
            {"face_id": f"a{i}", "age": age, "scenario_id": "s1", "phi": v}
            for i, (age, v) in enumerate([("young adult", 0.2), ("middle-aged adult", 0.5), ("elderly", 0.8)])
        ]
    )
    vs_age = variation_strength(ages, dimensions=("age",), resampling=Resampling(resamples=200))
    assert vs_age["plugin_estimate"][0] == pytest.approx(np.sqrt(0.06), abs=1e-12)
    assert vs_age["estimate"][0] is None
    assert vs_age.filter(pl.col("model_id") == MEAN_OF_MODELS).height == 1


def test_variation_strength_skips_a_dimension_no_face_is_labelled_with():
    # body type left blank for every face: no VS for it, the labelled dimension is still computed
    rows = [
        {"face_id": f, "gender": g, "body_type": None, "scenario_id": "s1", "phi": v}
        for f, g, v in (
            ("f1", "male", 0.5),
            ("f2", "male", 0.7),
            ("f3", "female", 0.2),
            ("f4", "female", 0.4),
        )
    ]
    vs = variation_strength(
        base_rows(rows), dimensions=("gender", "body_type"), resampling=Resampling(resamples=200)
    )
    assert set(vs["dimension"]) == {"gender"}
    assert vs.filter(pl.col("model_id") == "m1")["plugin_estimate"][0] == pytest.approx(0.15, abs=1e-12)
    nothing = variation_strength(
        base_rows(rows), dimensions=("body_type",), resampling=Resampling(resamples=200)
    )
    assert nothing.height == 0


def _sbs_example() -> pl.DataFrame:
    # value "Casual", model m1, scenarios s1, s2
    # face A: Δ(s1) = +0.25, Δ(s2) = -0.50 → face mean -0.125
    # face B: Δ(s1) = +0.50, Δ(s2) = +0.25 → face mean +0.375
    # face C: Δ(s1) = +1.00, s2 missing (no valid answer) → face mean +1.0
    return delta_rows(
        [
            {"face_id": "A", "variation_value": "Casual", "scenario_id": "s1", "delta": 0.25},
            {"face_id": "A", "variation_value": "Casual", "scenario_id": "s2", "delta": -0.5},
            {"face_id": "B", "variation_value": "Casual", "scenario_id": "s1", "delta": 0.5},
            {"face_id": "B", "variation_value": "Casual", "scenario_id": "s2", "delta": 0.25},
            {"face_id": "C", "variation_value": "Casual", "scenario_id": "s1", "delta": 1.0},
            {"face_id": "C", "variation_value": "Casual", "scenario_id": "s2", "delta": None},
        ]
    )


def test_sbs_by_hand():
    out = sbs_levels(_sbs_example(), resampling=Resampling(resamples=500), dimensions=())
    per_model = out.filter(pl.col("model_id") == "m1")
    value = per_model.filter(pl.col("level") == "variation_value").row(0, named=True)
    # face-level SBS = (-0.125 + 0.375 + 1.0) / 3 = 0.416666…  (the plain row mean would be 1.5 / 5 = 0.3)
    assert value["estimate"] == pytest.approx(1.25 / 3, abs=1e-12)
    assert value["n"] == 3 and value["n_obs"] == 5
    # cells: s1 = (0.25 + 0.5 + 1.0) / 3 = 0.583333…, s2 = (-0.5 + 0.25) / 2 = -0.125
    cells = per_model.filter(pl.col("level") == "cell").sort("scenario_id")
    assert cells["estimate"].to_list() == pytest.approx([1.75 / 3, -0.125], abs=1e-12)
    # |SBS| of the value = mean over its cells of |cell SBS| = (0.583333… + 0.125) / 2
    assert value["abs_sbs"] == pytest.approx((1.75 / 3 + 0.125) / 2, abs=1e-12)
    scen = per_model.filter(pl.col("level") == "scenario").sort("scenario_id")
    assert scen["abs_sbs"].to_list() == pytest.approx([1.75 / 3, 0.125], abs=1e-12)
    pooled = out.filter((pl.col("model_id") == POOLED) & (pl.col("level") == "model"))
    assert pooled["estimate"][0] == pytest.approx(1.25 / 3, abs=1e-12)


def test_model_summary_shares_and_cohens_d_by_hand():
    # Δ rows of m1: 0, 0, 0.25, -0.5, 0.1, 0 → zero share 3/6, |Δ| ≥ 0.25 share 2/6
    vals = [
        ("A", "s1", 0.0),
        ("A", "s2", 0.0),
        ("A", "s3", 0.25),
        ("B", "s1", -0.5),
        ("B", "s2", 0.1),
        ("B", "s3", 0.0),
    ]
    frame = delta_rows(
        [{"face_id": f, "variation_value": "Casual", "scenario_id": s, "delta": d} for f, s, d in vals]
    )
    out = (
        model_summary(frame, resampling=Resampling(resamples=500))
        .filter(pl.col("model_id") == "m1")
        .row(0, named=True)
    )
    assert out["zero_share"] == pytest.approx(0.5) and out["large_share"] == pytest.approx(1 / 3)
    # face means: A = 0.25 / 3, B = -0.4 / 3; d = mean / sd(ddof = 1)
    a, b = 0.25 / 3, -0.4 / 3
    assert out["estimate"] == pytest.approx((a + b) / 2, abs=1e-12)
    assert out["cohens_d"] == pytest.approx(((a + b) / 2) / np.std([a, b], ddof=1), abs=1e-12)


def test_cumulative_abs_sbs_by_hand():
    # |SBS| per value 0.5, 0.3, 0.1, 0.1 → shares 0.5, 0.3, 0.1, 0.1 → cumulative 0.5, 0.8, …
    # → 2 values reach 80 %
    effects = {"Worn": -0.5, "Formal": 0.3, "Acne": -0.1, "Cap": 0.1}
    frame = delta_rows(
        [
            {"face_id": f, "variation_value": v, "scenario_id": "s1", "delta": d}
            for v, d in effects.items()
            for f in ("A", "B")
        ]
    )
    out = cumulative_abs_sbs(frame).filter(pl.col("model_id") == POOLED)
    assert out["variation_value"][:2].to_list() == ["Worn", "Formal"]
    assert out["cumulative_share"].to_list() == pytest.approx([0.5, 0.8, 0.9, 1.0])
    assert out["n_to_threshold"][0] == 2 and out["within_threshold"].sum() == 2


def test_cross_model_by_hand():
    # m2's per-scenario mean Δ is exactly half of m1's → r = 1, slope (m2 on m1) = 0.5, no sign reversal
    m1 = {"s1": 0.2, "s2": -0.1, "s3": 0.05, "s4": 0.3}
    rows = [
        {
            "model_id": m,
            "face_id": f,
            "variation_value": "Casual",
            "scenario_id": s,
            "delta": d * (1 if m == "m1" else 0.5),
        }
        for m in ("m1", "m2")
        for f in ("A", "B")
        for s, d in m1.items()
    ]
    out = cross_model(delta_rows(rows)).row(0, named=True)
    assert out["estimate"] == pytest.approx(1.0) and out["slope"] == pytest.approx(0.5)
    assert out["slope_reverse"] == pytest.approx(2.0) and out["n_sign_reversed"] == 0


def test_negativity_asymmetry_one_sided():
    rng = np.random.default_rng(0)
    rows = []
    for i in range(30):  # |negative cue| ≈ 0.2 > |positive cue| ≈ 0.1 for every face
        rows.append(
            {
                "face_id": f"f{i}",
                "variation_value": "Messy",
                "scenario_id": "s1",
                "delta": -0.2 + rng.normal(0, 0.01),
            }
        )
        rows.append(
            {
                "face_id": f"f{i}",
                "variation_value": "Slicked back",
                "scenario_id": "s1",
                "delta": 0.1 + rng.normal(0, 0.01),
            }
        )
    out = negativity_asymmetry(delta_rows(rows), pairs=[("Messy", "Slicked back"), ("Slicked back", "Messy")])
    forward, backward = out.row(0, named=True), out.row(1, named=True)
    assert forward["estimate"] == pytest.approx(2.0, rel=0.1) and forward["p_adj"] < 1e-5
    assert backward["p"] > 0.99  # one-sided: the reverse claim is not supported


def test_mixed_model_equals_direct_statsmodels_fit():
    study = simulate_study(SimulationSpec(n_faces=40, models=("a", "b"), seed=3))
    delta = delta_frame(study)
    ours = mixed_model(delta, category_map=LME_CATEGORY_MAP)
    cells = mixed_model_cells(delta, category_map=LME_CATEGORY_MAP).to_pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = smf.mixedlm(
            "delta ~ C(variation_category) + C(scenario_category)", cells, groups=cells["face_id"]
        ).fit(reml=True, method=["cg", "nm", "lbfgs"])
    names = list(fit.fe_params.index)
    n, p = len(cells), len(names)
    for factor in ("variation_category", "scenario_category"):
        r = np.zeros((sum(nm.startswith(f"C({factor})") for nm in names), len(fit.params)))
        for row, j in enumerate(i for i, nm in enumerate(names) if nm.startswith(f"C({factor})")):
            r[row, j] = 1.0
        wald = fit.wald_test(r, scalar=True, use_f=False)
        f = float(wald.statistic) / r.shape[0]
        mine = ours.filter(pl.col("term") == factor).row(0, named=True)
        assert mine["statistic"] == pytest.approx(f, rel=1e-8)
        assert mine["estimate"] == pytest.approx(f * r.shape[0] / (f * r.shape[0] + n - p), rel=1e-8)
    var_f = np.var(fit.model.exog @ fit.fe_params.to_numpy(), ddof=1)
    var_u, var_e = float(fit.cov_re.iloc[0, 0]), float(fit.scale)
    r2m = ours.filter(pl.col("term") == "R2_marginal")["estimate"][0]
    r2c = ours.filter(pl.col("term") == "R2_conditional")["estimate"][0]
    assert r2m == pytest.approx(var_f / (var_f + var_u + var_e), rel=1e-8)
    assert r2c == pytest.approx((var_f + var_u) / (var_f + var_u + var_e), rel=1e-8)
    assert ours.filter(pl.col("term") == "variation_category")["df"][0] == 10  # 11 levels (Table 10)


def test_face_anova_uses_per_face_means():
    study = simulate_study(SimulationSpec(n_faces=50, models=("a",), seed=4))
    delta = delta_frame(study)
    ours = face_anova(delta).filter(pl.col("dimension") == "age").row(0, named=True)
    per_face = (
        delta.filter(pl.col("delta").is_not_null())
        .group_by("face_id")
        .agg(pl.col("delta").mean(), pl.col("age").first())
    )
    fit = smf.ols("delta ~ C(age)", per_face.to_pandas()).fit()
    assert ours["statistic"] == pytest.approx(fit.fvalue, rel=1e-10) and ours["n"] == 50


def test_table11_cells_bh_and_sign_reversal():
    study = simulate_study(SimulationSpec(n_faces=60, models=("a",), seed=5))
    table = demographic_variation_table(delta_frame(study), resampling=Resampling(resamples=500))
    assert table.height == 437  # 34 values × 13 groups − 5 not applicable (paper: 437 cells)
    np.testing.assert_allclose(table["p_adj"].to_numpy(), bh_adjust(table["p"].to_numpy()), rtol=1e-12)
    # constructed reversal: male faces shift down (noisy, ns), female faces up (significant)
    male = np.random.default_rng(1).normal(0.0, 0.1, size=30)
    male = male - male.mean() - 0.006  # mean exactly -0.006
    rows = []
    for i in range(30):
        rows.append(
            {
                "face_id": f"m{i}",
                "gender": "male",
                "variation_value": "Facial tattoo",
                "scenario_id": "s1",
                "delta": float(male[i]),
            }
        )
        rows.append(
            {
                "face_id": f"f{i}",
                "gender": "female",
                "variation_value": "Facial tattoo",
                "scenario_id": "s1",
                "delta": 0.033 + 0.001 * (i % 3),
            }
        )
    rev = demographic_variation_table(
        delta_rows(rows), dimensions=("gender",), resampling=Resampling(resamples=500)
    )
    by_group = {r["group"]: r for r in rev.iter_rows(named=True)}
    assert by_group["male"]["p_adj"] > 0.05 and by_group["female"]["p_adj"] < 0.001  # the premise
    assert by_group["male"]["estimate"] == pytest.approx(-0.006, abs=1e-12)
    # the groups differ (MWU), but the male shift is not shown below 0: no counted reversal (D51)
    assert (rev["reversal_evidence"] == "difference significant").all()
    assert not rev["sign_reversal"].any() and not rev["sign_reversal_both"].any()


def test_model_summary_mean_of_models_is_the_same_in_every_run():
    """The "(mean of models)" row averages the model rows in model order, whatever order the
    per-model shares were grouped in (a hash join once left the order, and the last bits, to chance)."""
    rng = np.random.default_rng(9)
    rows = [
        {
            "model_id": m,
            "face_id": f,
            "variation_value": "Casual",
            "scenario_id": s,
            "delta": rng.normal() / 7,
        }
        for m in ("m1", "m2", "m3", "m4", "m5", "m6", "m7")
        for f in ("A", "B", "C")
        for s in ("s1", "s2")
    ]
    frame = delta_rows(rows)
    runs = [
        model_summary(frame.sample(fraction=1.0, shuffle=True, seed=k), resampling=Resampling(resamples=50))
        for k in range(8)
    ]
    for out in runs[1:]:
        assert out.equals(runs[0])
    models = runs[0].filter(pl.col("model_id") != MEAN_OF_MODELS)
    assert models["model_id"].to_list() == sorted(models["model_id"].to_list())
    mean_row = runs[0].filter(pl.col("model_id") == MEAN_OF_MODELS)
    assert mean_row["estimate"][0] == pytest.approx(float(np.mean(models["estimate"].to_numpy())), abs=1e-15)
