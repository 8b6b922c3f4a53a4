"""``cueshift infer`` and ``export`` as functions: the same internals, checks and one-line errors
(:class:`~cueshift.errors.CueshiftError` where the command exits 2); an interrupt raises
(:class:`~cueshift.execution.interrupts.RunInterrupted` from ``infer``). ``analyze``, ``audit`` and
``report`` are :mod:`._analyze`'s, :mod:`._audit`'s and :mod:`._report`'s."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import DEFAULT, database_of, load_spec, one_line_errors
from cueshift.execution.run_options import SNAPSHOT_EVERY

if TYPE_CHECKING:
    from cueshift.execution.runner import RunSummary


@one_line_errors
def infer(
    study: str | Path = DEFAULT,
    *,
    db: str | Path | None = None,
    shard: str | None = None,
    limit: int | None = None,
    executor: str = "local",
    progress: bool | None = None,
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
        Show progress bars (``None``: when stderr is a terminal or Jupyter, as the CLI).
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
    from cueshift._console import console_for, progress_shown
    from cueshift.execution.run_options import RunOptions
    from cueshift.execution.runner import run_study
    from cueshift.execution.shard import Shard

    options = RunOptions(
        database=Path(db) if db is not None else None,
        shard=Shard.parse(shard) if shard is not None else Shard(),
        limit=limit,
        progress=progress_shown(progress),
        executor=executor,
        address=address,
        workers=workers,
        snapshot_every=snapshot_every,
    )
    return run_study(load_spec(study), options, console=console_for(stderr=True))  # bars on stderr


@one_line_errors
def export(
    study: str | Path = DEFAULT,
    *,
    out: str | Path,
    db: str | Path | None = None,
    formats: Sequence[str] | None = None,
) -> list[Path]:
    """Write the study's exports for other tools, as ``cueshift export`` (docs/exports.md).

    ``out``, the folder written into, is required, as the command's ``--out`` is.

    ``counts.parquet`` (favourable of valid per model × face × variation × scenario × ordering,
    for brms/lme4/HiBayES), ``results/<table>.parquet|csv`` and ``eee/<model>.json`` (Every Eval
    Ever); the database is opened read-only, a study whose analysis has not run is refused.
    ``formats`` None: every export the database can fill (``results`` alone where it holds no
    judgments, a pairwise study's); ``counts`` or ``eee`` asked of such a database is refused.

    Examples
    --------
    >>> cs.export("study.toml", out="exports", formats=["counts"])  # doctest: +SKIP
    [PosixPath('exports/counts.parquet')]
    """
    from cueshift.store.study_export import export_study

    path, _ = database_of(study, db)
    return export_study(path, out, formats=formats)  # type: ignore[arg-type]
