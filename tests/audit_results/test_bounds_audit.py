"""The benchmark bounds of ``result_audit_sensitivity`` (Cinelli & Hazlett 2020, Sec. 6.1): on a
planted side effect the audit measured and that moves the judgments, the face-level model holding
the measured side effects is statsmodels' fit from the rows, the bound is that of the measured
side effect that moves the SBS most, a row the audit did not measure leaves it null, and Table A1
shows it for the SBS the run reports."""

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
from cueshift.render import MarkdownOutput, Report, TableOutput, fmt_effect
from cueshift.stats import Resampling, ovb_bounds
from cueshift.store import write_tables
from tests.audit_results.planted import audit_rows, simulated_delta, stored_variations, variations_of
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

SETTINGS = Resampling(resamples=100, seed=3, confidence_level=0.9, ci_method="percentile")
MEASURES = ("expression", "lighting")


def _planted() -> tuple[pl.DataFrame, pl.DataFrame]:
    """Δ rows moved by the measured ``expression`` change of their variation (``lighting`` is
    measured but moves nothing), and the audit's variations (30 % failed)."""
    delta = simulated_delta(n_faces=40)
    variations = variations_of(delta)
    rng = np.random.default_rng(12)
    changes = {m: rng.normal(0.1, 0.5, variations.height) for m in MEASURES}
    side = variations.select("image_id").with_columns(*[pl.Series(m, v) for m, v in changes.items()])
    moved = delta.join(side, on="image_id").with_columns(delta=pl.col("delta") + 0.15 * pl.col("expression"))
    failed = set(variations["image_id"].sample(fraction=0.3, seed=4))
    audit = audit_variations(audit_rows(variations, failed, changes))[0]
    return moved, audit


def _faces(rows: pl.DataFrame) -> dict[tuple[str, str], pl.DataFrame]:
    """Per model (and pooled) × attribute: each face's mean Δ and mean measured changes."""
    both = pl.concat([rows, rows.with_columns(model_id=pl.lit("(pooled)"))])
    means = both.group_by("model_id", "feature_key", "face_id").agg(
        pl.col("delta").mean(), *[pl.col(m).mean() for m in MEASURES]
    )
    return {(m, k): part.sort("face_id") for (m, k), part in means.group_by(["model_id", "feature_key"])}


def _partial_r2(fit: sm.regression.linear_model.RegressionResultsWrapper) -> np.ndarray:
    return np.asarray(fit.tvalues**2 / (fit.tvalues**2 + fit.df_resid))


def test_the_bound_is_that_of_the_strongest_measured_side_effect_in_the_face_level_fit() -> None:
    delta, audit = _planted()
    table = audit_sensitivity(delta.drop(*MEASURES), audit, resampling=SETTINGS)
    failed = audit.filter(pl.col("failed")).select("face_id", "feature_key", "variation_value")
    kept = delta.join(failed, on=["face_id", "feature_key", "variation_value"], how="anti")
    chosen = []
    for name, rows in (("all", delta), ("audited", kept)):
        faces = _faces(rows)
        for r in table.iter_rows(named=True):
            f = faces[(r["model_id"], r["feature_key"])]
            y, c = f["delta"].to_numpy(), f.select(MEASURES).to_numpy()
            long = sm.OLS(y, np.column_stack([np.ones(y.size), c])).fit()  # cue = the intercept
            on_cue = sm.OLS(np.ones(y.size), c).fit()  # the cue on the side effects (within faces)
            assert r[f"{name}_bound_from"] == pytest.approx(long.params[0], rel=1e-9, abs=1e-12)
            r2d, r2y = _partial_r2(on_cue), _partial_r2(long)[1:]
            b = ovb_bounds(long.params[0], long.bse[0], long.df_resid, r2d, r2y, alpha=0.1)
            j = int(np.nanargmax(np.abs(long.params[0] - b.estimate)))
            assert r[f"{name}_bound_confound"] == MEASURES[j]
            for column, value in (
                ("r2dz", b.r2dz_x), ("r2yz", b.r2yz_dx), ("sbs", b.estimate),
                ("ci_low", b.ci_low), ("ci_high", b.ci_high),
            ):  # fmt: skip
                if column.startswith("ci") and b.r2yz_dx[j] == 1.0:  # capped: no interval
                    assert r[f"{name}_bound_{column}"] is None
                    continue
                assert r[f"{name}_bound_{column}"] == pytest.approx(float(value[j]), rel=1e-7, abs=1e-12)
            # the bound moves the SBS towards zero (or through it) by the bias of such a confounder
            moved = r[f"{name}_bound_sbs"] - r[f"{name}_bound_from"]
            assert np.sign(moved) == -np.sign(r[f"{name}_bound_from"])
            chosen.append(r[f"{name}_bound_confound"])
    assert chosen.count("expression") > 0.8 * len(chosen)  # the planted one moves the judgments


