"""Analyses of the suite ``stylisticbias`` (seed 000 and the reviewers' additions): the noise
floor: placebo variations (pixel-identical copy, lossless re-encode) as a negative control.

Declared with :class:`cueshift.stats.Declarations` over
:class:`~cueshift.designs.stylisticbias.inputs.Inputs`;
registered in the order :mod:`cueshift.designs.stylisticbias.analyses` lists the modules. The placebo Δ
rows are read here (``read_delta(..., placebo=True)``); a study without placebos (``[image_set]
placebos = false``, or a database made before they existed) gets neither table.
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.inputs import SUITE, Context
from cueshift.designs.stylisticbias.method_names import FACE_TEST
from cueshift.designs.stylisticbias.run_reads import read_once
from cueshift.designs.stylisticbias.stats import attributes_vs_floor, noise_floor
from cueshift.stats import Declarations
from cueshift.views import read_delta

#: The analyses this module declares, in order; :mod:`.analyses` lists the modules in order.
DECLARED = Declarations(SUITE)


def placebo_rows(ctx: Context) -> pl.DataFrame | None:
    """The placebo Δ rows of the analysed models, or None when the study has none (read once per
    run: :func:`~cueshift.designs.stylisticbias.run_reads.read_once`)."""
    return read_once(ctx, "placebo delta", lambda: _read_placebos(ctx))


def _read_placebos(ctx: Context) -> pl.DataFrame | None:
    if ctx.inputs.con is None:
        return None
    rows = read_delta(ctx.inputs.con, ctx.inputs.models or None, placebo=True, phi=ctx.inputs.phi)
    return rows if rows.height else None


@DECLARED(
    "noise_floor",
    description="Noise floor: placebo SBS (true 0) and placebo cell |SBS| mean / 95th percentile",
    source="delta (placebos)",
    grouping="model (and pooled) x placebo value (and all placebos)",
    statistic=f"face-level mean Delta, {FACE_TEST}; |SBS| of model x placebo x scenario cells",
    family="model",
)
def _noise_floor(ctx: Context) -> pl.DataFrame | None:
    placebo = placebo_rows(ctx)
    if placebo is None:
        return None
    return noise_floor(placebo, resampling=ctx.inputs.resampling)


@DECLARED(
    "noise_floor_attributes",
    description="Attribute |SBS| beside the noise floor; face-level |Delta| vs placebo |Delta| (one-sided)",
    source="delta (attributes and placebos)",
    grouping="model (and pooled) x variation value",
    statistic=f"mean cell |SBS| vs placebo quantile; one-sided {FACE_TEST} on per-face |Delta| differences",
    family="model (BH over values)",
)
def _noise_floor_attributes(ctx: Context) -> pl.DataFrame | None:
    placebo = placebo_rows(ctx)
    if placebo is None or ctx.inputs.delta.height == 0:
        return None
    return attributes_vs_floor(ctx.inputs.delta, placebo, resampling=ctx.inputs.resampling)
