"""Running a study: ``infer``, ``status``, ``merge`` (shard databases) and ``upgrade`` (old schemas)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from cueshift.cli._common import DbOption, StudyOption, StudyOrDbOption, console, err_console
from cueshift.execution.run_options import SNAPSHOT_EVERY


def infer(
    study: StudyOption = "default",
    db: DbOption = None,
    shard: Annotated[str, typer.Option(help="Run shard K of N (K/N) into its own database file.")] = "1/1",
    limit: Annotated[int | None, typer.Option(help="Stop after this many new answers.")] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
    executor: Annotated[
        str, typer.Option(help="Where the models run: 'local' (this process) or 'ray' (a Ray cluster).")
    ] = "local",
    address: Annotated[
        str | None,
        typer.Option(
            help="--executor ray: 'auto' (this machine's cluster) or ray://host:port; default: a new one."
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="--executor ray: actors per model (default: what the cluster holds).")
    ] = None,
    snapshot_every: Annotated[
        float,
        typer.Option(
            help="Seconds between snapshots that analyze, sql, report, view and status read while "
            "this run holds the database (0: none)."
        ),
    ] = SNAPSHOT_EVERY,
) -> None:
    """Ask every question of the study's design not stored yet (resumes after any interruption).

    Ctrl-C (exit 130) or SIGTERM (exit 143) rolls back the batch in flight and says how to resume.
    """
    from cueshift.designs import load_study
    from cueshift.execution.run_options import RunOptions
    from cueshift.execution.shard import Shard

    options = RunOptions(
        database=db,
        shard=Shard.parse(shard),
        limit=limit,
        progress=progress and sys.stderr.isatty(),
        executor=executor,
        address=address,
        workers=workers,
        snapshot_every=snapshot_every,
    )
    spec = load_study(study)  # a bad study file is one line before the store and runner load (D93)
    from cueshift.execution.interrupts import stop_on_sigterm
    from cueshift.execution.runner import run_study

    stop_on_sigterm()
    summary = run_study(spec, options, console=err_console)
    console.print(
        f"study [bold]{escape(spec.name)}[/]: {summary.n_written:,} new answers "
        f"({summary.n_stored_before:,} already stored) in {summary.seconds:.1f} s "
        f"-> {escape(str(summary.database))}",
        soft_wrap=True,
    )
    for note in summary.notes:  # failures, server identity, consistency probe (server text: literal)
        console.print(note, markup=False, highlight=False, soft_wrap=True)


def status(study: StudyOrDbOption = "default", db: DbOption = None) -> None:
    """Progress of the study's latest run: planned, stored, rate, ETA, failures per model.

    Readable while `cueshift infer` runs (from the snapshot it publishes). With --db the study file
    is not read; without, a --study that is not a .toml file or 'default' is the database itself.
    """
    from cueshift.api import status as study_status

    study_status(study, db=db, quiet=False)


def merge(
    output: Annotated[Path, typer.Argument(help="Database to merge into (created if needed).")],
    shards: Annotated[list[Path], typer.Argument(help="Shard databases written by `infer --shard K/N`.")],
) -> None:
    """Merge shard databases into one (all or nothing; conflicting rows are an error)."""
    from cueshift.api import merge as merge_shards

    merge_shards(output, shards, quiet=False)


def upgrade(study: StudyOrDbOption = "default", db: DbOption = None) -> None:
    """Upgrade a study database of an older schema version (2, 3 or 4) to the current one.

    Every row is kept (checked row for row); result tables are dropped (run `cueshift analyze`
    again). The old file is kept as <name>.schema-v<N>.duckdb; a kill leaves it whole. With --db the
    study file is not read; without, a --study that is not a .toml file or 'default' is the database.
    """
    from cueshift.api import upgrade as upgrade_study

    upgrade_study(study, db=db, quiet=False)
