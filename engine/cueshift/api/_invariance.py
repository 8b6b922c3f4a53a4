""":func:`check_invariance`: ``cueshift check-invariance`` from Python."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import DEFAULT, database_of
from cueshift.errors import CueshiftError

if TYPE_CHECKING:
    import polars as pl


def check_invariance(
    study: str | Path = DEFAULT,
    *,
    db: str | Path | None = None,
    sample: int = 200,
    seed: int = 0,
    bound: float = 0.99,
    models: str | Sequence[str] | None = None,
) -> pl.DataFrame:
    """Ask a stratified sample of stored judgments again, as ``cueshift check-invariance``: one at
    a time, in the run's batches and (transformers generate runs) in score mode; per model and
    comparison the share of identical answers, Cohen's κ and the φ difference with its interval,
    stored as ``result_invariance`` (docs/invariance.md). Loads the study's models.

    Parameters
    ----------
    study, db
        A study file or ``"default"``, and its database (default: the study's ``database``).
    sample, seed
        Judgments per model (balanced over scenario category × ordering) and the sampling seed.
    bound
        Flag a model whose share of identical answers one at a time or batched is below this.
    models
        The model subset (a list or ``"a,b"``; default: every model).

    Returns
    -------
    polars.DataFrame
        ``result_invariance``: one row per model and comparison.

    Raises
    ------
    CueshiftError
        A bad option, an unknown model, a missing database, as the command's one line; the
        database is left as it was.

    Examples
    --------
    >>> import cueshift as cs
    >>> cs.check_invariance(sample=0)
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: --sample 0: use 1 or more
    """
    path, spec = database_of(study, db)  # a bad study file is one line before the machinery loads
    if spec is None:
        raise CueshiftError(f"{study}: give a study file or 'default' (and db=), not a database")
    from cueshift.execution.invariance import check_invariance_study
    from cueshift.store.model_subset import parse_models

    _, frame = check_invariance_study(
        path, spec, models=parse_models(models), sample=sample, seed=seed, bound=bound, note=_print_note
    )
    return frame


def _print_note(line: str) -> None:
    sys.stderr.write(line + "\n")


__all__ = ["check_invariance"]
