"""The headline claims a specification makes, whether each holds on every path, and which choice
moves it most.

Claims (one row each per specification; ``kind``, ``model_id``, ``subject`` name it):

- ``sbs_attribute``: per model (and pooled) × attribute (variation value), the sign and the
  significance of its SBS (face-level mean Δ): verdict ``'+'`` (BH-adjusted p < α and SBS > 0),
  ``'-'`` (p < α, SBS < 0) or ``'0'`` (not significant);
- ``sbs_model``: the same for each model's SBS over every attribute (``subject = 'all attributes'``);
- ``vs_top``: per model, the demographic dimension with the largest Variation Strength (Table 2),
  the verdict being that dimension; the estimate is the VS of the reference's top dimension;
- ``sbs_category``: per attribute category × demographic dimension, Table 3's cell (the mean of
  the dimension's groups, models pooled; ``model_id = '(pooled)'``), its sign and significance
  (the cell's BH-adjusted p; no interval, as in Table 3).

A claim *holds* in a specification when its verdict there equals the reference specification's
(the first option of every choice: ``cueshift analyze``'s defaults).
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from cueshift.designs.stylisticbias.stats import MEAN_OF_GROUPS
from cueshift.stats import POOLED

#: The claims' kinds, in the order they are listed.
CLAIM_KINDS: tuple[str, ...] = ("sbs_model", "sbs_attribute", "vs_top", "sbs_category")
_KEY = ["kind", "model_id", "subject"]
_SUMMARY = [
    *_KEY, "claim", "reference_verdict", "n_specifications", "n_holds", "estimate_min", "estimate_max",
    "share_holds", "holds_shift", "estimate_shift", "moved_most", "release_verdict", "holds_release",
]  # fmt: skip
_COLUMNS = [*_KEY, "estimate", "ci_low", "ci_high", "p", "p_adj", "verdict", "n"]


def _sign(alpha: float) -> pl.Expr:
    significant = pl.col("p_adj") < alpha
    return (
        pl.when(significant & (pl.col("estimate") > 0)).then(pl.lit("+"))
        .when(significant & (pl.col("estimate") < 0)).then(pl.lit("-"))
        .otherwise(pl.lit("0"))
    )  # fmt: skip


def sbs_claims(sbs: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """The ``sbs_model`` and ``sbs_attribute`` claims of a ``result_sbs``-shaped frame."""
    rows = sbs.filter(pl.col("level").is_in(["model", "variation_value"])).with_columns(
        kind=pl.when(pl.col("level") == "model").then(pl.lit("sbs_model")).otherwise(pl.lit("sbs_attribute")),
        subject=pl.coalesce(pl.col("variation_value"), pl.lit("all attributes")),
    )
    return rows.with_columns(verdict=_sign(alpha)).select(_COLUMNS)


def table3_claims(table3: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """The ``sbs_category`` claims of a ``result_table3``-shaped frame (its mean-of-groups cells)."""
    rows = table3.filter(pl.col("group") == MEAN_OF_GROUPS)
    return rows.select(
        pl.lit("sbs_category").alias("kind"),
        pl.lit(POOLED).alias("model_id"),
        pl.format("{} (mean of {} groups)", "variation_category", "dimension").alias("subject"),
        "estimate",
        "ci_low",
        "ci_high",
        "p",
        "p_adj",
        _sign(alpha).alias("verdict"),
        pl.col("n").cast(pl.Int64),
    )


def vs_claims(vs: pl.DataFrame, reference_top: dict[str, str] | None) -> pl.DataFrame:
    """The ``vs_top`` claims of a ``result_table2_vs``-shaped frame; the estimate is the VS of the
    reference's top dimension (``reference_top``, by model; ``None``: this is the reference)."""
    rows = vs.filter(pl.col("estimate").is_not_null())
    top = (
        rows.sort("estimate", "dimension", descending=[True, False])
        .group_by("model_id", maintain_order=True)
        .first()
    )
    chosen = dict(top.select("model_id", "dimension").iter_rows())
    wanted = reference_top if reference_top is not None else chosen
    pairs = pl.DataFrame(
        {"model_id": list(wanted), "dimension": list(wanted.values())},
        schema={"model_id": pl.String, "dimension": pl.String},
    )
    shown = rows.join(pairs, on=["model_id", "dimension"], how="semi")
    return shown.select(
        pl.lit("vs_top").alias("kind"),
        "model_id",
        pl.lit("largest VS dimension").alias("subject"),
        "estimate",
        "ci_low",
        "ci_high",
        pl.lit(None, dtype=pl.Float64).alias("p"),
        pl.lit(None, dtype=pl.Float64).alias("p_adj"),
        pl.col("model_id").replace_strict(chosen, default=None, return_dtype=pl.String).alias("verdict"),
        pl.col("n").cast(pl.Int64),
    )


