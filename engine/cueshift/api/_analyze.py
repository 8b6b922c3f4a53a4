"""``cueshift analyze`` as a function: every analysis of the study's design into ``result_*``
tables, with the command's options, checks and one-line errors
(:class:`~cueshift.errors.CueshiftError` where the command exits 2)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import DEFAULT, database_of, one_line_errors
from cueshift.api._open_study import open_study
from cueshift.api._study import Study
from cueshift.errors import ConfigError, CueshiftError

if TYPE_CHECKING:
    from cueshift.designs import AnalysisRequest


@one_line_errors
def analyze(
    study: str | Path = DEFAULT,
    *,
    db: str | Path | None = None,
    resamples: int | None = None,
    seed: int | None = None,
    test: str | None = None,
    ci: str | None = None,
    phi: str | None = None,
    min_identity: float | None = None,
    models: str | Sequence[str] | None = None,
    compat: str | None = None,
    generalise: str | None = None,
    audit: str | None = None,
    prereg: str | Path | None = None,
    exploratory: bool = False,
    top: int | None = None,
    overview_only: bool = False,
    progress: bool = False,
    quiet: bool = True,
) -> Study:
    """Run every analysis of the study's design into ``result_*`` tables, as ``cueshift analyze``.

    The options and their defaults are the command's; an option the design cannot honour is
    refused (one line naming it), never ignored. While a running ``infer`` holds the database, a copy
    of its snapshot is analysed (``<stem>.partial.duckdb``; stderr says so), as the command does.

    Parameters
    ----------
    study, db
        A study file or ``"default"``, and its database (default: the study's ``database``).
    resamples, seed, test, ci, phi, min_identity
        ``--resamples`` (at least 100), ``--seed``, ``--test``, ``--ci``, ``--phi`` and
        ``--min-identity`` of ``cueshift analyze``.
    models
        ``--models``: the model subset (a list or ``"a,b"``; default: every model). A model
        without answers in the database is refused before anything is written, naming the
        models present.
    compat
        ``--compat``: ``'release'`` also writes the seed release's own tables (``result_release_*``)
        and every cell where they differ from cueshift's (``result_compat_differences``);
        ``'default'`` or ``None``: cueshift's tables only. StylisticBias only, as the command.
    generalise
        ``--generalise``: ``'faces'`` (default: intervals for the study's own scenarios) or
        ``'faces+scenarios'`` (for scenarios in general; crossed bootstrap of faces and scenarios).
    audit
        ``--audit``: ``'strict'`` (the variations whose edit failed the stored edit audit left out of
        every analysis) or ``'report'``; both write ``result_audit_sensitivity``. ``None``: no audit.
    prereg, exploratory
        ``--prereg``: a plan file of :func:`cueshift.prereg`, run exactly (its options; a deviation,
        a changed study or image set refused in one line); ``--exploratory``: run despite a
        deviation, labelled exploratory. The plan's SHA-256 is stored in ``result_manifest``.
    top, overview_only
        ``--top``: variations listed per model in the first-cut overview (default 10);
        ``--overview-only``: print the overview and stop (no statistics, the database left as it
        was). Both shape what is printed, so both need ``quiet=False`` (refused with
        ``quiet=True``, where they would do nothing); StylisticBias only, as the command.
    progress
        Show a progress bar.
    quiet
        Print nothing (False: the design's console summary, as the command prints it).

    Returns
    -------
    Study
        The analysed database, read-only: ``.results(name)``, ``.manifest()`` ...

    Raises
    ------
    CueshiftError
        A bad option, an unknown model, a missing or unusable database, as the command's one
        line; the database is left as it was.
    KeyboardInterrupt
        Ctrl-C; the result tables are replaced in one transaction, so none is half-written.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import cueshift as cs
    >>> from cueshift.api import write_demo_study
    >>> study_file = write_demo_study(Path(tempfile.mkdtemp()))
    >>> _ = cs.infer(study_file, progress=False)
    >>> study = cs.analyze(study_file, resamples=100, seed=1)
    >>> study.result_names()[:3]
    ['sbs', 'table2_vs', 'demographic_tests']
    >>> study.results("sbs").height == study.manifest().filter(name="sbs")["n_rows"].item()
    True
    >>> cs.analyze(study_file, resamples=10)
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: --resamples 10: use at least 100
    >>> cs.analyze(study_file, models="nope")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cueshift.errors.CueshiftError: unknown model 'nope' in ...demo.duckdb; models: sim
    >>> cs.analyze(study_file, overview_only=True)
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: overview_only=True: it prints the overview ...; give quiet=False
    """
    from cueshift._console import console_for
    from cueshift.designs import AnalysisRequest
    from cueshift.execution.analysis_run import analyze_study, check_options
    from cueshift.store.model_subset import parse_models

    path, spec = database_of(study, db)
    if spec is None:
        raise CueshiftError(f"{study}: give a study file or 'default' (and db=), not a database")
    request = AnalysisRequest(
        seed=seed,
        resamples=resamples,
        test=test,
        ci=ci,
        models=tuple(parse_models(models)),
        top=top,
        overview_only=overview_only,
        phi=phi,
        min_identity=min_identity,
        compat=compat,
        generalise=generalise,
        audit=audit,
    )
    if quiet and (overview_only or top is not None):
        check_options(spec, request)  # a bad value or design: the command's line first
        _check_printed(request)
    target = analyze_study(
        path, spec, request, console=console_for(quiet=quiet), progress=progress, note=_print_note,
        prereg=Path(prereg) if prereg is not None else None, exploratory=exploratory,
    )  # fmt: skip
    return open_study(study, db=target)


def _check_printed(request: AnalysisRequest) -> None:
    """Refuse ``top`` and ``overview_only`` with ``quiet=True``: they only shape what is printed.

    Raises
    ------
    ConfigError
        One line naming the keyword and ``quiet=False``.
    """
    if request.overview_only:
        raise ConfigError(
            "overview_only=True: it prints the overview and writes nothing, and quiet=True prints nothing; "
            "give quiet=False"
        )
    if request.top is not None:
        raise ConfigError(
            f"top={request.top}: it lengthens the printed overview, and quiet=True prints nothing; "
            "give quiet=False or leave top out"
        )


def _print_note(line: str) -> None:
    sys.stderr.write(line + "\n")
