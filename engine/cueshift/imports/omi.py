"""``cueshift import omi DIR``: the One Million Impressions data as a ready-to-run probe study.

From the OMI layout (:mod:`cueshift.images.omi`) it writes, into one output folder:

* ``human_ratings.csv`` — ``stimulus, attribute, rater, rating`` with pseudo-raters
  (:mod:`cueshift.images.omi_ratings`), ratings of stimuli without an image left out;
* ``reliability.csv`` — the published reliabilities, when given, on the -1..1 scale: the
  published IRR file as it is (``attribute, human_irr`` in percent) or ``attribute,
  reliability`` on -1..1 or 0-100 (:mod:`cueshift.images.reliability_files`; a percent file is converted, and
  the summary says so);
* ``study.toml`` — ``design = "probe"``, ``[image_set] kind = "omi"``, the ``omi-34`` scenarios,
  the two files above and the models (with ``random_twins = true`` when one is a CLIP model: its
  random-weight twin is judged too), validated by the design registry before any data is read.

Everything is checked first: the arguments by :func:`~.omi_study.plan_omi_import` (which loads no
data library, so the API function checks them before it imports this module: D98), then the
images, the ratings and the reliabilities. The files are written only when all checks pass, each
through a temporary file (never half a file). The summary reports the split-half reliability of the
pseudo-raters per attribute, uncorrected and Spearman–Brown corrected side by side.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cueshift.designs.probe.scenarios import OMI_ATTRIBUTES
from cueshift.images.omi import RATINGS_FILE, load_omi
from cueshift.images.omi_ratings import OmiRatings, read_omi_ratings
from cueshift.images.reliability_files import read_published_reliability
from cueshift.imports.omi_study import (
    N_SPLITS,
    RATINGS_OUT,
    RELIABILITY_OUT,
    STUDY_OUT,
    ModelSpec,
    OmiPlan,
    plan_omi_import,
)
from cueshift.stats import split_half_reliability
from cueshift.study.variations import VariationFilter


@dataclass(frozen=True)
class OmiImport:
    """What ``import omi`` wrote and found."""

    study_file: Path
    ratings_file: Path
    reliability_file: Path | None
    reliability_converted: bool
    n_images: int
    ratings: OmiRatings
    split_half: pl.DataFrame  # attribute, raw_r, spearman_brown, n_raters, n_splits


def split_half_table(long: pl.DataFrame, *, n_splits: int, seed: int) -> pl.DataFrame:
    r"""Per attribute: the mean split-half correlation :math:`\bar r` of the pseudo-raters and the
    mean Spearman–Brown value :math:`\overline{2r/(1+r)}` (:func:`cueshift.stats.split_half_reliability`)."""
    ratings = long.rename({"rater": "rater_id", "stimulus": "image_id"})
    rows = []
    for (attribute,), part in ratings.group_by("attribute", maintain_order=True):
        split = split_half_reliability(part, n_splits=n_splits, seed=seed, method="pearson")
        rows.append(
            {
                "attribute": attribute,
                "raw_r": split["raw_r"],
                "spearman_brown": split["estimate"],
                "n_raters": int(split["n_raters"]),
                "n_splits": int(split["n_splits"]),
            }
        )
    return pl.DataFrame(rows).sort("attribute")


def _atomic_write(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def import_omi(
    root: Path,
    out: Path,
    *,
    name: str = "omi",
    models: Sequence[ModelSpec] = (),
    rating_types: Sequence[str] = (),
    reliability: Path | None = None,
    seed: int = 0,
    n_splits: int = N_SPLITS,
    preview_splits: int = 20,
    force: bool = False,
    progress: bool = False,
) -> OmiImport:
    """Check an OMI folder and write the probe study built from it (see the module docstring).

    Parameters
    ----------
    root
        The OMI folder (``images/``, ``attribute_ratings.csv``).
    out
        The folder the study files are written to (created if needed).
    name
        The study's name (and its database's stem).
    models
        The study's models (default: :data:`~.omi_study.DEFAULT_MODEL`).
    rating_types
        ``rating_type`` values to keep (``all`` pools them); empty: the file must have one type.
    reliability
        Published reliabilities: the published IRR file (``attribute, human_irr``, percent) or
        ``attribute, reliability`` on the -1..1 or the 0-100 scale.
    seed
        Seed of the pseudo-rater order.
    n_splits
        ``[probe] n_splits`` of the study.
    preview_splits
        Random splits of the reliability shown in the summary.
    force
        Replace study files already in ``out``.
    progress
        Show a progress bar while the images are checked.

    Raises
    ------
    CueshiftError
        One line naming the file, row and field; nothing is written.
    """
    plan = plan_omi_import(
        root, out, name=name, models=models, reliability=reliability, n_splits=n_splits, force=force
    )
    return import_planned(
        plan, rating_types=rating_types, seed=seed, preview_splits=preview_splits, progress=progress
    )


def import_planned(
    plan: OmiPlan,
    *,
    rating_types: Sequence[str] = (),
    seed: int = 0,
    preview_splits: int = 20,
    progress: bool = False,
) -> OmiImport:
    """:func:`import_omi` of arguments already checked (:func:`~.omi_study.plan_omi_import`): reads
    and checks the images, the ratings and the reliabilities, then writes the study's files."""
    root, out = plan.root, plan.out
    bench = load_omi(root, VariationFilter(whitelist={}, rules=[]), progress=progress)
    stimuli = bench.image["image_id"].to_list()
    ratings = read_omi_ratings(
        root / RATINGS_FILE,
        stimuli=stimuli,
        attributes=OMI_ATTRIBUTES,
        rating_types=rating_types or None,
        seed=seed,
    )
    published = converted = None
    if plan.reliability is not None:
        published, converted = read_published_reliability(plan.reliability, attributes=OMI_ATTRIBUTES)
    split_half = split_half_table(ratings.long, n_splits=preview_splits, seed=0)
    out.mkdir(parents=True, exist_ok=True)
    _atomic_write(out / RATINGS_OUT, ratings.long.write_csv())
    if published is not None:
        _atomic_write(out / RELIABILITY_OUT, published.write_csv())
    _atomic_write(out / STUDY_OUT, plan.study_text)
    return OmiImport(
        study_file=out / STUDY_OUT,
        ratings_file=out / RATINGS_OUT,
        reliability_file=out / RELIABILITY_OUT if published is not None else None,
        reliability_converted=bool(converted),
        n_images=len(stimuli),
        ratings=ratings,
        split_half=split_half,
    )
