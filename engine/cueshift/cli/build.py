"""``cueshift build``: make the study's image set (base faces, then audited variations)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.markup import escape

from cueshift.cli._common import DbOption, StudyOption, console, err_console


def build(
    study: StudyOption = "default",
    db: DbOption = None,
    shard: Annotated[
        str, typer.Option(help="Make shard K of N of the faces (K/N) into its own database.")
    ] = "1/1",
    limit: Annotated[
        int | None, typer.Option(help="Make only the first N base faces (try a few first).")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show a progress bar with ETA.")] = True,
    prompts: Annotated[
        str | None,
        typer.Option(help="Prompt family: default, or release (the release's prompt builders)."),
    ] = None,
) -> None:
    """Make the study's image set: base faces from the \\[build] grid, then one audited edit per
    variation; resumes after any interruption, nothing made twice."""
    from cueshift.designs import load_study
    from cueshift.execution.shard import Shard
    from cueshift.stimuli.prompts_release import with_prompt_family

    parsed_shard = Shard.parse(shard)
    spec = with_prompt_family(load_study(study), prompts)  # one line before the build machinery loads (D93)
    from cueshift.stimuli.command import build_study
    from cueshift.stimuli.run import BuildOptions

    options = BuildOptions(
        database=db, shard=parsed_shard, limit=limit, progress=progress and sys.stderr.isatty()
    )
    summary = build_study(spec, options, console=err_console)
    console.print(
        f"study [bold]{escape(spec.name)}[/]: {summary.n_tries_this_run:,} generator calls this run "
        f"-> {escape(str(summary.manifest))} ({escape(str(summary.database))})",
        soft_wrap=True,
    )
    for line in summary.lines:
        console.print(line, markup=False, highlight=False, soft_wrap=True)


__all__ = ["build"]
