"""The release's own analysis path as one specification of the multiverse (``path = 'release'``).

``cueshift analyze --compat release`` (:mod:`cueshift.designs.stylisticbias.compat`) computes the
paper's tables as the release's evaluation scripts do. Here every headline claim is made that way,
with compat's own functions, so the specification curve shows whether it also holds on the paper's
path:

- the rows: :func:`~cueshift.designs.stylisticbias.compat_phi.release_inputs` — φ over **all**
  answers, each read as the release read it where its reading is stored (``release_judgment``),
  else by cueshift's strict parser; greedy; every ordering; no edit audit; faces as the population;
- ``vs_top`` and ``sbs_category``: the rows of ``result_release_table2_vs`` and
  ``result_release_table3`` (:func:`~cueshift.designs.stylisticbias.compat.release_tables`): VS
  with ``ddof = 1`` as the release reports it, the plug-in value (``plugin_estimate``; no
  interval: the one compat stores is of the corrected VS, and the release computes none);
  Table 3's mean-of-groups cells by WSRT, none below 3 faces, BH over all 40 category ×
  dimension cells with the untested and empty ones as p = 1 (an empty cell, listed in
  ``result_release_table3`` with p_adj 1, is no claim);
- ``sbs_model`` and ``sbs_attribute``: the release tests no such cell (its Table 5 has no test,
  its Table 11 no cell per model or over all groups), so its rule for a cell is applied to
  cueshift's: the same WSRT on the face means, no test below 3 faces
  (:func:`~cueshift.designs.stylisticbias.compat_rules.untested_below_min_faces`), BH within
  ``result_sbs``'s family with the untested cells as p = 1
  (:func:`~cueshift.designs.stylisticbias.compat.untestable_as_one`); estimate and face-bootstrap
  interval as in cueshift's tables, except a model's SBS, whose estimate and interval are
  ``result_release_table5``'s (the release's mean of the Δ rows, the face-bootstrap interval
  compat keeps); the pooled SBS has no Table 5 row and stays cueshift's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb
import polars as pl

from cueshift.designs.stylisticbias.compat import release_tables, untestable_as_one
from cueshift.designs.stylisticbias.compat_phi import release_inputs
from cueshift.designs.stylisticbias.compat_rules import untested_below_min_faces
from cueshift.designs.stylisticbias.inputs import Inputs
from cueshift.designs.stylisticbias.multiverse.claims import sbs_claims, table3_claims, vs_claims
from cueshift.designs.stylisticbias.stats import model_summary, sbs_levels
from cueshift.stats import MEAN_OF_MODELS, Resampling, RunChoices

#: ``result_sbs``'s BH family (:func:`sbs_levels`), which the release path keeps.
SBS_FAMILY = ("level", "model_id", "dimension")


@dataclass(frozen=True)
class ReferenceTables:
    """cueshift's reference specification: its Δ and base φ rows and its ``table2_vs`` and
    ``table3``, which :func:`release_tables` sets the release's tables beside."""

    delta: pl.DataFrame
    base_phi: pl.DataFrame
    table2_vs: pl.DataFrame
    table3: pl.DataFrame


@dataclass(frozen=True)
class ReleaseClaims:
    """The release path's claims (``claims``) and its ``parsing`` label: ``'release'`` where the
    release's reading of some answer is stored, else ``'strict'`` (cueshift's, which it keeps)."""

    claims: pl.DataFrame
    parsing: str


def release_claims(
    con: duckdb.DuckDBPyConnection,
    reference: ReferenceTables,
    *,
    models: Sequence[str],
    resampling: Resampling,
    alpha: float,
    levels: Sequence[str],
    reference_top: dict[str, str],
) -> ReleaseClaims:
    """Every claim of the multiverse on the release's path (module docstring).

    ``levels``: the SBS levels the claims read; ``reference_top``: the reference's top VS
    dimension per model (the ``vs_top`` estimate is that dimension's VS).
    """
    base = Inputs(
        delta=reference.delta,
        base_phi=reference.base_phi,
        resampling=resampling,
        choices=RunChoices(models=tuple(models)),
        con=con,
    )
    phis = release_inputs(base)
    default = {
        "table5": model_summary(reference.delta, resampling=resampling),
        "table2_vs": reference.table2_vs,
        "table3": reference.table3,
    }
    tables = release_tables(default, base, phis)
    sbs = sbs_levels(
        phis.release.delta, levels=levels, dimensions=(), resampling=resampling, generalise="faces"
    )
    sbs = untestable_as_one(untested_below_min_faces(sbs), SBS_FAMILY)
    claims = pl.concat(
        [
            _with_table5(sbs_claims(sbs, alpha), tables["table5"][0]),
            vs_claims(_plugin(tables["table2_vs"][0]), reference_top),
            table3_claims(tables["table3"][0], alpha),
        ]
    )
    return ReleaseClaims(claims, "strict" if phis.reading is None else "release")


def _plugin(vs: pl.DataFrame) -> pl.DataFrame:
    """The release's VS: the plug-in value, without an interval."""
    none = pl.lit(None, dtype=pl.Float64)
    return vs.with_columns(estimate=pl.col("plugin_estimate"), ci_low=none, ci_high=none)


def _with_table5(claims: pl.DataFrame, table5: pl.DataFrame) -> pl.DataFrame:
    """``claims`` with each model's ``sbs_model`` estimate and interval those of the release's
    Table 5; its verdict's sign follows that estimate (significance: the face-level test's)."""
    shown = ["estimate", "ci_low", "ci_high"]
    release = table5.filter(pl.col("model_id") != MEAN_OF_MODELS).select(
        "model_id", *(pl.col(c).alias(f"{c}__t5") for c in shown), pl.lit(True).alias("__t5")
    )
    joined = claims.join(release, on="model_id", how="left")
    model = (pl.col("kind") == "sbs_model") & pl.col("__t5").fill_null(False)
    joined = joined.with_columns(
        pl.when(model).then(pl.col(f"{c}__t5")).otherwise(pl.col(c)).alias(c) for c in shown
    )
    significant = pl.col("verdict") != "0"
    signed = (
        pl.when(significant & (pl.col("estimate") > 0)).then(pl.lit("+"))
        .when(significant & (pl.col("estimate") < 0)).then(pl.lit("-"))
        .otherwise(pl.lit("0"))
    )  # fmt: skip
    return joined.with_columns(
        pl.when(model).then(signed).otherwise(pl.col("verdict")).alias("verdict")
    ).select(claims.columns)


__all__ = ["SBS_FAMILY", "ReferenceTables", "ReleaseClaims", "release_claims"]
