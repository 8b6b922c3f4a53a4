"""The robustness values of ``result_audit_sensitivity`` (Cinelli & Hazlett 2020): the t and
degrees of freedom are those of the face-level model of each SBS, fitted here by statsmodels
from the rows; and against a planted side effect of the edits that the audit did not measure,
a side effect weaker than the robustness value with both cue and judgment never erases an SBS,
one stronger with both always does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.design import StylisticBiasDesign
from cueshift.designs.stylisticbias.edit_audit import read_edit_audit
from cueshift.designs.stylisticbias.stats import audit_sensitivity, audit_variations
from cueshift.render import MarkdownOutput, Report, TableOutput, fmt_percent
from cueshift.stats import Resampling, partial_r2, robustness_value
from cueshift.store import write_tables
from tests.audit_results.planted import audit_rows, simulated_delta, stored_variations, variations_of
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

SETTINGS = Resampling(resamples=200, seed=2, confidence_level=0.9, ci_method="percentile")


@pytest.fixture(scope="module")
def delta() -> pl.DataFrame:
    return simulated_delta(n_faces=40)


def _face_means(delta: pl.DataFrame, value: str = "delta") -> dict[tuple[str, str], pl.DataFrame]:
    """Per model (and pooled) × attribute: each face's mean ``value``, sorted by face."""
    pooled = delta.with_columns(model_id=pl.lit("(pooled)"))
    rows = pl.concat([delta, pooled.select(delta.columns)])
    per_face = rows.group_by("model_id", "feature_key", "face_id").agg(pl.col(value).mean()).sort("face_id")
    return {(m, k): part for (m, k), part in per_face.group_by(["model_id", "feature_key"])}


def test_the_robustness_values_are_those_of_the_face_level_fit(delta: pl.DataFrame) -> None:
    variations = variations_of(delta)
    failed = set(variations["image_id"].sample(fraction=0.3, seed=5))
    rows = audit_rows(variations, failed, {"pixels:brightness": np.zeros(variations.height)})
    table = audit_sensitivity(delta, audit_variations(rows)[0], resampling=SETTINGS)
    kept = delta.filter(~pl.col("image_id").is_in(list(failed)))
    for name, rows_of_set in (("all", delta), ("audited", kept)):
        means = _face_means(rows_of_set)
        for r in table.iter_rows(named=True):
            y = means[(r["model_id"], r["feature_key"])]["delta"].to_numpy()
            fit = sm.OLS(y, np.ones((y.size, 1))).fit()  # the face means on an intercept
            t, df = float(fit.tvalues[0]), float(fit.df_resid)
            assert r[f"{name}_partial_r2"] == pytest.approx(t * t / (t * t + df), rel=1e-9)
            assert r[f"{name}_rv"] == pytest.approx(float(robustness_value(t, df)), rel=1e-9)
            alpha = float(robustness_value(t, df, alpha=0.1))  # 1 - the 90 % interval's level
            assert r[f"{name}_rv_alpha"] == pytest.approx(alpha, rel=1e-9, abs=1e-12)
    assert (table["all_rv_alpha"] <= table["all_rv"]).all()


def test_a_planted_side_effect_the_audit_cannot_see(delta: pl.DataFrame) -> None:
    variations = variations_of(delta)
    rng = np.random.default_rng(9)
    unseen = variations.select("image_id").with_columns(z=rng.normal(0.3, 0.5, variations.height))
    none = {"pixels:brightness": np.zeros(variations.height)}
    rows = audit_rows(variations, set(), none)  # the audit measured no unintended change
    survived = erased = 0
    for effect in (-0.6, -0.3, -0.1, 0.05, 0.2, 0.6):
        shifted = delta.join(unseen, on="image_id").with_columns(delta=pl.col("delta") + effect * pl.col("z"))
        table = audit_sensitivity(shifted.drop("z"), audit_variations(rows)[0], resampling=SETTINGS)
        means, side = _face_means(shifted), _face_means(shifted, "z")
        for r in table.filter(pl.col("all_rv").is_not_null()).iter_rows(named=True):
            y = means[(r["model_id"], r["feature_key"])]["delta"].to_numpy()
            z = side[(r["model_id"], r["feature_key"])]["z"].to_numpy()
            short = sm.OLS(y, np.ones((y.size, 1))).fit()
            long = sm.OLS(y, np.column_stack([np.ones(y.size), z])).fit()  # the SBS net of it
            on_cue = sm.OLS(np.ones(y.size), z[:, None]).fit()  # the cue (the intercept) on z
            r2_d = float(partial_r2(on_cue.tvalues[0], y.size - 1))
            r2_y = float(partial_r2(long.tvalues[1], long.df_resid))
            assert short.params[0] == pytest.approx(r["all_sbs"], abs=1e-12)
            bias = short.bse[0] * np.sqrt(short.df_resid) * np.sqrt(r2_y * r2_d / (1 - r2_d))
            assert abs(short.params[0] - long.params[0]) == pytest.approx(bias, rel=1e-6)  # C&H in R2
            kept = np.sign(long.params[0]) == np.sign(short.params[0])
            if max(r2_d, r2_y) < r["all_rv"]:
                assert kept
                survived += 1
            adverse = np.sign(short.params[0] - long.params[0]) == np.sign(short.params[0])
            if min(r2_d, r2_y) > r["all_rv"] and adverse:  # it made the shift: without it, none
                assert not kept
                erased += 1
    assert survived >= 20 and erased >= 10  # both sides of the robustness value were planted


def test_the_report_shows_the_robustness_of_the_shifts_it_reports(tmp_path: Path) -> None:
    con = store.open_study(tmp_path / "study.duckdb")
    write_study(con, simulate_study(SimulationSpec(n_faces=16, models=("m-a", "m-b"), seed=6)))
    variations = stored_variations(con)
    failed = set(variations["image_id"].sample(fraction=0.2, seed=1))
    write_tables(
        con, {"edit_audit": audit_rows(variations, failed, {"pixels:b": np.zeros(variations.height)})}
    )
    for mode, column in (("strict", "audited"), ("report", "all")):
        audit = read_edit_audit(con, mode)
        run_analyses(con, Resampling(resamples=100), only=["audit_sensitivity"], progress=False, audit=audit)
        stored = pl.from_arrow(con.sql("SELECT * FROM result_audit_sensitivity").to_arrow_table())
        assert isinstance(stored, pl.DataFrame)
        significant = stored.filter(pl.col(f"{column}_rv_alpha") > 0).sort(f"{column}_rv")
        models = ["m-a", "m-b"]
        shown = Report(con, Path("study.duckdb"), models, models, StylisticBiasDesign().report()).outputs(
            "edit_audit"
        )
        text = "".join(o.text for o in shown if isinstance(o, MarkdownOutput))
        assert f"{significant.height} of {stored.height} attribute shifts are significant" in text
        least = significant.row(0, named=True)  # the shifts of this mode: audited edits under strict
        assert f"({least['feature_key']}, " in text
        assert f"explains {fmt_percent(least[f'{column}_rv'], 1)} of the residual variance" in text
        assert f"one that explains {fmt_percent(least[f'{column}_rv_alpha'], 1)}." in text
        table = next(o for o in shown if isinstance(o, TableOutput) and o.styled.key == "audit_sensitivity")
        rv = table.styled.labels.index("RV")
        assert table.styled.labels[rv + 1] == "RV (α)"
        cells = [row[rv] for row in table.styled.texts()]
        assert fmt_percent(least[f"{column}_rv"], 1) in cells
    con.close()
