"""The multiverse run: every specification's headline tables (SBS at the model and attribute
levels, Table 2's VS, Table 3's cells) from one read of the stored judgments, its claims, and
their summary.

The stored judgments are read once (:mod:`.cells`) and the choices reduced to what they realise
(:mod:`.effective`); per specification the claims are made by the same statistics ``cueshift
analyze`` runs with one :class:`~cueshift.stats.Resampling` (the face-level bootstrap draws the same
faces on every path), specifications whose rows coincide sharing them (:mod:`.paths`); the release
path's specification, last, is made by compat's functions (:mod:`.release`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import duckdb
import polars as pl

from cueshift.designs.stylisticbias.multiverse.cells import read_cells
from cueshift.designs.stylisticbias.multiverse.choices import CHOICES, MultiverseConfig, specifications
from cueshift.designs.stylisticbias.multiverse.claims import claim_text, summarise
from cueshift.designs.stylisticbias.multiverse.effective import effective_config
from cueshift.designs.stylisticbias.multiverse.joint_table import joint_table
from cueshift.designs.stylisticbias.multiverse.paths import CLAIM_LEVELS, PathClaims, named
from cueshift.errors import CueshiftError, SchemaViolation
from cueshift.stats import Resampling


@dataclass(frozen=True)
class MultiverseResult:
    """``claims``: one row per specification × claim (``result_multiverse``); ``summary``: one row
    per claim (``result_multiverse_summary``); ``joint``: the joint test of each model's SBS and
    of each of its attributes' over cueshift's specifications (``result_multiverse_joint``,
    :mod:`.joint`); ``notes``: what was left out of the cross product; ``alpha``: the level of a
    claim's test (``[multiverse] alpha``)."""

    claims: pl.DataFrame
    summary: pl.DataFrame
    joint: pl.DataFrame
    notes: tuple[str, ...]
    alpha: float = 0.05


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
    paths = PathClaims(con, stored, config, models, resampling)
    frames = []
    for done, spec in enumerate(specs, start=1):
        try:
            spec, claims = paths.claims(spec)
        except SchemaViolation as exc:
            raise CueshiftError(f"specification {named(spec)}: {exc}") from None
        labels = [pl.lit(option).alias(choice) for choice, option in zip(CHOICES, spec.options, strict=True)]
        frames.append(claims.with_columns(pl.lit(spec.index, dtype=pl.Int64).alias("specification"), *labels))
        if progress is not None:
            progress(done, len(specs))
    claims = _held(pl.concat(frames))
    joint = joint_table(paths.faces(), resampling=resampling, alpha=config.alpha)
    return MultiverseResult(claims, summarise(claims, CHOICES), joint, notes, config.alpha)


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
