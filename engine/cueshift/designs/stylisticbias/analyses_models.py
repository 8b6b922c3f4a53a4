"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): model
comparisons with error bars: paired SBS differences, clustered standard errors, design effects,
sign reversals with evidence.

Declared with :class:`cueshift.stats.Declarations` over
:class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered in the order :mod:`cueshift.designs.stylisticbias.analyses` lists the modules.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.designs.stylisticbias.method_names import FACE_TEST
from cueshift.designs.stylisticbias.run_reads import model_cells_once
from cueshift.designs.stylisticbias.stats import model_differences
from cueshift.stats import Declarations

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)


@DECLARED(
    "model_differences",
    description="Paired SBS differences of model pairs, clustered vs naive SE, design effect (Miller 2024)",
    source="delta",
    grouping="model pair x level (model, variation value, scenario)",
    statistic=f"mean per-face difference of mean Delta; {FACE_TEST} on per-face differences; CRVE SE",
    family="model pair x level",
)
def _model_differences(ctx: Context) -> pl.DataFrame:
    # fewer than two models: an empty table (the report says it needs two)
    return model_differences(
        ctx.inputs.delta,
        generalise=ctx.inputs.generalise,
        cells=model_cells_once(ctx),
        resampling=ctx.inputs.resampling,
    )
