"""Equivalence to no shift (issue 33): the study's ``[equivalence]`` smallest effects of interest
tested by two one-sided tests (SBS, model differences) and a one-sided bound (VS), declared in a
:class:`cueshift.stats.Declarations` of the suite ``stylisticbias``; a study without the section
gets no ``result_equivalence``."""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.designs.stylisticbias.run_reads import summed_rows
from cueshift.designs.stylisticbias.stats import equivalence_table
from cueshift.stats import Declarations, NotApplicable

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)


@DECLARED(
    "equivalence",
    description=(
        "Equivalence to no shift at the declared smallest effects: SBS, model differences (TOST) "
        "and VS (one-sided)"
    ),
    source="delta, base_phi",
    grouping="quantity x level x model (pair) x variation or dimension x scenario category",
    statistic=(
        "face-level mean Delta: two one-sided t tests (Schuirmann 1987), 1-2alpha t interval; "
        "VS: Table 2's bounds at 1-2alpha, one-sided test of VS < margin"
    ),
    family="quantity x level x model (pair)",
)
def _equivalence(ctx: Context) -> pl.DataFrame | None:
    margins = ctx.inputs.equivalence
    if margins is None:
        raise NotApplicable("no [equivalence] smallest effects of interest in the study file")
    summed = summed_rows(ctx)
    base_phi = ctx.inputs.base_phi
    if summed is None and base_phi.height == 0:
        return None
    alpha = 1.0 - ctx.inputs.resampling.confidence_level
    return equivalence_table(summed, margins, alpha=alpha, base_phi=base_phi)
