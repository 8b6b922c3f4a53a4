"""Where ``analyze`` writes its result tables: the study database, or a copy of its snapshot while a
running ``cueshift infer`` holds it (:mod:`cueshift.store.snapshot`).

Used by ``cueshift analyze`` and :func:`cueshift.api.analyze` alike.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import duckdb

from cueshift.store.snapshot import count_answers, partial_path, readable


def analysis_target(path: Path) -> tuple[Path, str | None]:
    """The database ``analyze`` writes, and a line for the user when it is not ``path`` itself.

    While a running infer holds ``path``, its snapshot is copied to ``<stem>.partial<suffix>``
    (:func:`~cueshift.store.snapshot.partial_path`) and the analysis writes there; the study
    database gets its results when ``analyze`` runs again after the run.

    Parameters
    ----------
    path
        The study database.

    Returns
    -------
    target : Path
        ``path``, or the partial copy.
    note : str or None
        What is analysed instead and how fresh it is (None when ``target`` is ``path``).

    Raises
    ------
    CueshiftError
        ``path`` is locked and its writer has published no snapshot yet.
    """
    source, snapshot = readable(path)
    if snapshot is None:
        return path, None
    partial = partial_path(path)
    copying = partial.with_name(partial.name + ".tmp")
    try:
        shutil.copyfile(source, copying)
        os.replace(copying, partial)
    except BaseException:  # a full disk, Ctrl-C: no half copy left
        copying.unlink(missing_ok=True)
        raise
    with duckdb.connect(str(partial), read_only=True) as con:
        answers = count_answers(con)
    note = (
        f"{snapshot.describe(answers)}; analyzing a copy, {partial} "
        f"(`cueshift report --db {partial}` shows it; analyze again after the run for the study database)"
    )
    return partial, note


__all__ = ["analysis_target"]
