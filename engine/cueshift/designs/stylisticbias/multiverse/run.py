"""The multiverse run: every specification's headline tables (SBS at the model and attribute
levels, Table 2's VS, Table 3's cells) from one read of the stored judgments, its claims, and
their summary.

Per specification the Δ and base φ rows are rebuilt in polars (:mod:`.cells`) and handed to the
same statistics ``cueshift analyze`` runs (:func:`sbs_levels`, :func:`variation_strength`,
:func:`category_demographic_table`) with one :class:`~cueshift.stats.Resampling` (the face-level
bootstrap draws the same faces on every path); specifications whose rows coincide share them, and
VS and Table 3 are computed once per rows. The release path's specification, last, is made by
compat's functions (:mod:`.release`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import duckdb
import polars as pl

from cueshift.designs.stylisticbias.multiverse.cells import StoredCells, read_cells, specification_rows
from cueshift.designs.stylisticbias.multiverse.choices import (
    CHOICES,
    MultiverseConfig,
    Specification,
    specifications,
)
from cueshift.designs.stylisticbias.multiverse.claims import (
    claim_text,
    sbs_claims,
    summarise,
    table3_claims,
    vs_claims,
)
from cueshift.designs.stylisticbias.multiverse.joint_table import SpecificationFaces, joint_table
from cueshift.designs.stylisticbias.multiverse.release import ReferenceTables, release_claims
from cueshift.designs.stylisticbias.stats import (
    category_demographic_table,
    sbs_levels,
    summed_delta,
    variation_strength,
)
from cueshift.errors import CueshiftError, SchemaViolation
from cueshift.stats import Resampling
from cueshift.views import parse_phi

#: The SBS levels the claims read (``sbs_levels`` adds the cells its |SBS| needs).
CLAIM_LEVELS = ("model", "variation_value")


@dataclass(frozen=True)
class MultiverseResult:
    """``claims``: one row per specification × claim (``result_multiverse``); ``summary``: one row
    per claim (``result_multiverse_summary``); ``joint``: the joint test of each model's SBS over
    cueshift's specifications (``result_multiverse_joint``, :mod:`.joint`); ``notes``: what was left
    out of the cross product."""

    claims: pl.DataFrame
    summary: pl.DataFrame
    joint: pl.DataFrame
    notes: tuple[str, ...]


def effective_config(
    config: MultiverseConfig, stored: StoredCells
) -> tuple[MultiverseConfig, tuple[str, ...]]:
    """``config`` with what the stored judgments cannot realise left out, and a note for each.

    The audit choice is reduced to ``keep`` when no edit audit is stored; φ options read from
    scores are left out when a model stored none (generate-mode backends).

    Raises
    ------
    CueshiftError
        An ordering option without stored answers.
    """
    notes: list[str] = []
    update: dict[str, list[str]] = {}
    if stored.failed_edits is None and config.audit != ["keep"]:
        update["audit"] = ["keep"]
        notes.append("no edit audit stored: the choice 'audit' is left out (run `cueshift audit` first)")
    unscored = _unscored_models(stored.cells)
    scored = [p for p in config.phi if parse_phi(p).temperature is not None]
    if scored and unscored:
        kept = [p for p in config.phi if p not in scored] or ["greedy"]
        update["phi"] = kept
        notes.append(
            f"model(s) {', '.join(unscored)} stored no scores (generate-mode backends): "
            f"phi = {', '.join(scored)} left out"
        )
    present = {str(o) for o in stored.cells["ordering"].unique().to_list()}
    missing = [o for o in config.orderings if o != "all" and o not in present]
    if missing:
        raise CueshiftError(
            f"[multiverse] orderings: {', '.join(missing)} has no stored answers "
            f"(orderings stored: {', '.join(sorted(present))})"
        )
    return (config.model_copy(update=update) if update else config), tuple(notes)


def _unscored_models(cells: pl.DataFrame) -> list[str]:
    answers = pl.col("n_favorable") + pl.col("n_unfavorable") + pl.col("n_invalid")
    totals = cells.group_by("model_id").agg(unscored=(answers - pl.col("n_scored")).sum())
    return sorted(totals.filter(pl.col("unscored") > 0)["model_id"].to_list())


def run_multiverse(
    con: duckdb.DuckDBPyConnection,
    config: MultiverseConfig,
    *,
    models: Sequence[str] = (),
    resampling: Resampling | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> MultiverseResult:
    """Run the headline analyses on every specification of ``config``.

    Parameters
    ----------
    con
        The study database (read only).
    config
        The choices and their options (``[multiverse]``).
    models
        Restrict to these models (empty: all).
    resampling
        Seed, interval kind and test of every specification; its resamples default to
        ``config.resamples``.
    progress
        Called with (specifications done, total) after each one.

    Raises
    ------
    CueshiftError
        No judgment stored, or an ordering option without stored answers.
    """
    resampling = resampling or Resampling(resamples=config.resamples)
    stored = read_cells(con, models, config.phi)
    if stored.cells.height == 0:
        raise CueshiftError("no judgments stored: run `cueshift infer` first")
    config, notes = effective_config(config, stored)
    specs = specifications(config)
    rows_of: dict[tuple[str, ...], tuple[pl.DataFrame, pl.DataFrame]] = {}
    vs_of: dict[tuple[str, ...], pl.DataFrame] = {}
    sbs_of: dict[tuple[str, ...], pl.DataFrame] = {}
    faces_of: dict[tuple[str, ...], SpecificationFaces] = {}
    reference: ReferenceTables | None = None
    reference_top: dict[str, str] = {}
    frames = []
    for done, spec in enumerate(specs, start=1):
        try:
            if spec.of("path") == "release":
                assert reference is not None  # the reference specification comes first
                made = release_claims(
                    con, reference, models=models, resampling=resampling, alpha=config.alpha,
                    levels=CLAIM_LEVELS, reference_top=reference_top,
                )  # fmt: skip
                spec = Specification(spec.index, (made.parsing, *spec.options[1:]))
                claims = made.claims
            else:
                key = spec.data_key
                if key not in rows_of:
                    rows_of[key] = specification_rows(stored, spec)
                delta, base_phi = rows_of[key]
                if delta.height == 0:
                    raise CueshiftError(f"specification {_named(spec)}: no Δ rows")
                sbs_key = (*key, spec.of("generalise"))
                if sbs_key not in sbs_of:
                    summed = summed_delta(delta, ())
                    sbs = sbs_levels(
                        delta, levels=CLAIM_LEVELS, dimensions=(), resampling=resampling,
                        generalise=spec.of("generalise"), summed=summed,
                    )  # fmt: skip
                    sbs_of[sbs_key] = sbs_claims(sbs, config.alpha)
                    if key not in faces_of:
                        faces_of[key] = SpecificationFaces.of(summed, 0)
                faces_of[key] = faces_of[key].counted_once_more()
                if key not in vs_of:
                    vs = variation_strength(base_phi, resampling=resampling)
                    table3 = category_demographic_table(delta, resampling=resampling)
                    vs_of[key] = pl.concat(
                        [vs_claims(vs, reference_top or None), table3_claims(table3, config.alpha)]
                    )
                    if reference is None:
                        reference = ReferenceTables(delta, base_phi, vs, table3)
                        top = vs_of[key].filter(kind="vs_top").select("model_id", "verdict")
                        reference_top = {m: v for m, v in top.iter_rows() if v}
                claims = pl.concat([sbs_of[sbs_key], vs_of[key]])
        except SchemaViolation as exc:
            raise CueshiftError(f"specification {_named(spec)}: {exc}") from None
        labels = [pl.lit(option).alias(choice) for choice, option in zip(CHOICES, spec.options, strict=True)]
        frames.append(claims.with_columns(pl.lit(spec.index, dtype=pl.Int64).alias("specification"), *labels))
        if progress is not None:
            progress(done, len(specs))
    claims = _held(pl.concat(frames))
    joint = joint_table(list(faces_of.values()), resampling=resampling, alpha=config.alpha)
    return MultiverseResult(claims, summarise(claims, CHOICES), joint, notes)


def _named(spec: Specification) -> str:
    return ", ".join(f"{choice}={option}" for choice, option in zip(CHOICES, spec.options, strict=True))


def _held(claims: pl.DataFrame) -> pl.DataFrame:
    """Each row's ``holds`` (its verdict equals the reference specification's) and claim text."""
    key = ["kind", "model_id", "subject"]
    reference = claims.filter(pl.col("specification") == 0).select(*key, reference_verdict="verdict")
    joined = claims.join(reference, on=key, how="left")
    text = [claim_text(k, m, s, v) for k, m, s, v in joined.select(*key, "reference_verdict").iter_rows()]
    return joined.with_columns(
        claim=pl.Series(text, dtype=pl.String),
        holds=pl.col("verdict").eq_missing(pl.col("reference_verdict")),
        is_reference=pl.col("specification") == 0,
    ).select(
        "specification", *CHOICES, *key, "claim", "estimate", "ci_low", "ci_high", "p", "p_adj",
        "verdict", "reference_verdict", "holds", "is_reference", "n",
    )  # fmt: skip


__all__ = ["CLAIM_LEVELS", "MultiverseResult", "effective_config", "run_multiverse"]
