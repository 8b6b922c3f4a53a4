"""Crossed random effects (faces × scenarios) and the REML kernel behind Table 10's bootstrap refits:
statsmodels' MixedLM as the reference, planted variance components recovered."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
import statsmodels.formula.api as smf

from cueshift.designs.stylisticbias.constants import LME_CATEGORY_MAP
from cueshift.stats import (
    crossed_model,
    crossed_model_cells,
    mixed_model,
    mixed_model_cells,
    variance_components,
)
from cueshift.stats._model_terms import cell_blocks, term_values
from cueshift.stats._reml import _profile, reml_fit, weighted_blocks
from tests.simulate.outputs import delta_frame
from tests.simulate.study import SimulationSpec, simulate_study

FACTORS = ("variation_category", "scenario_category")


def planted_cells(
    n_faces: int, n_scenarios: int, *, face_sd: float, scenario_sd: float, resid_sd: float, seed: int
) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
    """Δ per face × variation category × scenario: 3 categories with effects 0, 0.1, 0.2, scenarios
    in 2 categories (+0.05 for the second), random face and scenario intercepts; returns the
    cells and the realised face and scenario effects."""
    rng = np.random.default_rng(seed)
    u, w = rng.normal(0, face_sd, n_faces), rng.normal(0, scenario_sd, n_scenarios)
    grid = np.meshgrid(np.arange(n_faces), np.arange(3), np.arange(n_scenarios), indexing="ij")
    f, c, s = (axis.ravel() for axis in grid)
    y = 0.1 * c + 0.05 * (s % 2) + u[f] + w[s] + rng.normal(0, resid_sd, f.size)
    cells = pl.DataFrame(
        {
            "face_id": [f"f{i:03d}" for i in f],
            "variation_category": [f"v{i}" for i in c],
            "scenario_category": [f"k{i % 2}" for i in s],
            "scenario_id": [f"s{i:02d}" for i in s],
            "delta": y,
        }
    )
    return cells, u, w


def _statsmodels_crossed(cells: pl.DataFrame):
    frame = cells.to_pandas().assign(group=1)
    model = smf.mixedlm(
        "delta ~ C(variation_category) + C(scenario_category)",
        frame,
        groups="group",
        re_formula="0",
        vc_formula={"face": "0 + C(face_id)", "scenario": "0 + C(scenario_id)"},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(reml=True)


def test_crossed_reml_equals_statsmodels_variance_components() -> None:
    cells, _, _ = planted_cells(24, 8, face_sd=0.4, scenario_sd=0.3, resid_sd=1.0, seed=1)
    blocks = cell_blocks(cells, FACTORS, crossed="scenario_id")
    ours = reml_fit(blocks)
    ref = _statsmodels_crossed(cells)
    vcomp = dict(zip(ref.model.exog_vc.names, ref.vcomp, strict=True))
    # the same REML criterion: ours evaluated at statsmodels' optimum is its log-likelihood ...
    ones = np.ones(blocks.counts.size)
    weighted = weighted_blocks(blocks, ones)
    theta_ref = np.sqrt(np.array([vcomp["face"], vcomp["scenario"]]) / ref.scale)
    assert -_profile(theta_ref, weighted)[0] / 2 == pytest.approx(ref.llf, rel=1e-12)
    # ... and our optimum is at least as high (statsmodels stops ~1e-4 short in the variances)
    assert -_profile(ours.theta, weighted)[0] / 2 >= ref.llf - 1e-9
    assert ours.var_face == pytest.approx(vcomp["face"], rel=1e-3)
    assert ours.var_other == pytest.approx(vcomp["scenario"], rel=1e-3)
    assert ours.var_resid == pytest.approx(ref.scale, rel=1e-5)
    k = len(blocks.names)
    np.testing.assert_allclose(ours.beta, ref.fe_params.to_numpy(), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(ours.cov_beta, ref.cov_params().to_numpy()[:k, :k], rtol=1e-3, atol=1e-12)


def test_face_reml_equals_statsmodels_groups() -> None:
    cells = mixed_model_cells(
        delta_frame(simulate_study(SimulationSpec(n_faces=30, models=("a",), seed=2))),
        category_map=LME_CATEGORY_MAP,
    )
    blocks = cell_blocks(cells, FACTORS)
    ours = reml_fit(blocks)
    frame = cells.to_pandas()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = smf.mixedlm(
            "delta ~ C(variation_category) + C(scenario_category)", frame, groups=frame["face_id"]
        ).fit(reml=True, method=["cg", "nm", "lbfgs"])
    ones = np.ones(blocks.counts.size)
    weighted = weighted_blocks(blocks, ones)
    theta_ref = np.sqrt(np.array([float(ref.cov_re.iloc[0, 0]) / ref.scale]))
    assert -_profile(theta_ref, weighted)[0] / 2 == pytest.approx(ref.llf, rel=1e-12)
    assert -_profile(ours.theta, weighted)[0] / 2 >= ref.llf - 1e-9
    assert ours.var_face == pytest.approx(float(ref.cov_re.iloc[0, 0]), rel=1e-4)
    assert ours.var_resid == pytest.approx(float(ref.scale), rel=1e-5)
    np.testing.assert_allclose(ours.beta, ref.fe_params.to_numpy(), rtol=1e-6, atol=1e-9)


def test_face_weights_equal_duplicated_faces() -> None:
    # a bootstrap replicate (face multiplicities) is the fit of the frame with each drawn copy a face
    cells, _, _ = planted_cells(12, 5, face_sd=0.5, scenario_sd=0.3, resid_sd=1.0, seed=4)
    weights = np.array([0, 2, 1, 1, 3, 0, 1, 1, 0, 2, 0, 1], dtype=np.float64)
    faces = sorted(cells["face_id"].unique().to_list())
    copies = [
        cells.filter(pl.col("face_id") == face).with_columns(face_id=pl.lit(f"{face}-{k}"))
        for face, m in zip(faces, weights, strict=True)
        for k in range(int(m))
    ]
    expanded = reml_fit(cell_blocks(pl.concat(copies), FACTORS, crossed="scenario_id"))
    weighted = reml_fit(cell_blocks(cells, FACTORS, crossed="scenario_id"), weights)
    assert weighted.var_face == pytest.approx(expanded.var_face, rel=1e-5)
    assert weighted.var_other == pytest.approx(expanded.var_other, rel=1e-5)
    assert weighted.var_fixed == pytest.approx(expanded.var_fixed, rel=1e-10)
    np.testing.assert_allclose(weighted.beta, expanded.beta, rtol=1e-8)


def test_planted_face_and_scenario_variances_recovered() -> None:
    cells, u, w = planted_cells(300, 25, face_sd=0.3, scenario_sd=0.2, resid_sd=0.5, seed=7)
    fit = reml_fit(cell_blocks(cells, FACTORS, crossed="scenario_id"))
    # REML targets the realised effects' spread once the cells per face/scenario are many
    assert fit.var_face == pytest.approx(np.var(u, ddof=1), rel=0.05)
    assert fit.var_other == pytest.approx(np.var(w - w.mean(), ddof=1), rel=0.15)
    assert fit.var_resid == pytest.approx(0.25, rel=0.02)
    # and the planted population values within sampling error (25 scenarios: SE of the variance ~ 30 %)
    assert fit.var_face == pytest.approx(0.09, rel=0.2) and fit.var_other == pytest.approx(0.04, rel=0.6)


def test_crossed_model_and_components_on_a_simulated_study() -> None:
    delta = delta_frame(simulate_study(SimulationSpec(n_faces=40, models=("a", "b"), seed=3)))
    table = crossed_model(delta, category_map=LME_CATEGORY_MAP, n_resamples=30)
    comps = variance_components(delta, category_map=LME_CATEGORY_MAP)
    cells = crossed_model_cells(delta, category_map=LME_CATEGORY_MAP)
    per_face_category = cells.group_by("face_id", "variation_category").len()["len"]
    assert (per_face_category == 25).all()  # one cell per scenario of each face × category
    # (statsmodels' variance-component MixedLM takes minutes on these 10,000 cells: the small-frame
    # test above is the reference; here the table's internal relations)
    share = dict(zip(comps["source"], comps["share"], strict=True))
    r2 = dict(zip(table["term"], table["estimate"], strict=True))
    assert sum(share.values()) == pytest.approx(1.0)
    assert share["fixed"] == pytest.approx(r2["R2_marginal"], rel=1e-12)
    assert share["fixed"] + share["face"] + share["scenario"] == pytest.approx(
        r2["R2_conditional"], rel=1e-12
    )
    assert (table["ci_low"] <= table["estimate"]).all() and (table["estimate"] <= table["ci_high"]).all()
    assert table["n_refits"][0] == 30 and table["n_scenarios"][0] == 25
    from_table = variance_components(
        delta, category_map=LME_CATEGORY_MAP, model=table
    )  # read from the stored model, not refitted
    np.testing.assert_allclose(from_table["estimate"], comps["estimate"], rtol=1e-12)
    assert from_table.drop("estimate", "sd", "share", "share_random").equals(
        comps.drop("estimate", "sd", "share", "share_random")
    )


def test_term_values_r2_by_hand() -> None:
    cells, _, _ = planted_cells(20, 6, face_sd=0.4, scenario_sd=0.2, resid_sd=1.0, seed=9)
    blocks = cell_blocks(cells, FACTORS, crossed="scenario_id")
    fit = reml_fit(blocks)
    x = np.column_stack(
        [np.ones(cells.height)]
        + [(cells["variation_category"] == v).to_numpy().astype(float) for v in ("v1", "v2")]
        + [(cells["scenario_category"] == "k1").to_numpy().astype(float)]
    )
    var_f = np.var(x @ fit.beta, ddof=1)
    total = var_f + fit.var_face + fit.var_other + fit.var_resid
    est = term_values(fit, blocks.names, FACTORS).estimates
    assert fit.var_fixed == pytest.approx(var_f, rel=1e-10)
    assert est[2] == pytest.approx(var_f / total) and est[3] == pytest.approx((total - fit.var_resid) / total)


def test_mixed_model_reml_estimator_equals_statsmodels() -> None:
    delta = delta_frame(simulate_study(SimulationSpec(n_faces=30, models=("a",), seed=12)))
    ours = mixed_model(delta, category_map=LME_CATEGORY_MAP, estimator="reml", n_resamples=0)
    ref = mixed_model(delta, category_map=LME_CATEGORY_MAP, n_resamples=0)  # statsmodels MixedLM
    # MixedLM stops ~1e-4 short of the REML optimum in the face variance (see the tests above)
    for column, rtol in (("statistic", 1e-4), ("estimate", 1e-4), ("var_face", 1e-3), ("var_resid", 1e-5)):
        np.testing.assert_allclose(ours[column].to_numpy(), ref[column].to_numpy(), rtol=rtol)
    np.testing.assert_allclose(ours["var_fixed"].to_numpy(), ref["var_fixed"].to_numpy(), rtol=1e-4)
    np.testing.assert_allclose(ours["p"].to_numpy(), ref["p"].to_numpy(), rtol=1e-2, atol=1e-12)
    assert ours.select("term", "df", "df_resid", "n", "n_groups").equals(
        ref.select("term", "df", "df_resid", "n", "n_groups")
    )
    with pytest.raises(ValueError, match="REML"):
        mixed_model(delta, category_map=LME_CATEGORY_MAP, estimator="reml", reml=False)
