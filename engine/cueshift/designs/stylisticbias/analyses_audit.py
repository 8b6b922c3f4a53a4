"""Analyses of the suite ``stylisticbias``: the edit audit carried into the results
(``cueshift analyze --audit strict|report``).

``audit_sensitivity`` shows, per model × attribute, what the audit changes: the SBS with every
edit, with the audited edits only, and adjusted for the measured unintended changes, and the
robustness value of the first two to the side effects the audit cannot see
(:func:`~cueshift.designs.stylisticbias.stats.audit_sensitivity`). It runs only with ``--audit``.

Declared with :class:`cueshift.stats.Declarations` over
:class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered in the order :mod:`cueshift.designs.stylisticbias.analyses` lists the modules.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.designs.stylisticbias.stats import audit_sensitivity
from cueshift.stats import Declarations, NotApplicable

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)


@DECLARED(
    "audit_sensitivity",
    description="SBS per attribute with every edit, audited edits only, adjusted for unintended changes",
    source="delta, edit_audit",
    grouping="model (and pooled) x attribute (feature_key)",
    statistic="face-level mean Delta (bootstrap CI); WLS intercept of Delta on confound differences, "
    "face-clustered CI and Wald test; robustness values RV, RV_alpha (Cinelli & Hazlett 2020) of the "
    "face-level fit",
    family="none",
    when=lambda settings: settings.audit is not None,
)
def _audit_sensitivity(ctx: Context) -> pl.DataFrame:
    inputs = ctx.inputs
    if inputs.audit is None:
        raise NotApplicable("no edit audit read (cueshift analyze --audit)")
    every = inputs.delta_before_audit if inputs.delta_before_audit is not None else inputs.delta
    return audit_sensitivity(
        every,
        inputs.audit.variations,
        mode=inputs.audit.mode,
        resampling=inputs.resampling,
    )
