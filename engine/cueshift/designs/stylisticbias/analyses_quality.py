"""Analyses of the suite ``stylisticbias``: counterfactual quality (docs/decisions.md#d9).

``identity_drops`` counts, per ``[quality] thresholds`` value (and the ``--min-identity`` of the
run), the variations whose identity preservation is below it (and, where ``[audit.faces]
identity_filter`` joined the run's ``--min-identity``, those the face models drop, counted by model:
docs/decisions.md D38): the sensitivity analysis's
denominator, shown in the report beside the results it changed. It applies when the study has
a ``[quality] encoder`` (the measured cosines are in ``Inputs.quality``).

Declared with :class:`cueshift.stats.Declarations` over
:class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered in the order :mod:`cueshift.designs.stylisticbias.analyses` lists the modules.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.stats import Declarations, NotApplicable, identity_drops
from cueshift.views import read_delta

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)


@DECLARED(
    "identity_drops",
    description="Variations each --min-identity threshold drops: CLIP cosine with the base, and the face "
    "models' drops by model",
    source="image_identity",
    grouping="threshold x attribute (feature_key; 'all' pooled)",
    statistic="count of cosine < threshold (or a face-model drop, by model); robust z < cutoff within "
    "the attribute; face-level SBS kept",
    family="none",
    database=True,
)
def _identity_drops(ctx: Context) -> pl.DataFrame:
    inputs = ctx.inputs
    if inputs.quality is None:
        raise NotApplicable("no [quality] encoder in the study file")
    # every Δ row, none dropped: whether each attribute's SBS survives each threshold
    every = read_delta(inputs.con, inputs.models or None, phi=inputs.phi) if inputs.con is not None else None
    quality = inputs.quality
    faces = quality.faces.reasons if quality.faces is not None and quality.min_identity is not None else None
    return identity_drops(
        quality.identity, quality.config.thresholds, quality.min_identity, every, face_drops=faces
    )
