"""``cueshift status`` as a function: how far the study's latest run is, one row per model,
read-only (from the snapshot a running ``infer`` publishes), with the command's one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import DEFAULT, database_named, one_line_errors

if TYPE_CHECKING:
    import polars as pl


@one_line_errors
def status(study: str | Path = DEFAULT, *, db: str | Path | None = None, quiet: bool = True) -> pl.DataFrame:
    """The progress of the study's latest run, as ``cueshift status``: one row per model.

    Readable while ``cueshift infer`` (or ``cs.infer``) runs: the database is opened read-only, or
    the snapshot the run publishes while it holds the file (``run_state`` 'running').

    Parameters
    ----------
    study, db
        The database ``db``, the study then not read (a running ``infer``'s study file may be
        edited or gone); else the ``database`` of ``study``, a study file (``.toml``) or
        ``"default"``; else ``study`` itself, a study database. ``cueshift status --study S --db D``
        reads the same one (docs/decisions.md D84).
    quiet
        Print nothing (False: the command's run line, table and invariance flags).

    Returns
    -------
    polars.DataFrame
        One row per model: ``model_id``, ``stored`` (its answers in all), ``this_run`` (stored by
        the latest run), ``failed_this_run``, ``failed_units`` (units with a failure in any run),
        ``done`` (``this_run`` + ``failed_this_run``), ``depends_on_batching`` (whether
        ``cueshift check-invariance`` flagged the model's answers in any comparison: the command's
        ``FLAG`` lines; null where it has not checked the model); then the latest run's figures,
        the same on every row: ``run_state`` ('running', 'finished', 'stopped', 'no run'), ``run_kind``
        ('infer', 'build', null before any run), ``run_started_at``, ``run_as_of`` (when read),
        ``run_planned`` and ``run_done`` (answers planned and handled: stored or given up on; a
        build's slots planned and kept), ``run_rate`` (per second) and ``run_eta_seconds`` (while
        it runs). A build's tries by outcome: ``quiet=False``, as the command prints them.

    Raises
    ------
    CueshiftError
        Without ``db``, a missing or invalid study file; no such database, a file that is not a
        study database (the command's line).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import cueshift as cs
    >>> from cueshift.api import write_demo_study
    >>> study_file = write_demo_study(Path(tempfile.mkdtemp()))
    >>> _ = cs.infer(study_file, limit=300, progress=False)
    >>> cs.status(study_file).select("model_id", "stored", "done", "run_state", "run_done").rows()
    [('sim', 300, 300, 'finished', 300)]
    """
    path = database_named(study, db)  # a bad study file: one line before the store loads (D93)
    import polars as pl

    from cueshift._console import console_for
    from cueshift.execution.status import study_status
    from cueshift.execution.status_print import print_status

    found = study_status(path)
    print_status(found, console_for(quiet=quiet))
    build = found.build
    run = {
        "run_state": found.state,
        "run_kind": None if found.started_at is None else ("build" if build is not None else "infer"),
        "run_started_at": found.started_at,
        "run_as_of": found.as_of,
        "run_planned": found.planned,
        "run_done": build.kept if build is not None else found.done,
        "run_rate": None if build is not None else found.rate,
        "run_eta_seconds": None if build is not None else found.eta_seconds,
    }
    count, text, time, number, flag = pl.Int64(), pl.String(), pl.Datetime("us"), pl.Float64(), pl.Boolean()
    schema: dict[str, pl.DataType] = {
        "model_id": text, "stored": count, "this_run": count, "failed_this_run": count,
        "failed_units": count, "done": count, "depends_on_batching": flag, "run_state": text,
        "run_kind": text, "run_started_at": time, "run_as_of": time, "run_planned": count, "run_done": count,
        "run_rate": number, "run_eta_seconds": number,
    }  # fmt: skip
    rows = [
        {
            "model_id": m.model_id,
            "stored": m.stored,
            "this_run": m.this_run,
            "failed_this_run": m.failed_this_run,
            "failed_units": m.failed_units,
            "done": m.this_run + m.failed_this_run,
            "depends_on_batching": m.depends_on_batching,
            **run,
        }
        for m in found.models
    ]
    return pl.DataFrame(rows, schema=schema)
