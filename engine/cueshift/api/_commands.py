"""``cueshift infer``, ``analyze`` and ``report`` as functions: the same internals, checks and
one-line errors (:class:`~cueshift.errors.CueshiftError` where the command exits 2); an interrupt
raises (:class:`~cueshift.execution.interrupts.RunInterrupted` from ``infer``)."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import DEFAULT, database_of, load_spec, one_line_errors
from cueshift.api._study import Study, open_study
from cueshift.errors import CueshiftError
from cueshift.execution.run_options import SNAPSHOT_EVERY

if TYPE_CHECKING:
    import polars as pl

    from cueshift.execution.runner import RunSummary


@one_line_errors
def infer(
    study: str | Path = DEFAULT,
    *,
    db: str | Path | None = None,
    shard: str | None = None,
    limit: int | None = None,
    executor: str = "local",
    progress: bool = True,
    address: str | None = None,
    workers: int | None = None,
    snapshot_every: float = SNAPSHOT_EVERY,
) -> RunSummary:
    """Ask every question of the study's design not stored yet, as ``cueshift infer`` (resumes).

    Parameters
    ----------
    study
        A study file (``.toml``) or ``"default"``.
    db
        Study database (default: the study's ``database``, ``runs/<name>.duckdb``).
    shard
        ``"K/N"``: run shard K of N into its own database file (default: everything).
    limit
        Stop after this many new answers.
    executor, address, workers
        ``"local"`` (this process) or ``"ray"``, with Ray's cluster address and actors per model.
    progress
        Show progress bars.
    snapshot_every
        Seconds between the snapshots readers open while the run holds the database (0: none).

    Returns
    -------
    RunSummary
        The run's id and database, answers planned, written and stored before, seconds, notes.

    Raises
    ------
    CueshiftError
        An invalid study file or option, an unusable database, as the command's one line.
    RunInterrupted
        Ctrl-C (a :class:`KeyboardInterrupt`): the batch in flight was rolled back, the rest is kept.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import cueshift as cs
    >>> from cueshift.api import write_demo_study
    >>> study_file = write_demo_study(Path(tempfile.mkdtemp()))
    >>> cs.infer(study_file, limit=300, progress=False).n_written
    300
    >>> cs.infer(study_file, progress=False).n_stored_before
    300
    """
    from cueshift.execution.run_options import RunOptions
    from cueshift.execution.runner import run_study
    from cueshift.execution.shard import Shard

    options = RunOptions(
        database=Path(db) if db is not None else None,
        shard=Shard.parse(shard) if shard is not None else Shard(),
        limit=limit,
        progress=progress,
        executor=executor,
        address=address,
        workers=workers,
        snapshot_every=snapshot_every,
    )
    return run_study(load_spec(study), options)


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
    generalise: str | None = None,
    audit: str | None = None,
    prereg: str | Path | None = None,
    exploratory: bool = False,
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
    """
    from cueshift._console import console_for
    from cueshift.designs import AnalysisRequest
    from cueshift.execution.analysis_run import analyze_study
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
        phi=phi,
        min_identity=min_identity,
        generalise=generalise,
        audit=audit,
    )
    target = analyze_study(
        path, spec, request, console=console_for(quiet=quiet), progress=progress, note=_print_note,
        prereg=Path(prereg) if prereg is not None else None, exploratory=exploratory,
    )  # fmt: skip
    return open_study(study, db=target)


def _print_note(line: str) -> None:
    sys.stderr.write(line + "\n")


@one_line_errors
def report(
    study: str | Path = DEFAULT,
    *,
    db: str | Path | None = None,
    models: str | Sequence[str] | None = None,
    out: str | Path | None = None,
    formats: Iterable[str] = ("html", "pdf"),
    engine: str = "auto",
) -> dict[str, Path]:
    """Render the study's report document to HTML and PDF, as ``cueshift report``.

    Parameters
    ----------
    study, db
        A study file or ``"default"``, and its database (default: the study's ``database``).
    models
        Model subset (a list or ``"a,b"``; default: every model).
    out
        Output folder (default ``reports/_out``).
    formats, engine
        ``"html"`` and/or ``"pdf"``; ``"auto"`` (Quarto when on PATH), ``"quarto"`` or ``"jupyter"``.

    Returns
    -------
    dict of str to Path
        The file written for each format.

    Raises
    ------
    CueshiftError
        A database it cannot render, an unknown model, an unwritable folder, a failing cell.

    Examples
    --------
    >>> cs.report("study.toml", formats=["html"])  # doctest: +SKIP
    {'html': PosixPath('reports/_out/stylisticbias.html')}
    """
    from cueshift.designs import design_of
    from cueshift.render import DEFAULT_OUT, render_report

    path, spec = database_of(study, db)
    if spec is None:
        raise CueshiftError(f"{study}: give a study file or 'default' (and db=), not a database")
    result = render_report(
        path,
        document=design_of(spec).report().document_path,
        models=models,
        out_dir=Path(out) if out is not None else DEFAULT_OUT,
        formats=formats,
        engine=engine,
    )
    return dict(result.outputs)


@one_line_errors
def export(
    study: str | Path = DEFAULT,
    *,
    db: str | Path | None = None,
    out: str | Path = "exports",
    formats: Sequence[str] = ("counts", "results", "eee"),
) -> list[Path]:
    """Write the study's exports for other tools, as ``cueshift export`` (docs/exports.md).

    ``counts.parquet`` (favourable of valid per model × face × variation × scenario × ordering,
    for brms/lme4/HiBayES), ``results/<table>.parquet|csv`` and ``eee/<model>.json`` (Every Eval
    Ever); the database is opened read-only, a study whose analysis has not run is refused.

    Examples
    --------
    >>> cs.export("study.toml", out="exports", formats=["counts"])  # doctest: +SKIP
    [PosixPath('exports/counts.parquet')]
    """
    from cueshift.store.study_export import export_study

    path, _ = database_of(study, db)
    return export_study(path, out, formats=formats)  # type: ignore[arg-type]


@one_line_errors
def audit(
    study: str | Path = DEFAULT, *, db: str | Path | None = None, progress: bool = False, quiet: bool = True
) -> pl.DataFrame:
    """Audit every edit of the study into its ``edit_audit`` table, as ``cueshift audit``.

    Parameters
    ----------
    study, db
        A study file or ``"default"``, and its database (default: the study's ``database``;
        created when missing).
    progress
        Show a progress bar.
    quiet
        Print nothing (False: the command's summary line and table of failures).

    Returns
    -------
    polars.DataFrame
        The ``edit_audit`` rows: one per variation and measure (``check_kind`` 'cue',
        'unintended' or 'identity'; ``failed``, ``reason``). Empty for a design without
        base/variation pairs.

    Raises
    ------
    CueshiftError
        A bad study file or an unreadable image, as the command's one line.

    Examples
    --------
    >>> rows = cs.audit("study.toml")  # doctest: +SKIP
    >>> rows.filter("failed")["image_id"].n_unique()  # doctest: +SKIP
    12
    """
    from cueshift._console import console_for
    from cueshift.designs.audit import audit_study

    path, spec = database_of(study, db)
    if spec is None:
        raise CueshiftError(f"{study}: give a study file or 'default' (and db=), not a database")
    return audit_study(spec, path, console=console_for(quiet=quiet), progress=progress)