def claim_text(kind: str, model_id: str, subject: str, verdict: str | None) -> str:
    """The claim in words, as the reference specification makes it.

    Examples
    --------
    >>> claim_text("sbs_attribute", "m", "acne", "-")
    'm: SBS of acne < 0'
    >>> claim_text("vs_top", "m", "largest VS dimension", "age")
    'm: age has the largest VS'
    """
    if kind == "vs_top":
        return f"{model_id}: {verdict} has the largest VS"
    said = {"+": "> 0", "-": "< 0"}.get(verdict or "0", "not distinguishable from 0")
    return f"{model_id}: SBS of {subject} {said}"


def summarise(claims: pl.DataFrame, choices: Sequence[str]) -> pl.DataFrame:
    """Per claim: the share of specifications in which it holds and the choice that moves it most.

    A choice moves a claim by how far apart the shares of holding specifications are across its
    options (``holds_shift``); ties (e.g. a claim holding everywhere) are broken by how far apart
    the claim's mean estimates are across its options (``estimate_shift``). Choices with one option
    move nothing and are not named. The release path (``path = 'release'``) fixes the other
    choices its own way: it counts for ``path`` alone (cueshift's specifications against it), and
    every other choice is compared over cueshift's specifications. ``release_verdict`` and
    ``holds_release``: the claim on the release path (null without it).
    """
    moved = []
    cueshift = claims.filter(pl.col("path") == "cueshift") if "path" in claims.columns else claims
    for choice in choices:
        rows = claims if choice == "path" else cueshift
        if rows[choice].n_unique() < 2:
            continue
        by_option = rows.group_by([*_KEY, choice]).agg(
            share=pl.col("holds").cast(pl.Float64).mean(), mean=pl.col("estimate").mean()
        )
        moved.append(
            by_option.group_by(_KEY).agg(
                holds_shift=pl.col("share").max() - pl.col("share").min(),
                estimate_shift=(pl.col("mean").max() - pl.col("mean").min()).fill_null(0.0),
                moved_most=pl.lit(choice),
            )
        )
    totals = (
        claims.group_by(_KEY, maintain_order=True)
        .agg(
            claim=pl.col("claim").first(),
            reference_verdict=pl.col("verdict").filter(pl.col("is_reference")).first(),
            n_specifications=pl.len().cast(pl.Int64),
            n_holds=pl.col("holds").sum().cast(pl.Int64),
            estimate_min=pl.col("estimate").min(),
            estimate_max=pl.col("estimate").max(),
            release_verdict=pl.col("verdict").filter(pl.col("path") == "release").first(),
            holds_release=pl.col("holds").filter(pl.col("path") == "release").first(),
        )
        .with_columns(share_holds=pl.col("n_holds") / pl.col("n_specifications"))
    )
    if not moved:
        return totals.with_columns(
            moved_most=pl.lit(None, dtype=pl.String),
            holds_shift=pl.lit(None, dtype=pl.Float64),
            estimate_shift=pl.lit(None, dtype=pl.Float64),
        ).select(_SUMMARY)
    most = (
        pl.concat(moved)
        .sort([*_KEY, "holds_shift", "estimate_shift"], descending=[False, False, False, True, True])
        .group_by(_KEY, maintain_order=True)
        .first()
    )
    return totals.join(most, on=_KEY, how="left", nulls_equal=True).select(_SUMMARY)


__all__ = ["CLAIM_KINDS", "claim_text", "sbs_claims", "summarise", "table3_claims", "vs_claims"]
