"""Where a StylisticBias release checkout keeps its judgments: the ``judgements`` folder and its
``<model>/<face>`` folders (``output/judgements/<model>/<face>/<img>/*.json``).

Standard library only, so that ``import judgments`` checks the folder it is given (and, with the
study file, the model folders the study is read with) before it loads its machinery (D95); the
files themselves are read by :mod:`cueshift.images.release_judgments`, which imports these.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from cueshift.errors import ImageSetError


def judgements_folder(root: Path) -> Path:
    """The ``judgements`` folder of a release checkout, its ``output`` folder or the folder itself."""
    root = Path(root)
    for candidate in (root / "output" / "judgements", root / "judgements", root):
        if candidate.is_dir():
            return candidate
    raise ImageSetError(f"{root}: no such folder (expected output/judgements/<model>/<face>/<img>/*.json)")


def subfolders(path: Path, what: str) -> Iterator[os.DirEntry[str]]:
    """The folders in ``path`` in name order, hidden ones skipped; a file there is an error naming
    it and ``what`` was expected."""
    with os.scandir(path) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.name.startswith("."):
                continue
            if not entry.is_dir():
                raise ImageSetError(f"{entry.path}: expected a {what} folder here, found a file")
            yield entry


def face_folders(folder: Path) -> list[tuple[str, str]]:
    """``(model, face)`` of every face folder of a judgements folder, in name order."""
    tasks = [
        (model.name, face.name)
        for model in subfolders(folder, "model")
        for face in subfolders(Path(model.path), "face")
    ]
    if not tasks:
        raise ImageSetError(f"{folder}: no judgments (expected <model>/<face>/<img>/*.json)")
    return tasks
