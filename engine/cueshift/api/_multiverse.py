""":func:`multiverse`: ``cueshift multiverse`` from Python."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from cueshift.api._locate import DEFAULT, database_of, one_line_errors
from cueshift.api._open_study import open_study
from cueshift.api._study import Study
from cueshift.errors import CueshiftError


@one_line_errors
def multiverse(
    study: str | Path = DEFAULT,
    *,
    db: str | Path | None = None,
    resamples: int | None = None,
    seed: int | None = None,
    models: str | Sequence[str] | None = None,
    progress: bool = False,
) -> Study:
    """Run the headline analyses on every path of the study's ``[multiverse]`` choices, as
    ``cueshift multiverse``: ``result_multiverse`` (one row per specification × claim),
    ``result_multiverse_summary`` (per claim: share of specifications holding it, the choice that
    moves it most) and ``result_multiverse_joint`` (the joint test of each model's SBS, and of each of its
    attributes', over the specifications), from the stored judgments (docs/multiverse.md).

    Parameters
    ----------
    study, db
        A study file or ``"default"``, and its database (default: the study's ``database``).
    resamples, seed
        Face-level bootstrap resamples per specification (default ``[multiverse] resamples``, 200;
        at least 100) and seed (default 0).
    models
        The model subset (a list or ``"a,b"``; default: every model).
    progress
        ``--progress``: a line ``specification <done>/<total>`` on stderr after each specification.

    Returns
    -------
    Study
        The database, read-only: ``.results("multiverse")``, ``.results("multiverse_summary")``,
        ``.results("multiverse_joint")``.

    Raises
    ------
    CueshiftError
        A bad option, a design other than ``stylisticbias``, an unknown model, a missing database,
        as the command's one line; the database is left as it was.

    Examples
    --------
    >>> import tempfile
    >>> import cueshift as cs
    >>> from cueshift.api import write_demo_study
    >>> study_file = write_demo_study(Path(tempfile.mkdtemp()))
    >>> cs.multiverse(study_file, resamples=10)
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: --resamples 10: use at least 100
    """
    path, spec = database_of(study, db)  # a bad study file is one line before the machinery loads
    if spec is None:
        raise CueshiftError(f"{study}: give a study file or 'default' (and db=), not a database")
    from cueshift.execution.multiverse_run import multiverse_study
    from cueshift.store.model_subset import parse_models

    target, _ = multiverse_study(
        path, spec, models=parse_models(models), resamples=resamples, seed=seed,
        progress=_print_progress if progress else None, note=_print_note,
    )  # fmt: skip
    return open_study(study, db=target)


def _print_note(line: str) -> None:
    sys.stderr.write(line + "\n")


def _print_progress(done: int, total: int) -> None:
    _print_note(f"specification {done}/{total}")


__all__ = ["multiverse"]
