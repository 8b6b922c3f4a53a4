"""``result_audit_sensitivity`` on planted data: failed edits and unintended changes that carry a
planted shift in Δ move the table (the audited and the adjusted SBS recover the clean SBS);
without a planted shift the three agree within sampling error; the regression adjustment agrees
with statsmodels fitted independently."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
import statsmodels.formula.api as smf

from cueshift.designs.stylisticbias.stats import audit_sensitivity, audit_variations
from cueshift.stats import Resampling
from tests.audit_results.planted import audit_rows, face_level_sbs, simulated_delta, variations_of
from tests.scalars import real

SETTINGS = Resampling(resamples=400, seed=2, confidence_level=0.95, ci_method="percentile")
SHIFT = 0.15


@pytest.fixture(scope="module")
def delta() -> pl.DataFrame:
    return simulated_delta()


def _clean(delta: pl.DataFrame) -> dict[tuple[str, str], float]:
    return {(m, k): s for m, k, s in face_level_sbs(delta).iter_rows()}


def test_failed_edits_with_a_planted_shift_move_all_but_not_audited(delta: pl.DataFrame) -> None:
    variations = variations_of(delta)
    failed = set(variations["image_id"].sample(fraction=0.25, seed=3))
    shifted = delta.with_columns(
        delta=pl.col("delta") + pl.when(pl.col("image_id").is_in(list(failed))).then(SHIFT).otherwise(0.0)
    )
    rng = np.random.default_rng(5)
    rows = audit_rows(variations, failed, {"probe_lighting": rng.normal(0.0, 1.0, variations.height)})
    table = audit_sensitivity(shifted, audit_variations(rows)[0], resampling=SETTINGS)

    kept = delta.filter(~pl.col("image_id").is_in(list(failed)))
    clean_kept, clean_all = _clean(kept), _clean(delta)
    for r in table.iter_rows(named=True):
        key = (r["model_id"], r["feature_key"])
        assert r["audited_sbs"] == pytest.approx(clean_kept[key], abs=1e-12)  # exactly the kept rows
        assert r["all_sbs"] != pytest.approx(clean_all[key], abs=1e-6)  # the shift is in
    pooled = table.filter(pl.col("model_id") == "(pooled)")
    moved = (
        pooled["all_sbs"] - pl.Series([clean_all[("(pooled)", k)] for k in pooled["feature_key"]])
    ).mean()
    assert moved == pytest.approx(SHIFT * 0.25, abs=0.02)  # the share of failed edits x the shift
    gap = (
        pooled["audited_sbs"] - pl.Series([clean_all[("(pooled)", k)] for k in pooled["feature_key"]])
    ).abs()
    assert real(gap.max()) < 0.02  # the audited SBS recovers the clean one (sampling error of a 75 % subset)
    assert (pooled["change_audited"] < 0).all()  # dropping the shifted edits lowers every SBS
    counted = variations.with_columns(failed=pl.col("image_id").is_in(list(failed)))
    expected = counted.group_by("feature_key").agg(pl.len().alias("n"), pl.col("failed").sum().alias("f"))
    got = pooled.select("feature_key", "n_variations", "n_failed").join(expected, on="feature_key")
    assert (got["n_variations"] == got["n"]).all() and (got["n_failed"] == got["f"]).all()
    assert (table["n_audited"] == table["n_variations"] - table["n_failed"]).all()


def test_unintended_changes_with_a_planted_shift_are_adjusted_away(delta: pl.DataFrame) -> None:
    variations = variations_of(delta)
    rng = np.random.default_rng(8)
    brightness = rng.normal(0.5, 0.5, variations.height)  # edits brighten on average
    expression = rng.normal(0.0, 1.0, variations.height)  # and move the expression, mean 0
    confounds = variations.select("image_id").with_columns(b=brightness, e=expression)
    shifted = (
        delta.join(confounds, on="image_id")
        .with_columns(delta=pl.col("delta") + 0.2 * pl.col("b") + 0.05 * pl.col("e"))
        .drop("b", "e")
    )
    rows = audit_rows(variations, set(), {"probe_lighting": brightness, "probe_expression": expression})
    table = audit_sensitivity(shifted, audit_variations(rows)[0], resampling=SETTINGS)
    clean = _clean(delta)
    pooled = table.filter(pl.col("model_id") == "(pooled)")
    truth = pl.Series([clean[("(pooled)", k)] for k in pooled["feature_key"]])
    assert ((pooled["all_sbs"] - truth).mean()) == pytest.approx(0.1, abs=0.02)  # 0.2 x mean brightness
    assert real((pooled["adjusted_sbs"] - truth).abs().max()) < 0.015
    covered = (pooled["adjusted_ci_low"] <= truth) & (truth <= pooled["adjusted_ci_high"])
    assert real(covered.mean()) >= 0.8
    assert (table["p"] < 0.01).all()  # the changes do move Δ: the Wald test sees it
    assert (table["confounds"] == "probe_expression,probe_lighting").all()
    assert (table["n_failed"] == 0).all() and (table["audited_sbs"] == table["all_sbs"]).all()


def test_without_a_planted_shift_the_three_agree_within_sampling_error(delta: pl.DataFrame) -> None:
    variations = variations_of(delta)
    rng = np.random.default_rng(11)
    failed = set(variations["image_id"].sample(fraction=0.1, seed=12))
    rows = audit_rows(variations, failed, {"probe_lighting": rng.normal(0.4, 0.5, variations.height)})
    table = audit_sensitivity(delta, audit_variations(rows)[0], resampling=SETTINGS)
    inside = (
        (table["audited_ci_low"] <= table["all_sbs"])
        & (table["all_sbs"] <= table["audited_ci_high"])
        & (table["adjusted_ci_low"] <= table["all_sbs"])
        & (table["all_sbs"] <= table["adjusted_ci_high"])
    )
    assert real(inside.mean()) >= 0.9
    assert real(table["change_audited"].abs().max()) < 0.02
    assert real(table["change_adjusted"].abs().max()) < 0.03
    assert real((table["p"] < 0.05).mean()) <= 0.25


def test_the_adjustment_is_statsmodels_ols_with_face_clustered_errors(delta: pl.DataFrame) -> None:
    variations = variations_of(delta)
    rng = np.random.default_rng(21)
    c1, c2 = rng.normal(0.3, 1.0, variations.height), rng.normal(0.0, 1.0, variations.height)
    rows = audit_rows(variations, set(), {"probe_lighting": c1, "probe_background": c2})
    table = audit_sensitivity(delta, audit_variations(rows)[0], resampling=SETTINGS)
    cell = (
        delta.filter((pl.col("model_id") == "sim-a") & (pl.col("feature_key") == "hair_color"))
        .join(variations.select("image_id").with_columns(c1=c1, c2=c2), on="image_id")
        .to_pandas()
    )
    assert cell.groupby("face_id").size().nunique() == 1  # balanced: OLS is the face-weighted fit
    fit = smf.ols("delta ~ c1 + c2", data=cell).fit(cov_type="cluster", cov_kwds={"groups": cell["face_id"]})
    adjusted = cell["delta"] - fit.params["c1"] * cell["c1"] - fit.params["c2"] * cell["c2"]
    sbs = adjusted.groupby(cell["face_id"]).mean().mean()  # seed 000 Eq. 4 on the adjusted Δ
    wald = fit.wald_test("c1 = 0, c2 = 0", scalar=True)
    row = table.filter((pl.col("model_id") == "sim-a") & (pl.col("feature_key") == "hair_color")).row(
        0, named=True
    )
    assert row["adjusted_sbs"] == pytest.approx(sbs, abs=1e-12)
    assert row["adjusted_sbs"] == pytest.approx(fit.params["Intercept"], abs=1e-12)
    low, high = fit.conf_int(alpha=0.05).loc["Intercept"]
    assert (row["adjusted_ci_low"], row["adjusted_ci_high"]) == (pytest.approx(low), pytest.approx(high))
    assert row["statistic"] == pytest.approx(float(wald.statistic), rel=1e-9)
    assert row["p"] == pytest.approx(float(wald.pvalue), rel=1e-9)
    assert row["df"] == 2 and row["n_adjusted"] == cell["image_id"].nunique()


def test_the_adjustment_weights_faces_equally_when_they_have_unequal_rows(delta: pl.DataFrame) -> None:
    variations = variations_of(delta)
    cell = delta.filter((pl.col("model_id") == "sim-b") & (pl.col("feature_key") == "hair_color"))
    faces = cell["face_id"].unique().sort()
    uneven = cell.filter(
        ~(pl.col("face_id").is_in(faces[::2].to_list()) & (pl.col("scenario_id") != "competent"))
    )
    rng = np.random.default_rng(3)
    c = rng.normal(0.2, 1.0, variations.height)
    rows = audit_rows(variations, set(), {"probe_lighting": c})
    row = audit_sensitivity(uneven, audit_variations(rows)[0], resampling=SETTINGS).row(0, named=True)
    frame = uneven.join(variations.select("image_id").with_columns(c=c), on="image_id").to_pandas()
    weights = 1.0 / frame.groupby("face_id")["delta"].transform("size")
    fit = smf.wls("delta ~ c", data=frame, weights=weights).fit(
        cov_type="cluster", cov_kwds={"groups": frame["face_id"]}
    )
    adjusted = frame["delta"] - fit.params["c"] * frame["c"]
    assert row["adjusted_sbs"] == pytest.approx(adjusted.groupby(frame["face_id"]).mean().mean(), abs=1e-12)
    plain = smf.ols("delta ~ c", data=frame).fit()
    assert abs(row["adjusted_sbs"] - plain.params["Intercept"]) > 1e-6  # not the row-weighted fit


def test_constant_and_repeated_changes_leave_the_fit_and_few_faces_give_no_adjustment(
    delta: pl.DataFrame,
) -> None:
    variations = variations_of(delta)
    c = np.random.default_rng(4).normal(0.0, 1.0, variations.height)
    confounds = {
        "probe_lighting": c,
        "probe_smile": 2.0 * c + 1.0,  # after probe_lighting in name order: the repeated one
        "probe_head_pose": np.full(variations.height, 0.5),
    }
    rows = audit_rows(variations, set(), confounds)
    table = audit_sensitivity(delta, audit_variations(rows)[0], resampling=SETTINGS)
    assert (table["confounds"] == "probe_lighting").all() and (table["df"] == 1).all()
    alone = audit_sensitivity(
        delta, audit_variations(audit_rows(variations, set(), {"probe_lighting": c}))[0], resampling=SETTINGS
    )
    assert table["adjusted_sbs"].to_list() == pytest.approx(alone["adjusted_sbs"].to_list(), abs=1e-12)
    few = delta.filter(pl.col("face_id").is_in(["face0000", "face0001"]))
    two = audit_sensitivity(few, audit_variations(rows)[0], resampling=SETTINGS)
    assert two["adjusted_sbs"].null_count() == two.height  # 2 faces, 2 parameters: no clustered covariance
    assert two["all_sbs"].null_count() == 0


def test_pixel_statistics_flag_edits_but_adjust_nothing(delta: pl.DataFrame) -> None:
    """An edit's pixel statistics carry its cue (a hair colour edit moves the colour balance): Δ
    that depends on them is not "adjusted" to an edit that changed no pixel."""
    variations = variations_of(delta)
    brightness = np.random.default_rng(5).normal(0.5, 0.5, variations.height)
    shifted = (
        delta.join(variations.select("image_id").with_columns(b=brightness), on="image_id")
        .with_columns(delta=pl.col("delta") + 0.2 * pl.col("b"))
        .drop("b")
    )
    rows = audit_rows(variations, set(), {"pixels:brightness": brightness})
    table = audit_sensitivity(shifted, audit_variations(rows)[0], resampling=SETTINGS)
    assert table["adjusted_sbs"].to_list() == pytest.approx(table["all_sbs"].to_list(), abs=1e-12)
    assert table["confounds"].fill_null("").str.len_chars().max() == 0  # nothing to adjust for
    probed = audit_sensitivity(
        shifted,
        audit_variations(audit_rows(variations, set(), {"probe_lighting": brightness}))[0],
        resampling=SETTINGS,
    )
    moved = (probed["adjusted_sbs"] - probed["all_sbs"]).abs()
    assert real(moved.min()) > 0.05  # the same change as a confound probe is adjusted (0.2 x mean 0.5)
