""":func:`import_omi`: ``cueshift import omi`` as a function (``import`` is a keyword): the
command's options as keywords, its one-line errors and its summary (docs/importing.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import one_line_errors

if TYPE_CHECKING:
    from cueshift.imports.omi import OmiImport


def _listed(values: str | Sequence[str] | None) -> list[str]:
    """A repeatable option's values: one string is one value (not its characters)."""
    if values is None:
        return []
    return [values] if isinstance(values, str) else list(values)


@one_line_errors
def import_omi(
    folder: str | Path,
    out: str | Path = "omi-study",
    *,
    name: str = "omi",
    models: str | Sequence[str] | None = None,
    rating_types: str | Sequence[str] | None = None,
    reliability: str | Path | None = None,
    seed: int = 0,
    force: bool = False,
    progress: bool = False,
    quiet: bool = True,
) -> OmiImport:
    """Build a probe study (seed 004) from the One Million Impressions layout, as ``cueshift import
    omi``: ``human_ratings.csv`` (pseudo-raters), ``reliability.csv`` (when given) and ``study.toml``
    written into ``out``, all checked first (nothing written if any check fails).

    Parameters
    ----------
    folder
        The OMI folder: ``images/<n>.jpg`` and ``attribute_ratings.csv``.
    out
        The folder for the study file and the ratings it reads (created when missing).
    name
        The study's name (and its database's file stem).
    models
        ``"ID=BACKEND[:CHECKPOINT]"``, one or a list (``--model``, repeatable; default: a CLIP
        ViT-B/32).
    rating_types
        ``rating_type`` values to keep, one or a list (``--rating-type``); ``"all"`` pools them
        (needed when the file mixes them).
    reliability
        Published reliabilities: the published IRR file as it is (``attribute,human_irr``, 0-100),
        or ``attribute,reliability`` (-1..1 or 0-100).
    seed
        Seed of the pseudo-rater order.
    force
        Replace study files already in ``out``.
    progress
        Show a progress bar while the images are checked.
    quiet
        Print nothing (False: the command's counts, split-half reliability table and next step).

    Returns
    -------
    OmiImport
        ``study_file`` (run ``cs.infer`` on it), ``ratings_file``, ``reliability_file`` (None when
        not given), ``reliability_converted`` (a 0-100 file divided by 100), ``n_images``,
        ``ratings`` (read, kept, left out: ``.n_read``, ``.long``, ``.out_of_set``, ...) and
        ``split_half`` (per attribute: ``raw_r``, ``spearman_brown``, ``n_raters``, ``n_splits``).

    Raises
    ------
    CueshiftError
        A missing folder or file, a bad row or field, mixed rating types without a choice, study
        files already in ``out`` without ``force`` (the command's one line; nothing written).

    Examples
    --------
    >>> import cueshift as cs
    >>> cs.import_omi("OMI", models=["clip"])
    Traceback (most recent call last):
    ...
    cueshift.errors.ConfigError: --model 'clip': expected ID=BACKEND[:CHECKPOINT], e.g. clip-vit-b32=clip:...
    >>> done = cs.import_omi("OMI", "omi-study", reliability="OMI/irr.csv")  # doctest: +SKIP
    >>> _ = cs.infer(done.study_file)  # doctest: +SKIP
    """
    from cueshift.imports.omi_study import ModelSpec, plan_omi_import

    specs = [ModelSpec.parse(model) for model in _listed(models)]
    plan = plan_omi_import(  # every check needing no data, before the machinery is imported (D98)
        Path(folder),
        Path(out),
        name=name,
        models=specs,
        reliability=Path(reliability) if reliability is not None else None,
        force=force,
    )
    from cueshift._console import console_for
    from cueshift.imports.console import print_omi_summary
    from cueshift.imports.omi import import_planned

    done = import_planned(plan, rating_types=_listed(rating_types), seed=seed, progress=progress)
    print_omi_summary(done, console_for(quiet=quiet))
    return done
