"""R's lme4 as an independent reference on exported data.

A small simulated study (12 faces, 2 models, 8 scenarios) is analysed and exported with
``export_study``; ``counts.parquet`` goes to R as CSV and R rebuilds everything from the counts:

- ``lme4_crossed.R``: φ per model × image × scenario (summed over orderings), Δ against the base
  image, the cells of :func:`cueshift.stats.crossed_model_cells`, and
  ``lmer(delta ~ variation_category + scenario_category + (1 | face_id) + (1 | scenario_id),
  REML = TRUE)`` — the engine's crossed model. Variance components, fixed effects, their standard
  errors and the Wald F per factor must agree to 1e-4 relative (measured: ~1e-7).
- ``glmer_counts.R``: docs/exports.md's binomial GLMM per model on the counts; each variation's
  effect on the probability scale against the engine's SBS (``result_sbs``, level
  ``variation_value``), within the closeness measured and documented in docs/exports.md.

Skipped where ``Rscript`` or lme4 is missing, except under ``CUESHIFT_REQUIRE_R=1`` (set by
``.ci/run``, which installs Debian's ``r-cran-lme4``), where that fails instead.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.constants import LME_CATEGORY_MAP
from cueshift.stats import Resampling, crossed_model_cells
from cueshift.stats._mixed import FACTORS
from cueshift.stats._model_terms import cell_blocks
from cueshift.stats._reml import reml_fit
from cueshift.store.study_export import export_study
from cueshift.views.frames import read_delta
from tests.render.study_db import build_study_db
from tests.rscript import require_rscript
from tests.scalars import real

HERE = Path(__file__).parent
RELATIVE = 1e-4
#: R's own run time is a few seconds; the limit only stops a hung process.
R_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def rscript() -> str:
    return require_rscript("lme4", "r-cran-lme4")


@pytest.fixture(scope="module")
def exported(rscript: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(analysed study database, export folder with counts.csv)."""
    work = tmp_path_factory.mktemp("lme4")
    db = build_study_db(work / "study.duckdb", n_faces=12)
    con = store.open_study(db)
    try:
        run_analyses(
            con,
            Resampling(resamples=20, seed=1),
            progress=False,
            only=["crossed_model", "variance_components", "sbs"],
        )
    finally:
        con.close()
    out = work / "out"
    export_study(db, out, formats=["counts"])
    pl.read_parquet(out / "counts.parquet").write_csv(out / "counts.csv")
    return db, out


def _run_r(rscript: str, script: str, *args: str) -> None:
    done = subprocess.run(
        [rscript, str(HERE / script), *args], capture_output=True, text=True, timeout=R_TIMEOUT_S
    )
    assert done.returncode == 0, done.stderr


def _sql(db: Path, sql: str) -> pl.DataFrame:
    con = duckdb.connect(str(db), read_only=True)
    try:
        frame: pl.DataFrame = con.sql(sql).pl()
        return frame
    finally:
        con.close()


def test_crossed_model_matches_lmer_on_the_exported_counts(rscript, exported):
    db, out = exported
    _run_r(rscript, "lme4_crossed.R", str(out))
    lmer = dict(pl.read_csv(out / "lmer_varcomp.csv").iter_rows())
    model = _sql(db, "SELECT * FROM result_crossed_model").rows_by_key("term", named=True, unique=True)
    components = dict(_sql(db, "SELECT source, estimate FROM result_variance_components").iter_rows())
    first = model["variation_category"]
    assert first["n"] == lmer["n"] and first["converged"]
    for source, column in (("face", "var_face"), ("scenario", "var_scenario"), ("residual", "var_resid")):
        assert lmer[source] > 0
        assert first[column] == pytest.approx(lmer[source], rel=RELATIVE)
        assert components[source] == pytest.approx(lmer[source], rel=RELATIVE)
    for factor in FACTORS:
        assert model[factor]["statistic"] == pytest.approx(lmer[f"wald_{factor}"], rel=RELATIVE)

    with duckdb.connect(str(db), read_only=True) as con:  # the fixed effects the table summarises
        cells = crossed_model_cells(read_delta(con), category_map=LME_CATEGORY_MAP)
    blocks = cell_blocks(cells, FACTORS, crossed="scenario_id")
    fit = reml_fit(blocks)
    fixef = pl.read_csv(out / "lmer_fixef.csv")
    assert list(blocks.names) == fixef["term"].to_list()
    np.testing.assert_allclose(fit.beta, fixef["estimate"].to_numpy(), rtol=RELATIVE, atol=1e-9)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.cov_beta)), fixef["se"].to_numpy(), rtol=RELATIVE)


def test_glmer_on_the_counts_reproduces_the_sbs(rscript, exported):
    db, out = exported
    _run_r(rscript, "glmer_counts.R", str(out), "0")  # nAGQ 0: seconds; Laplace within 1.2e-4
    glmm = pl.read_csv(out / "glmer_effects.csv")
    sbs = _sql(
        db, "SELECT model_id, variation_value, estimate FROM result_sbs WHERE level = 'variation_value'"
    )
    both = sbs.join(glmm, on=["model_id", "variation_value"])  # per model ('(pooled)' has no GLMM)
    assert both.height == glmm.height == 2 * 34
    gap = (both["estimate"] - both["glmm"]).abs()
    # measured here: max 0.0245, mean 0.0040, r 0.9950 (SBS sd 0.077); docs/exports.md
    assert real(gap.max()) < 0.03
    assert real(gap.mean()) < 0.005
    assert np.corrcoef(both["estimate"], both["glmm"])[0, 1] > 0.99
