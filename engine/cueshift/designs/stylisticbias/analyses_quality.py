"""Analyses of the suite ``stylisticbias``: counterfactual quality (issue 13).

``identity_drops`` counts, per ``[quality] thresholds`` value (and the ``--min-identity`` of the
run), the variations whose identity preservation is below it: the sensitivity analysis's
denominator, shown in the report beside the results it changed. It applies when the study has
a ``[quality] encoder`` (the measured cosines are in ``Inputs.quality``).

Declared with :func:`cueshift.stats.analysis` over :class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered when :mod:`cueshift.designs.stylisticbias.analyses` imports this module.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.stats import NotApplicable, analysis, identity_drops


@analysis(
    "identity_drops",
    suite=SUITE,
    description="Variations each --min-identity threshold drops (cosine of CLIP embeddings with the base)",
    source="image_identity",
    grouping="threshold x attribute (feature_key; 'all' pooled)",
    statistic="count of cosine < threshold; outliers: robust z < cutoff within the attribute",
    family="none",
)
def _identity_drops(ctx: Context) -> pl.DataFrame:
    quality = ctx.inputs.quality
    if quality is None:
        raise NotApplicable("no [quality] encoder in the study file")
    return identity_drops(quality.identity, quality.config.thresholds, quality.min_identity)
