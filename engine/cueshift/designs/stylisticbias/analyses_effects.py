"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): crossed random
effects (faces and scenarios) and the bootstrap intervals of Table 4's contrast, partial eta^2
and R2 (the latter computed inside ``face_anova``, ``mixed_model`` and ``table4``).

Declared with :class:`cueshift.stats.Declarations` over
:class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered in the order :mod:`cueshift.designs.stylisticbias.analyses` lists the modules.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.constants import LME_CATEGORY_MAP
from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.designs.stylisticbias.run_reads import model_cells_once
from cueshift.designs.stylisticbias.stats import model_level_cells
from cueshift.stats import Declarations, crossed_model, variance_components

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)


@DECLARED(
    "crossed_model",
    description="Mixed model with crossed random intercepts for face and scenario: partial eta^2, F, R2",
    source="delta",
    grouping="term",
    statistic="REML; Wald F, partial eta^2, Nakagawa R2; face-bootstrap refits",
    family="none",
)
def _crossed(ctx: Context) -> pl.DataFrame:
    return crossed_model(
        ctx.inputs.delta,
        category_map=LME_CATEGORY_MAP,
        n_resamples=ctx.inputs.resampling.resamples,
        seed=ctx.inputs.resampling.seed,
        confidence_level=ctx.inputs.resampling.confidence_level,
        cells=model_level_cells(model_cells_once(ctx), crossed=True),
    )


@DECLARED(
    "variance_components",
    description="Variance components of the crossed model (face, scenario, residual, fixed) and shares",
    source="result_crossed_model (or delta)",
    grouping="source",
    statistic="REML variance; share of the total and of the random part",
    family="none",
    after=("crossed_model",),
)
def _components(ctx: Context) -> pl.DataFrame:
    return variance_components(
        ctx.inputs.delta, category_map=LME_CATEGORY_MAP, model=ctx.results.get("crossed_model")
    )
