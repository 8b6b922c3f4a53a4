"""``cueshift multiverse`` and :func:`cueshift.multiverse`: the study's ``[multiverse]`` choices
crossed over the stored judgments, checked read-only first, then ``result_multiverse``,
``result_multiverse_summary`` and ``result_multiverse_joint`` replaced in one transaction (a failing
run writes nothing).

While a running ``infer`` holds the database, a copy of its snapshot is used instead, as
``analyze`` does (:func:`~cueshift.store.analysis_target.analysis_target`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from cueshift import store
from cueshift.designs.stylisticbias.design import StylisticBiasStudy
from cueshift.designs.stylisticbias.multiverse.run import MultiverseResult, run_multiverse
from cueshift.errors import ConfigError, CueshiftError
from cueshift.execution.analysis_run import MIN_RESAMPLES
from cueshift.schemas.multiverse import validate_multiverse
from cueshift.stats import Resampling
from cueshift.study.config import Study


def _checked(study: Study, resamples: int | None, seed: int | None) -> tuple[StylisticBiasStudy, Resampling]:
    if not isinstance(study, StylisticBiasStudy):
        raise ConfigError(
            f"cueshift multiverse: study {study.name!r} has design {study.design!r}; "
            "the multiverse crosses the StylisticBias headline analyses (design = 'stylisticbias')"
        )
    if resamples is not None and resamples < MIN_RESAMPLES:
        raise ConfigError(f"--resamples {resamples}: use at least {MIN_RESAMPLES}")
    if seed is not None and seed < 0:
        raise ConfigError(f"--seed {seed}: use 0 or more")
    n = study.multiverse.resamples if resamples is None else resamples
    return study, Resampling(resamples=n, seed=seed or 0)


def multiverse_study(
    path: Path,
    study: Study,
    *,
    models: Sequence[str] = (),
    resamples: int | None = None,
    seed: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    note: Callable[[str], None] = lambda line: None,
) -> tuple[Path, MultiverseResult]:
    """Run the study's multiverse on ``path`` and store its three tables.

    Parameters
    ----------
    path, study
        The study database and its study (design ``stylisticbias``).
    models
        The model subset (empty: every model with answers).
    resamples, seed
        Face-level bootstrap resamples per specification (default ``[multiverse] resamples``, 200)
        and seed (default 0).
    progress
        Called with (specifications done, total).
    note
        Gets a line for each thing the user should know (a choice left out, a snapshot used).

    Returns
    -------
    (Path, MultiverseResult)
        The database written and the tables.

    Raises
    ------
    CueshiftError
        A bad option, another design, a missing database, an unknown model, no judgments; the
        database is left as it was.
    """
    from cueshift.store.analysis_target import analysis_target
    from cueshift.store.model_subset import check_models

    spec, resampling = _checked(study, resamples, seed)
    if not path.is_file():
        raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
    con = store.open_study(path, read_only=True, announce=False)
    try:
        subset = check_models(con, path, list(models) or None)
    finally:
        con.close()
    target, line = analysis_target(path)
    if line is not None:
        note(line)
    con = store.open_study(target)
    try:
        result = run_multiverse(con, spec.multiverse, models=subset, resampling=resampling, progress=progress)
        for line in result.notes:
            note(line)
        frames = {
            "multiverse": validate_multiverse("multiverse", result.claims),
            "multiverse_summary": validate_multiverse("multiverse_summary", result.summary),
            "multiverse_joint": validate_multiverse("multiverse_joint", result.joint),
        }
        store.replace_results(con, frames)
    finally:
        con.close()
    return target, result


__all__ = ["multiverse_study"]