def test_a_row_the_audit_did_not_measure_leaves_the_bound_null() -> None:
    delta, audit = _planted()
    first = audit.sort("image_id").row(0, named=True)
    unmeasured = audit.with_columns(
        expression=pl.when(pl.col("image_id") == first["image_id"]).then(None).otherwise(pl.col("expression"))
    )
    table = audit_sensitivity(delta.drop(*MEASURES), unmeasured, resampling=SETTINGS)
    hit = (pl.col("feature_key") == first["feature_key"]) & (
        pl.col("model_id").is_in(
            delta.filter(pl.col("image_id") == first["image_id"])["model_id"].unique().to_list()
        )
        | (pl.col("model_id") == "(pooled)")
    )
    assert table.filter(hit)["all_bound_sbs"].is_null().all()
    assert table.filter(~hit)["all_bound_sbs"].is_not_null().all()


def test_table_a1_shows_the_bound_of_the_shifts_it_reports(tmp_path: Path) -> None:
    con = store.open_study(tmp_path / "study.duckdb")
    write_study(con, simulate_study(SimulationSpec(n_faces=16, models=("m-a", "m-b"), seed=6)))
    variations = stored_variations(con).sort("image_id")
    rng = np.random.default_rng(2)
    probes = {m: rng.normal(0.1, 0.5, variations.height) for m in MEASURES}
    failed = set(variations["image_id"].sample(fraction=0.2, seed=1))
    write_tables(con, {"edit_audit": audit_rows(variations, failed, probes)})
    models = ["m-a", "m-b"]
    for mode, column in (("strict", "audited"), ("report", "all")):
        run_analyses(
            con,
            Resampling(resamples=100),
            only=["audit_sensitivity"],
            progress=False,
            audit=read_edit_audit(con, mode),
        )
        stored = pl.from_arrow(con.sql("SELECT * FROM result_audit_sensitivity").to_arrow_table())
        assert isinstance(stored, pl.DataFrame)
        # null only where a cell's faces leave < 2 degrees of freedom beside the two probes
        assert stored[f"{column}_bound_sbs"].null_count() < stored.height / 4
        shown = Report(con, Path("study.duckdb"), models, models, StylisticBiasDesign().report()).outputs(
            "edit_audit"
        )
        table = next(o for o in shown if isinstance(o, TableOutput) and o.styled.key == "audit_sensitivity")
        at = table.styled.labels.index("SBS (1× probe)")
        cells = sorted(row[at] for row in table.styled.texts())
        assert cells == sorted(fmt_effect(v, 4) for v in stored[f"{column}_bound_sbs"])
        # the summary reads the bound of the least robust significant shift (smallest RV among RV_alpha > 0)
        text = "".join(o.text for o in shown if isinstance(o, MarkdownOutput))
        significant = stored.filter(pl.col(f"{column}_rv_alpha") > 0).sort(
            f"{column}_rv", "model_id", "feature_key"
        )
        least = significant.row(0, named=True)
        if least[f"{column}_bound_sbs"] is None:
            assert "Net of the measured side effects" not in text
        else:
            assert (
                f"Net of the measured side effects it is {fmt_effect(least[f'{column}_bound_from'], 4)}; an "
                f"unmeasured one as strong as the strongest measured ({least[f'{column}_bound_confound']}) "
                f"would leave it at {fmt_effect(least[f'{column}_bound_sbs'], 4)}"
            ) in text
