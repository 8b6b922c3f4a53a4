"""The study ``import judgments`` reads a release with, and the release folder, checked before the
import loads its machinery (D95): this module loads pydantic and the study layer only, so a
missing or bad study file, or a missing folder, is one line at once.

A study file without ``[[models]]`` is read as listing every ``<model>`` folder of the release
(backend ``release-import``, the folder name as checkpoint).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from cueshift.designs import parse_study
from cueshift.designs.imported_judges import IMPORT_BACKEND
from cueshift.errors import CueshiftError
from cueshift.study.config import Study
from cueshift.study.reading import read_study_file
from cueshift.study.release_tree import face_folders, judgements_folder

MODEL_ID = re.compile(r"^[A-Za-z0-9_.\-]+$")

#: Why ``import judgments`` needs a study file (the default study's images are not the release's).
NO_STUDY = (
    "import judgments needs a study file (--study F) whose image set holds the judged images: "
    '[image_set] kind = "stylisticbias", root = the release checkout (docs/importing.md)'
)


@dataclass(frozen=True)
class ReleaseStudy:
    """A release's judgements folder and the study read for it."""

    folder: Path
    study: Study
    study_file: str | Path  # as given, for messages
    lists_models: bool  # False: the study file has no [[models]] (read as the model folders)


def imported_model(model_id: str) -> dict[str, object]:
    """The study file's ``[[models]]`` entry of a model folder the study does not list."""
    settings = {"source": "StylisticBias release judgments"}
    return {"model_id": model_id, "backend": IMPORT_BACKEND, "checkpoint": model_id, "settings": settings}


def _model_folders(folder: Path) -> list[str]:
    """The ``<model>`` folder names of a judgements folder, each checked as a model id."""
    models = sorted({model for model, _ in face_folders(folder)})
    for model in models:
        if not MODEL_ID.match(model):
            raise CueshiftError(
                f"{folder / model}: field 'model': {model!r} is not a usable model id "
                "(letters, digits, _ . -)"
            )
    return models


def read_release_study(root: Path, study_file: str | Path | None) -> ReleaseStudy:
    """The judgements folder under ``root`` and the study file read for it, checked in this order:
    a study file given (``None`` and ``'default'`` are refused, :data:`NO_STUDY`), the folder, the
    file read, the model folders (names usable as model ids), the study's fields.

    Raises
    ------
    CueshiftError
        The first problem, one line naming the file or folder (and the field).
    """
    if study_file is None or str(study_file) == "default":
        raise CueshiftError(NO_STUDY)
    folder = judgements_folder(root)
    data, source = read_study_file(study_file)
    models = _model_folders(folder)
    listed = bool(data.get("models"))
    if not listed:
        data = {**data, "models": [imported_model(m) for m in models]}
    return ReleaseStudy(folder, parse_study(data, source), study_file, listed)
