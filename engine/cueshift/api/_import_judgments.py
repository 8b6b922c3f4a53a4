""":func:`import_judgments`: ``cueshift import judgments`` as a function (``import`` is a keyword):
the command's options as keywords, its one-line errors and its summary (docs/importing.md).

The study file and the release folder are read and checked before the import's machinery
(DuckDB, polars, the image code) is imported, so a bad study is one line at once (D95)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from cueshift.api._locate import one_line_errors

if TYPE_CHECKING:
    from cueshift.imports.judgments import JudgmentImport


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
    from cueshift.imports.release_study import read_release_study

    started = time.perf_counter()
    release = read_release_study(Path(folder), study)  # one line before the import's machinery loads (D95)
    from cueshift._console import console_for
    from cueshift.imports.console import print_judgment_summary
    from cueshift.imports.judgments import import_release

    database = Path(db) if db is not None else None
    done = import_release(release, database=database, workers=workers, progress=progress, started=started)
    print_judgment_summary(done, console_for(quiet=quiet))
    return done
