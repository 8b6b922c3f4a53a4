"""``cueshift import judgments DIR --study F``: runs of the StylisticBias release code into a study database.

Each release file (:mod:`cueshift.images.release_judgments`) becomes one ``judgment`` row of the
study's design, keyed like every judgment (model, image, scenario, ordering, seed):

* **model** — the ``<model>`` folder; a model the study file does not list gets a ``model`` row
  with ``backend = 'release-import'`` and the folder name as checkpoint (a study file without
  ``[[models]]`` is read as listing every model folder so);
* **image** — the ``<img>`` folder, an image of the study's image set (the release's
  ``final_dataset``) whose face is the ``<face>`` folder;
* **scenario** — the study scenario whose two descriptors are the file's ``options``; the file
  name's ``scenario<i>`` must follow the study's scenario order (any fixed offset, 0- or 1-based);
* **ordering** — fixed by which letter holds the favorable descriptor and which option the prompt
  lists first (seed 000 App. C.2); each release ``order`` value must always mean the same one;
* **answer** — ``raw_output`` re-read by our strict parser (:mod:`cueshift.inference.parser`); when
  it echoes the prompt sent (the release's local LLaVA-v1.6 / Phi-4 backends decode prompt and
  answer), the chat template and prompt are cut off first (:mod:`cueshift.images.release_echo`)
  and ``response_text`` keeps the whole output. The release's own ``chosen_option`` is kept
  beside it in ``release_judgment``; the summary counts per model where the two disagree and
  how many echoed answers were cut, and the import's ``run`` row keeps those counts as JSON
  in ``backend_report``.

The study file and the folder are read and checked first (:mod:`.release_study`, which loads no
data library, so the API function reads them before it imports this module: D95); all files are
read and checked before the database is opened (:mod:`.release_store` writes them); a judgment
already stored is skipped, so importing twice adds nothing. Rows go in large batches, not one
transaction per file.
The import adds no noise-floor placebos (the release judged none, and adding them would write
their re-encodes into the release's folder): nothing is ever written under the source folders.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cueshift import store
from cueshift.designs import design_of
from cueshift.designs.registry import scenario_sets, study_scenarios
from cueshift.errors import CueshiftError
from cueshift.images.croissant import find_croissant, read_croissant
from cueshift.images.release_judgments import read_judgment_tree
from cueshift.images.stylisticbias import release_root
from cueshift.imports.release_matching import match_study
from cueshift.imports.release_rows import agreement_table, echo_counts, judgment_frames
from cueshift.imports.release_store import write_release
from cueshift.imports.release_study import ReleaseStudy, read_release_study
from cueshift.study.config import Study


@dataclass(frozen=True)
class JudgmentImport:
    """What ``import judgments`` read and wrote."""

    database: Path
    n_files: int
    n_written: int
    n_already_stored: int
    models: tuple[str, ...]
    agreement: pl.DataFrame  # per model: our parse vs the release's chosen_option, echo_stripped
    seconds: float
    croissant: str | None = None
    study_lists_models: bool = True  # False: the study file has no [[models]] (analyze needs them)


def _croissant(study: Study) -> str | None:
    """The release's Croissant metadata in one line, when the study's images ship a croissant.json."""
    root = study.image_set.root
    if study.image_set.kind != "stylisticbias" or root is None:
        return None
    found = find_croissant(root, release_root(root))
    return str(read_croissant(found)) if found is not None else None


def without_placebos(study: Study) -> Study:
    """``study`` adding no noise-floor placebos: the release has no judgment of them, and their
    lossless re-encodes would be written under the release's image root (the source folder)."""
    if not study.image_set.placebos:
        return study
    return study.model_copy(update={"image_set": study.image_set.model_copy(update={"placebos": False})})


def import_judgments(
    root: Path,
    study_file: str | Path | None,
    *,
    database: Path | None = None,
    workers: int | None = None,
    progress: bool = False,
    advance: Callable[[int], None] | None = None,
) -> JudgmentImport:
    """Import a release's judgment files into the study database (see the module docstring).

    Parameters
    ----------
    root
        The release checkout, its ``output`` folder or its ``judgements`` folder.
    study_file
        The study whose image set holds the judged images (``[image_set] kind = "stylisticbias"``);
        ``None`` or ``'default'`` (no study file) is refused up front
        (:data:`cueshift.imports.release_study.NO_STUDY`).
    database
        Study database (default: the study's).
    workers
        Processes reading the files (default: the CPU count).
    progress, advance
        Progress bar while the image set is loaded; ``advance(n)`` after each face folder read.

    Raises
    ------
    CueshiftError
        One line naming the file and field; the database is not touched.
    """
    started = time.perf_counter()
    release = read_release_study(root, study_file)
    return import_release(
        release, database=database, workers=workers, progress=progress, advance=advance, started=started
    )


def import_release(
    release: ReleaseStudy,
    *,
    database: Path | None = None,
    workers: int | None = None,
    progress: bool = False,
    advance: Callable[[int], None] | None = None,
    started: float | None = None,
) -> JudgmentImport:
    """:func:`import_judgments` of a release folder and study already read and checked
    (:func:`~cueshift.imports.release_study.read_release_study`); ``started`` (a
    :func:`time.perf_counter` reading, default now) is when the import began, for ``seconds``."""
    started = time.perf_counter() if started is None else started
    folder, listed = release.folder, release.lists_models
    study = without_placebos(release.study)
    workload = design_of(study).workload(study, progress=progress)
    if "judgment" not in {kind.table for kind in workload.units}:
        raise CueshiftError(
            f"{release.study_file}: design {study.design!r} stores no forced-choice judgments"
        )
    files = read_judgment_tree(folder, workers=workers, advance=advance)
    scenarios = study_scenarios(study)
    positions = {s.scenario_id: i for i, s in enumerate(scenario_sets()[study.scenarios.set])}
    matched = match_study(
        files, workload.context.images, scenarios, positions, study.prompt.orderings, folder
    )
    run = store.RunRecord(study.name, "1/1", study.model_dump_json(), matched.height)
    judgments, releases = judgment_frames(matched, scenarios, run.run_id, dt.datetime.now())
    store.validate("judgment", judgments)
    store.validate("release_judgment", releases)
    models = judgments["model_id"].unique().sort().to_list()
    agreement = agreement_table(judgments, releases).join(echo_counts(matched), on="model_id", how="left")
    report = json.dumps({"release_import": agreement.rows_by_key("model_id", named=True, unique=True)})
    n_written = write_release(
        Path(database or study.database_path),
        study,
        workload.dimensions,
        run,
        judgments,
        releases,
        models=models,
        report=report,
    )
    return JudgmentImport(
        database=Path(database or study.database_path),
        n_files=files.height,
        n_written=n_written,
        n_already_stored=judgments.height - n_written,
        models=tuple(models),
        agreement=agreement,
        seconds=time.perf_counter() - started,
        croissant=_croissant(study),
        study_lists_models=listed,
    )
