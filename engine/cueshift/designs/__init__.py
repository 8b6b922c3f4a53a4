"""Further study designs of the seed papers, selected by ``design`` in a study file.

============  ===========================================================  ====================
design        what is judged                                               seed paper
============  ===========================================================  ====================
``paired``    one image at a time, original vs filtered of one individual  001 (LLaVA halo)
``pairwise``  two images side by side; scalar 0-10 ratings                 002 (aesthetic bias)
``probe``     model scores (CLIP m or a VLM's phi) vs human impressions    004 (CLIP impressions)
============  ===========================================================  ====================

The CLI dispatches through :func:`run_design` (``cueshift infer``) and
:func:`analyze_design` (``cueshift analyze``); each design module is imported only when
its design is used (this package is imported while the study configuration loads).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import duckdb
    import polars as pl
    from rich.console import Console

    from cueshift.designs.runner import RunSummary
    from cueshift.study.config import Study

#: design -> module implementing ``run(study, ...)`` and ``analyze(con, study, ...)``.
DESIGN_MODULES: dict[str, str] = {
    "paired": "cueshift.designs.paired",
    "pairwise": "cueshift.designs.pairwise",
    "probe": "cueshift.designs.probe",
}


def _module(design: str) -> Any:
    from cueshift.errors import ConfigError

    if design not in DESIGN_MODULES:
        raise ConfigError(f"design {design!r} has no design module; known: {', '.join(DESIGN_MODULES)}")
    return importlib.import_module(DESIGN_MODULES[design])


def run_design(
    study: Study,
    *,
    database: Path | None = None,
    progress: bool = True,
    console: Console | None = None,
    max_judgments: int | None = None,
) -> RunSummary:
    """Run (or resume) everything ``study`` asks of its models, for a non-default design.

    Parameters
    ----------
    study
        A study whose ``design`` is ``paired``, ``pairwise`` or ``probe``.
    database
        Study database (default ``study.database_path``).
    progress, console
        Progress bars on ``console``.
    max_judgments
        Stop after this many new judgments / trials / ratings (smoke tests).

    Returns
    -------
    RunSummary
        Counts of the run (``n_written`` sums every kind of answer written).
    """
    run = _module(study.design).run
    summary: RunSummary = run(
        study, database=database, progress=progress, console=console, max_judgments=max_judgments
    )
    return summary


def analyze_design(
    con: duckdb.DuckDBPyConnection, study: Study, console: Console | None = None, *, write: bool = True
) -> dict[str, pl.DataFrame]:
    """Compute the design's statistics, store them as ``result_<design>_<name>`` and print a summary.

    Returns
    -------
    dict of str to polars.DataFrame
        Result frames by name (without the ``result_<design>_`` prefix).
    """
    analyze = _module(study.design).analyze
    results: dict[str, pl.DataFrame] = analyze(con, study, console=console, write=write)
    return results


__all__ = ["DESIGN_MODULES", "analyze_design", "run_design"]
