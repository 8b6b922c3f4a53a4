"""``cueshift audit`` as a function: the edit audit of every base/variation pair into the study
database's ``edit_audit`` table, with the command's one-line errors."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import DEFAULT, database_of, one_line_errors
from cueshift.errors import CueshiftError

if TYPE_CHECKING:
    import polars as pl


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
        'unintended' or 'identity'; ``failed``, ``reason``).

    Raises
    ------
    CueshiftError
        A bad study file, a design without base/variation edits (pairwise, probe: nothing
        written) or an unreadable image, as the command's one line.

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
