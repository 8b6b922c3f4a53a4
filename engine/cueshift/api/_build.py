"""``cs.build``: make a study's image set, as ``cueshift build``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cueshift.stimuli.summary import BuildSummary


def build(
    study: str | Path,
    *,
    db: str | Path | None = None,
    shard: str | None = None,
    limit: int | None = None,
    progress: bool | None = None,
    prompts: str | None = None,
) -> BuildSummary:
    """Make (or resume) the base faces and variations of the study's ``[build]`` section.

    Parameters
    ----------
    study
        A study file (``.toml``) with a ``[build]`` section and a manifest image set.
    db
        Study database (default: the study's ``database``, ``runs/<name>.duckdb``).
    shard
        ``"K/N"``: make shard K of N of the faces into its own database file.
    limit
        Make only the first ``limit`` base faces (and their variations): try a few first.
    progress
        Show a progress bar with ETA (``None``: when stderr is a terminal or Jupyter, as the CLI).
    prompts
        The prompt family, ``"default"`` or ``"release"`` (the release's prompt builders);
        ``None``: the study's ``[build.prompts] family``.

    Returns
    -------
    BuildSummary
        Images planned and kept, calls by outcome, losses by cell and by value, lines to print.

    Raises
    ------
    CueshiftError
        A bad study, grid, prompt family or generator setting, as the command's one line
        (nothing written).
    """
    from cueshift._console import progress_shown
    from cueshift.designs import load_study
    from cueshift.execution.shard import Shard
    from cueshift.stimuli.command import build_study
    from cueshift.stimuli.run import BuildOptions

    options = BuildOptions(
        database=Path(db) if db is not None else None,
        shard=Shard.parse(shard) if shard is not None else Shard(),
        limit=limit,
        progress=progress_shown(progress),
    )
    from cueshift.stimuli.prompts_release import with_prompt_family

    return build_study(with_prompt_family(load_study(study), prompts), options)


__all__ = ["build"]
