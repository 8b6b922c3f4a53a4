"""``cueshift analyze`` and :func:`cueshift.analyze` from options to result tables: every option and
the database checked read-only first, then the database opened for writing.

A failing analyze prints nothing before its one line and leaves the database byte for byte as it
was (docs/decisions.md#d15): :func:`check_analysis` opens it read-only (the file, its schema
version, the model subset, the scores a temperature φ needs) before :func:`analyze_study` prints
or writes anything.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from cueshift import store
from cueshift.designs import AnalysisRequest, analyze_design, design_of
from cueshift.errors import ConfigError, CueshiftError
from cueshift.study.config import Study

#: The fewest resamples ``--resamples`` takes.
MIN_RESAMPLES = 100


def check_options(study: Study, request: AnalysisRequest) -> None:
    """The option values alone: ``--resamples``, ``--seed``, ``--top`` and what the design honours.

    Raises
    ------
    ConfigError
        One line naming the option.

    Examples
    --------
    >>> from cueshift.designs import load_study
    >>> check_options(load_study("default"), AnalysisRequest(seed=-1))
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: --seed -1: use 0 or more
    """
    if request.resamples is not None and request.resamples < MIN_RESAMPLES:
        raise ConfigError(f"--resamples {request.resamples}: use at least {MIN_RESAMPLES}")
    for option, value in (("--seed", request.seed), ("--top", request.top)):
        if value is not None and value < 0:
            raise ConfigError(f"{option} {value}: use 0 or more")
    design = design_of(study)
    design.options.check(design.name, request)


def check_analysis(path: Path, study: Study, request: AnalysisRequest) -> None:
    """Every check of an analysis that needs no writing, the database opened read-only.

    Raises
    ------
    CueshiftError
        A bad option, a missing or unusable database, a model without answers in it (named, with
        the models present), or a temperature φ for a model that stored no scores.
    """
    from cueshift.store.model_subset import check_models
    from cueshift.views import check_scored, parse_phi

    check_options(study, request)
    if not path.is_file():
        raise CueshiftError(f"{path}: no such study database (run `cueshift infer` first)")
    con = store.open_study(path, read_only=True, announce=False)  # file and schema version checked
    try:
        check_models(con, path, request.models)
        if request.phi is not None:
            check_scored(con, parse_phi(request.phi), request.models or None)
    finally:
        con.close()


def analyze_study(
    path: Path,
    study: Study,
    request: AnalysisRequest,
    *,
    console: Console,
    progress: bool,
    note: Callable[[str], None],
    prereg: Path | None = None,
    exploratory: bool = False,
) -> Path:
    """Check (:func:`check_analysis`), then run every analysis of ``study``'s design into ``path``.

    While a running ``infer`` holds ``path``, a copy of its snapshot is analysed instead
    (:func:`~cueshift.store.analysis_target.analysis_target`) and ``note`` gets a line saying so.

    With ``prereg`` (a plan file of ``cueshift prereg``) the plan's options are run, a deviation
    refused (:func:`~cueshift.execution.prereg.apply_plan`) unless ``exploratory``, and the plan's
    SHA-256 (and whether the run departs from it) recorded in ``result_manifest``.

    Returns
    -------
    Path
        The database the result tables were written to.
    """
    from cueshift.stats import PlanRecord, following_plan
    from cueshift.store.analysis_target import analysis_target
    from cueshift.store.interrupts import prompt_interrupts

    plan, departures = PlanRecord(), list[str]()
    if prereg is not None:
        from cueshift.execution.prereg import apply_plan

        request, digest, departures = apply_plan(prereg, study, request, exploratory=exploratory)
        plan = PlanRecord(digest, exploratory=bool(departures))
    elif exploratory:
        raise ConfigError("--exploratory: only with --prereg (it labels a run that departs from its plan)")
    check_analysis(path, study, request)
    if plan.sha256 is not None:
        departures_line = "; ".join(departures) if plan.exploratory else "run as planned"
        note(f"note: preregistered plan {plan.sha256}: {departures_line}")
    target, line = analysis_target(path)
    if line is not None:
        note(line)
    con = store.open_study(target)
    try:
        with prompt_interrupts(con), following_plan(plan.sha256, exploratory=plan.exploratory):
            analyze_design(con, study, console, request=request, progress=progress)
    finally:
        con.close()
    return target


__all__ = ["MIN_RESAMPLES", "analyze_study", "check_analysis", "check_options"]
