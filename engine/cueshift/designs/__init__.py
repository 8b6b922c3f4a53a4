"""Study designs: the :class:`~cueshift.designs.protocol.Design` protocol, the registry of designs,
and the analysis entry point; the runner that wires a design's work units to the backends and the study
database is :mod:`cueshift.execution`.

=================  ===========================================================  ===================
design             what is judged                                               seed paper
=================  ===========================================================  ===================
``stylisticbias``  one image at a time, base face vs single-cue variations      000 (StylisticBias)
``paired``         one image at a time, original vs filtered of one individual  001 (LLaVA halo)
``pairwise``       two images side by side; scalar 0-10 ratings                 002 (aesthetic bias)
``probe``          model scores (CLIP m or a VLM's phi) vs human impressions    004 (CLIP impressions)
=================  ===========================================================  ===================

Each design is a folder ``designs/<name>/`` exporting ``DESIGN`` (found by
:mod:`~cueshift.designs.discovery`; see ``docs/designs.md`` to add one). The command line uses
:func:`load_study` and :func:`analyze_design`; the runner (:mod:`cueshift.execution`) asks a
design for its work units. None of them branches on a design's name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cueshift.designs.discovery import designs
from cueshift.designs.protocol import AnalysisRequest, Design, OptionSupport
from cueshift.designs.registry import design_named, design_of, load_study, parse_study

if TYPE_CHECKING:
    import duckdb
    import polars as pl
    from rich.console import Console

    from cueshift.study.config import Study


def analyze_design(
    con: duckdb.DuckDBPyConnection,
    study: Study,
    console: Console | None = None,
    *,
    request: AnalysisRequest | None = None,
    progress: bool = False,
    write: bool = True,
) -> dict[str, pl.DataFrame]:
    """Run the analyses of ``study``'s design, store them as ``result_*`` tables (with their
    ``result_manifest`` rows) when ``write``, and print the design's summary.

    Parameters
    ----------
    con
        The open study database.
    study
        A study of any registered design.
    console
        Where the summary goes (default: a new console on stdout).
    request
        The ``cueshift analyze`` options (default: none given); an option the design cannot
        honour is a :class:`~cueshift.errors.ConfigError`.
    progress, write
        Show a progress bar; store the tables.

    Returns
    -------
    dict of str to polars.DataFrame
        Result frames by analysis name (the table is ``result_<name>``).
    """
    from cueshift._console import console_for
    from cueshift.store.keys import check_unique_keys

    check_unique_keys(con)  # each judgment once: unique by construction, verified before use
    design = design_of(study)
    request = request or AnalysisRequest()
    design.options.check(design.name, request)
    console = console or console_for()
    return design.analyze(con, study, request, console=console, progress=progress, write=write)


__all__ = [
    "AnalysisRequest",
    "Design",
    "OptionSupport",
    "analyze_design",
    "design_named",
    "design_of",
    "designs",
    "load_study",
    "parse_study",
]
