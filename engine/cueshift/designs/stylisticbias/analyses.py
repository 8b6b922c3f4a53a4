"""The analyses of seed 000 (RQ1-RQ3) under the suite ``stylisticbias``: one ``result_<name>``
table each, computed from the ``delta`` and ``base_phi`` views by :func:`run_analyses`. Each
``analyses_*`` module declares its analyses (:class:`cueshift.stats.Declarations`); this module
joins them, in the order it lists the modules, into :data:`DECLARED`, the design's analyses.

Every analysis is a thin composition of the statistics kernels of :mod:`cueshift.stats`; the
face-level bootstrap and the permutation tests share one :class:`~cueshift.stats.Resampling`
and the run's :class:`~cueshift.stats.RunChoices`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from cueshift.designs.stylisticbias import (
    analyses_audit,
    analyses_compat,
    analyses_effects,
    analyses_equivalence,
    analyses_missing,
    analyses_models,
    analyses_noise,
    analyses_quality,
    analyses_subgroups,
    analyses_tables,
)
from cueshift.designs.stylisticbias.inputs import SUITE, Inputs
from cueshift.errors import CueshiftError
from cueshift.stats import Declarations, Resampling, RunChoices, RunSettings, run_suite
from cueshift.views import check_scored, parse_phi, phi_computed_once, read_base_phi, read_delta

if TYPE_CHECKING:
    from cueshift.designs.stylisticbias.edit_audit import EditAudit
    from cueshift.designs.stylisticbias.quality import IdentityQuality
    from cueshift.study.equivalence import EquivalenceConfig

#: The suite's analyses in the order they run and their tables and manifest rows are listed: the
#: paper's tables first (later analyses read them), then each module's additions.
DECLARED = Declarations(
    SUITE,
    analyses_tables.DECLARED,
    analyses_audit.DECLARED,
    analyses_compat.DECLARED,
    analyses_effects.DECLARED,
    analyses_equivalence.DECLARED,
    analyses_missing.DECLARED,
    analyses_models.DECLARED,
    analyses_noise.DECLARED,
    analyses_quality.DECLARED,
    analyses_subgroups.DECLARED,
)


def run_analyses(
    con: duckdb.DuckDBPyConnection,
    resampling: Resampling | None = None,
    choices: RunChoices | None = None,
    *,
    quality: IdentityQuality | None = None,
    audit: EditAudit | None = None,
    equivalence: EquivalenceConfig | None = None,
    only: Sequence[str] | None = None,
    write: bool = True,
    progress: bool = True,
    workers: int | None = None,
) -> dict[str, pl.DataFrame]:
    """Compute every seed 000 analysis and store each as ``result_<name>`` (one transaction).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        An open study database (``cueshift.store.open_study``).
    resampling : Resampling, optional
        Resamples, seed, interval and tests of every face-level bootstrap and permutation test
        (default: ``Resampling()``).
    choices : RunChoices, optional
        What the run analyses (default: ``RunChoices()``; all recorded in ``result_manifest``):
        the model subset; which φ every analysis reads (the stored answers, or answers drawn at a
        temperature from the stored scores); the question the SBS intervals answer
        (``'faces'``: the study's own scenarios, faces resampled; ``'faces+scenarios'``: scenarios
        in general, the crossed bootstrap of docs/decisions.md D18); ``compat='release'``, which
        also writes the seed release's own tables, ``result_release_*``, and
        ``result_compat_differences`` (:mod:`cueshift.designs.stylisticbias.compat`). Its
        ``min_identity`` and ``audit`` are those of ``quality`` and ``audit``.
    quality : IdentityQuality, optional
        Measured identity preservation; its ``min_identity`` leaves the variations below it out of
        the Δ rows (``cueshift analyze --min-identity``; counted in ``result_identity_drops``).
    audit : EditAudit, optional
        The edit audit of ``cueshift analyze --audit``: ``'strict'`` also leaves the failed edits
        out of the Δ rows (after ``--min-identity``); both write ``result_audit_sensitivity``.
    equivalence : EquivalenceConfig, optional
        The study's smallest effects of interest (``[equivalence]``): with them the run writes
        ``result_equivalence``.
    only : sequence of str, optional
        Names of analyses to run (default: all of the suite).
    write : bool
        Store the tables (replacing earlier ones) and ``result_manifest``.
    progress : bool
        Show a progress bar.
    workers : int, optional
        Analyses computed at a time (default: 2 where the machine has two cores or more); every
        table is the one a sequential run (``workers=1``) gives (:func:`~cueshift.stats.run_suite`).

    Returns
    -------
    dict of str to polars.DataFrame
        Result frames by analysis name (validated by ``schemas/results.py``).

    Raises
    ------
    CueshiftError
        The database holds no judgment with a valid answer, or ``phi`` needs scores a model did
        not store.
    ValueError
        ``choices`` names a ``min_identity`` or ``audit`` that ``quality`` or ``audit`` does not carry.
    """
    resampling = resampling or Resampling()
    choices = _recorded(choices or RunChoices(), quality, audit)
    phi = parse_phi(choices.phi)
    check_scored(con, phi, choices.models or None)
    with phi_computed_once(con):
        delta = read_delta(con, choices.models or None, phi=phi)
        base = read_base_phi(con, choices.models or None, phi=phi)
        if delta.height == 0 and base.height == 0:
            raise CueshiftError("no judgments with a valid answer in the study database: nothing to analyse")
        if quality is not None:  # --min-identity: a sensitivity analysis without the variations below it
            delta = quality.kept(delta)
        before_audit, delta = delta, audit.kept(delta) if audit is not None else delta  # --audit strict
        choices = replace(choices, phi=phi.label)
        inputs = Inputs(
            delta,
            base,
            resampling,
            choices,
            con=con,
            phi=phi,
            quality=quality,
            audit=audit,
            delta_before_audit=before_audit if audit is not None else None,
            equivalence=equivalence,
        )
        settings = RunSettings.of(resampling, choices)
        return run_suite(
            con,
            DECLARED,
            inputs,
            settings,
            only=only,
            write=write,
            progress=progress,
            workers=workers if workers is not None else min(2, os.cpu_count() or 1),
        )


def _recorded(choices: RunChoices, quality: IdentityQuality | None, audit: EditAudit | None) -> RunChoices:
    """``choices`` with the ``min_identity`` and ``audit`` that ``quality`` and ``audit`` carry."""
    min_identity = quality.min_identity if quality is not None else None
    mode = audit.mode if audit is not None else None
    for name, asked, carried in (
        ("min_identity", choices.min_identity, min_identity),
        ("audit", choices.audit, mode),
    ):
        if asked is not None and asked != carried:
            raise ValueError(f"choices.{name} is {asked!r} but the run carries {carried!r}")
    return replace(choices, min_identity=min_identity, audit=mode)
