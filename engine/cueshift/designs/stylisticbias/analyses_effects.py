"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): crossed random
effects (faces and scenarios) and the bootstrap intervals of Table 4's contrast, partial eta^2
and R2 (the latter computed inside ``face_anova``, ``mixed_model`` and ``table4``).

Declared with :func:`cueshift.stats.analysis` over :class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered when :mod:`cueshift.designs.stylisticbias.analyses` imports this module.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.designs.stylisticbias.run_reads import model_cells_once
from cueshift.designs.stylisticbias.stats import model_level_cells
from cueshift.stats import analysis, crossed_model, variance_components


@analysis(
    "crossed_model",
    suite=SUITE,
    description="Mixed model with crossed random intercepts for face and scenario: partial eta^2, F, R2",
    source="delta",
    grouping="term",
    statistic="REML; Wald F, partial eta^2, Nakagawa R2; face-bootstrap refits",
    family="none",
)
def _crossed(ctx: Context) -> pl.DataFrame:
    return crossed_model(
        ctx.inputs.delta,
        n_resamples=ctx.inputs.n_resamples,
        seed=ctx.inputs.seed,
        confidence_level=ctx.inputs.confidence_level,
        cells=model_level_cells(model_cells_once(ctx), crossed=True),
    )


@analysis(
    "variance_components",
    suite=SUITE,
    description="Variance components of the crossed model (face, scenario, residual, fixed) and shares",
    source="result_crossed_model (or delta)",
    grouping="source",
    statistic="REML variance; share of the total and of the random part",
    family="none",
    after=("crossed_model",),
)
def _components(ctx: Context) -> pl.DataFrame:
    return variance_components(ctx.inputs.delta, model=ctx.results.get("crossed_model"))
