"""How closely the exported counts' GLMM reproduces the engine's SBS (docs/exports.md).

Builds the simulated study of the report tests (24 faces, 2 models), analyses it, exports
``counts.parquet`` and fits, per model, with R's lme4::glmer (Laplace)::

    cbind(favourable, valid - favourable) ~ variation_value + (1 | face_id) + (1 | scenario_id)

(``base`` the reference level). Each variation's effect on the probability scale is the mean over
the data's face × scenario cells of the predicted P(favourable) with the variation minus with
the base image, compared to the engine's ``result_sbs`` (level ``variation_value``). Needs Rscript
with lme4; takes minutes. Run: ``.venv/bin/python -m benchmarks.export_glmm``.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import duckdb
import numpy as np
import polars as pl

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.stats import Resampling
from cueshift.store.study_export import export_study
from tests.render.study_db import build_study_db

FIT = """
suppressMessages(library(lme4))
d <- read.csv("{dir}/counts.csv"); d <- d[d$valid > 0, ]
d$variation_value <- relevel(factor(d$variation_value), ref = "base")
out <- NULL
for (m in unique(d$model_id)) {{
  s <- d[d$model_id == m, ]
  fit <- glmer(cbind(favourable, valid - favourable) ~ variation_value + (1 | face_id) + (1 | scenario_id),
               family = binomial, data = s, control = glmerControl(optimizer = "bobyqa"))
  cells <- unique(s[, c("face_id", "scenario_id")])
  for (v in setdiff(levels(s$variation_value), "base")) {{
    nb <- cells; nb$variation_value <- factor("base", levels = levels(s$variation_value))
    nv <- cells; nv$variation_value <- factor(v, levels = levels(s$variation_value))
    eff <- mean(predict(fit, nv, type = "response") - predict(fit, nb, type = "response"))
    out <- rbind(out, data.frame(model_id = m, variation_value = v, glmm = eff))
  }}
}}
write.csv(out, "{dir}/glmm.csv", row.names = FALSE)
"""


def main() -> None:
    work = Path(tempfile.mkdtemp())
    db = build_study_db(work / "study.duckdb", n_faces=24)
    con = store.open_study(db)
    try:
        run_analyses(con, Resampling(resamples=50, seed=1), progress=False)
    finally:
        con.close()
    export_study(db, work / "out", formats=["counts"])
    pl.read_parquet(work / "out" / "counts.parquet").write_csv(work / "counts.csv")
    (work / "fit.R").write_text(FIT.format(dir=work))
    subprocess.run(["Rscript", str(work / "fit.R")], check=True)
    with duckdb.connect(str(db), read_only=True) as ro:
        sbs = ro.sql(
            "SELECT model_id, variation_value, estimate FROM result_sbs WHERE level = 'variation_value'"
        ).pl()
    both = sbs.join(pl.read_csv(work / "glmm.csv"), on=["model_id", "variation_value"])
    gap = (both["estimate"] - both["glmm"]).abs()
    r = np.corrcoef(both["estimate"], both["glmm"])[0, 1]
    print(
        f"{both.height} model x variation SBS: max |SBS - GLMM| {gap.max():.4f}, mean {gap.mean():.4f}, "
        f"correlation {r:.4f}, SBS sd {both['estimate'].std():.4f}"
    )


if __name__ == "__main__":
    main()
