"""The edit audit's rows per audited variation (:func:`audit_variations`): whether any measure
failed, why, and the unintended changes of the CLIP confound probes that the adjusted SBS of
``result_audit_sensitivity`` removes."""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.stats._audit_adjust import CELLS

#: ``edit_audit.source`` of the measures computed from pixels (image statistics, changed pixels).
PIXELS = "pixels"


def audit_variations(rows: pl.DataFrame) -> tuple[pl.DataFrame, tuple[str, ...]]:
    """One row per audited variation: whether any measure failed, and its unintended changes.

    Parameters
    ----------
    rows : polars.DataFrame
        ``edit_audit`` rows (``EditAuditSchema``: one per variation × measure).

    Returns
    -------
    (polars.DataFrame, tuple of str)
        ``image_id, face_id, feature_key, variation_value, failed, reason`` plus one column per
        ``check_kind = 'unintended'`` measure of a CLIP confound probe (``source`` an encoder,
        not ``'pixels'``) holding its ``difference`` (null where not measured), and the names of
        those measure columns (sorted): the changes the adjusted SBS removes.
    """
    keys = ["image_id", *CELLS]
    verdict = rows.group_by(keys).agg(
        pl.col("failed").any(),
        pl.col("reason").filter(pl.col("failed")).drop_nulls().str.join("; ").alias("reason"),
    )
    # the confound probes only: an edit's pixel statistics carry the cue itself (a hair colour
    # edit moves the colour balance, a hat the brightness), so "no pixel change" is no
    # counterfactual that keeps the cue; they flag outliers in the audit, they adjust nothing
    unintended = rows.filter((pl.col("check_kind") == "unintended") & (pl.col("source") != PIXELS))
    measures = tuple(sorted(unintended["measure"].unique().to_list()))
    if measures:
        wide = unintended.pivot(
            on="measure", index="image_id", values="difference", aggregate_function="first"
        )
        verdict = verdict.join(wide.select("image_id", *measures), on="image_id", how="left")
    return verdict.with_columns(pl.col("reason").replace("", None)).sort("image_id"), measures
