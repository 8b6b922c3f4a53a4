"""``cueshift import judgments`` and ``cueshift import omi`` as functions (``import`` is a keyword:
``import_judgments``, ``import_omi``): the commands' options as keywords, their one-line errors,
and the summary each import makes (docs/importing.md)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import one_line_errors

if TYPE_CHECKING:
    from cueshift.imports.judgments import JudgmentImport
    from cueshift.imports.omi import OmiImport


def _listed(values: str | Sequence[str] | None) -> list[str]:
    """A repeatable option's values: one string is one value (not its characters)."""
    if values is None:
        return []
    return [values] if isinstance(values, str) else list(values)


@one_line_errors
def import_judgments(
    folder: str | Path,
    study: str | Path,
    *,
    db: str | Path | None = None,
    workers: int | None = None,
    progress: bool = False,
    quiet: bool = True,
) -> JudgmentImport:
    """Load judgments made with the StylisticBias release code into the study database, as
    ``cueshift import judgments``: each release file one ``judgment`` row (its ``raw_output``
    re-read by cueshift's strict parser, the release's ``chosen_option`` kept in ``release_judgment``).

    Every file is read and checked before the database is opened; a judgment already stored is
    skipped, so a second call adds nothing. Nothing is written under ``folder``.

    Parameters
    ----------
    folder
        The release checkout, its ``output/`` folder or ``output/judgements/``.
    study
        The study file (TOML) whose image set holds the judged images (``[image_set] kind =
        "stylisticbias"``, ``root`` the checkout); required, as ``--study`` is: ``"default"`` is refused.
    db
        The study database (default: the study's ``database``; created when missing).
    workers
        Processes reading the files (default: the CPU count).
    progress
        Show a progress bar while the image set is loaded.
    quiet
        Print nothing (False: the command's summary line and agreement table).

    Returns
    -------
    JudgmentImport
        ``database``, ``n_files`` read, ``n_written``, ``n_already_stored``, ``models``,
        ``agreement`` (per model: our reading against the release's ``chosen_option``, and the
        answers that echoed the prompt), ``seconds``, ``croissant`` (the release's metadata in one
        line, or None) and ``study_lists_models``.

    Raises
    ------
    CueshiftError
        No study file, a missing folder, a file or field that does not fit the study, a damaged
        database (the command's one line; the database is not touched).

    Examples
    --------
    >>> import cueshift as cs
    >>> cs.import_judgments("StylisticBias", "default")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    cueshift.errors.CueshiftError: import judgments needs a study file (--study F) whose image set ...
    >>> done = cs.import_judgments("StylisticBias", "release.toml")  # doctest: +SKIP
    >>> done.n_written, done.n_already_stored  # doctest: +SKIP
    (20700, 0)
    """
    from cueshift._console import console_for
    from cueshift.imports.console import print_judgment_summary
    from cueshift.imports.judgments import import_judgments as import_release_judgments

    database = Path(db) if db is not None else None
    done = import_release_judgments(
        Path(folder), study, database=database, workers=workers, progress=progress
    )
    print_judgment_summary(done, console_for(quiet=quiet))
    return done


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
    from cueshift._console import console_for
    from cueshift.imports.console import print_omi_summary
    from cueshift.imports.omi import ModelSpec
    from cueshift.imports.omi import import_omi as import_omi_folder

    specs = [ModelSpec.parse(model) for model in _listed(models)]
    done = import_omi_folder(
        Path(folder),
        Path(out),
        name=name,
        models=specs,
        rating_types=_listed(rating_types),
        reliability=Path(reliability) if reliability is not None else None,
        seed=seed,
        force=force,
        progress=progress,
    )
    print_omi_summary(done, console_for(quiet=quiet))
    return done
