"""The analyses of seed 000 (RQ1-RQ3), declared with :func:`cueshift.stats.analysis` under the
suite ``stylisticbias``: one ``result_<name>`` table each, computed from the ``delta`` and
``base_phi`` views by :func:`run_analyses`.

Every analysis is a thin composition of the statistics kernels of :mod:`cueshift.stats`; the
face-level bootstrap and the permutation tests share one seed and number of resamples.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb
import polars as pl

from cueshift.designs.stylisticbias import analyses_tables  # noqa: F401  (first: registers the tables)
from cueshift.designs.stylisticbias.inputs import SUITE, Inputs
from cueshift.errors import CueshiftError
from cueshift.stats import CIMethod, RunSettings, TestMethod, run_suite
from cueshift.views import GREEDY, PhiChoice, check_scored, phi_computed_once, read_base_phi, read_delta

if TYPE_CHECKING:
    from cueshift.designs.stylisticbias.edit_audit import EditAudit
    from cueshift.designs.stylisticbias.quality import IdentityQuality


def run_analyses(
    con: duckdb.DuckDBPyConnection,
    *,
    n_resamples: int = 10_000,
    seed: int = 0,
    models: Sequence[str] | None = None,
    progress: bool = True,
    test: TestMethod = "rank",
    ci_method: CIMethod = "bca",
    confidence_level: float = 0.95,
    only: Sequence[str] | None = None,
    write: bool = True,
    phi: PhiChoice = GREEDY,
    quality: IdentityQuality | None = None,
    compat: str = "default",
    generalise: str = "faces",
    audit: EditAudit | None = None,
    workers: int | None = None,
) -> dict[str, pl.DataFrame]:
    """Compute every seed 000 analysis and store each as ``result_<name>`` (one transaction).

    Parameters
    ----------
    con : duckdb.DuckDBPyConnection
        An open study database (``cueshift.store.open_study``).
    n_resamples, seed, confidence_level, ci_method
        Face-level bootstrap / permutation settings (every analysis uses the same seed).
    models : sequence of str, optional
        Restrict to these model ids (default: all).
    test : {'rank', 'permutation'}
        Rank tests (WSRT, MWU, KW; the paper's) or their permutation counterparts.
    only : sequence of str, optional
        Names of analyses to run (default: all of the suite).
    write : bool
        Store the tables (replacing earlier ones) and ``result_manifest``.
    phi : PhiChoice
        Which φ every analysis reads (``cueshift analyze --phi``; recorded in ``result_manifest``):
        the stored answers (default) or answers drawn at a temperature from the stored scores.
    quality : IdentityQuality, optional
        Measured identity preservation; its ``min_identity`` leaves the variations below it out of
        the Δ rows (``cueshift analyze --min-identity``; counted in ``result_identity_drops``).
    compat : {'default', 'release'}
        ``'release'`` (``cueshift analyze --compat release``) also writes the seed release's own
        tables, ``result_release_*``, and ``result_compat_differences``
        (:mod:`cueshift.designs.stylisticbias.compat`); recorded in ``result_manifest``.
    generalise : {'faces', 'faces+scenarios'}
        The question the SBS intervals answer (``cueshift analyze --generalise``; recorded in
        ``result_manifest``). ``'faces'`` (default): the shift for the study's own scenarios,
        faces resampled. ``'faces+scenarios'``: the shift over scenarios in general, faces and
        scenarios resampled together (crossed bootstrap; docs/decisions.md D18).
    audit : EditAudit, optional
        ``cueshift analyze --audit`` (in ``result_manifest``): ``'strict'`` also leaves the failed
        edits out of the Δ rows (after ``--min-identity``); both write ``result_audit_sensitivity``.
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
    """
    check_scored(con, phi, models)
    with phi_computed_once(con):
        return _run(
            con,
            phi,
            models,
            quality,
            n_resamples,
            seed,
            test,
            ci_method,
            confidence_level,
            only,
            write,
            progress,
            compat,
            generalise,
            audit,
            workers if workers is not None else min(2, os.cpu_count() or 1),
        )


def _run(
    con: duckdb.DuckDBPyConnection,
    phi: PhiChoice,
    models: Sequence[str] | None,
    quality: IdentityQuality | None,
    n_resamples: int,
    seed: int,
    test: TestMethod,
    ci_method: CIMethod,
    confidence_level: float,
    only: Sequence[str] | None,
    write: bool,
    progress: bool,
    compat: str = "default",
    generalise: str = "faces",
    audit: EditAudit | None = None,
    workers: int = 1,
) -> dict[str, pl.DataFrame]:
    delta, base = read_delta(con, models, phi=phi), read_base_phi(con, models, phi=phi)
    if delta.height == 0 and base.height == 0:
        raise CueshiftError("no judgments with a valid answer in the study database: nothing to analyse")
    if quality is not None:  # --min-identity: a sensitivity analysis without the variations below it
        delta = quality.kept(delta)
    before_audit, delta = delta, audit.kept(delta) if audit is not None else delta  # --audit strict
    subset = tuple(models or ())
    inputs = Inputs(
        delta,
        base,
        n_resamples,
        seed,
        test,
        ci_method,
        confidence_level,
        con=con,
        models=subset,
        phi=phi,
        quality=quality,
        generalise=generalise,
        audit=audit,
        delta_before_audit=before_audit if audit is not None else None,
    )
    min_identity = quality.min_identity if quality is not None else None
    settings = RunSettings(
        n_resamples,
        seed,
        test,
        ci_method,
        subset,
        phi=phi.label,
        min_identity=min_identity,
        compat=compat,
        generalise=generalise,
        audit=audit.mode if audit is not None else None,
    )
    return run_suite(con, SUITE, inputs, settings, only=only, write=write, progress=progress, workers=workers)


# The suite's later analyses, declared in their own modules; importing them registers them after
# the tables above (analyses run in declaration order and may read earlier results).
from cueshift.designs.stylisticbias import (  # noqa: E402, F401
    analyses_audit,
    analyses_compat,  # noqa: E402, F401  (last: reads the tables above)
    analyses_effects,
    analyses_missing,
    analyses_models,
    analyses_noise,
    analyses_quality,
    analyses_subgroups,
)
