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
  random-weight twin is judged too), validated by the design registry before anything is written.

Everything is checked first; the files are written only when all checks pass, each through a
temporary file (never half a file). The summary reports the split-half reliability of the
pseudo-raters per attribute, uncorrected and Spearman–Brown corrected side by side.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cueshift.designs import parse_study
from cueshift.designs.probe.scenarios import OMI_ATTRIBUTES, SCENARIO_SET
from cueshift.errors import ConfigError, CueshiftError
from cueshift.images.omi import RATINGS_FILE, load_omi
from cueshift.images.omi_ratings import OmiRatings, read_omi_ratings
from cueshift.images.reliability_files import read_published_reliability
from cueshift.stats import split_half_reliability
from cueshift.study.variations import VariationFilter

RATINGS_OUT = "human_ratings.csv"
RELIABILITY_OUT = "reliability.csv"
STUDY_OUT = "study.toml"
#: The model written when none is named: OpenAI's CLIP ViT-B/32, the smallest model of seed 004.
DEFAULT_MODEL = "clip-vit-b32=clip:openai/clip-vit-base-patch32"


@dataclass(frozen=True)
class ModelSpec:
    """A model of the study as given on the command line: ``ID=BACKEND[:CHECKPOINT]``."""

    model_id: str
    backend: str
    checkpoint: str

    @classmethod
    def parse(cls, text: str) -> ModelSpec:
        model_id, sep, rest = text.partition("=")
        backend, _, checkpoint = rest.partition(":")
        if not sep or not model_id.strip() or not backend.strip():
            raise ConfigError(f"--model {text!r}: expected ID=BACKEND[:CHECKPOINT], e.g. {DEFAULT_MODEL}")
        return cls(model_id.strip(), backend.strip(), checkpoint.strip())


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


def _toml(value: object) -> str:
    """A TOML value: strings and paths as basic strings (JSON escapes are valid TOML), numbers as is."""
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


def study_text(
    *, name: str, root: Path, out: Path, models: Sequence[ModelSpec], reliability: bool, n_splits: int
) -> str:
    """The study file of an imported OMI folder (absolute paths: it runs from any directory)."""
    probe = {
        "human_ratings": out / RATINGS_OUT,
        **({"reliability": out / RELIABILITY_OUT} if reliability else {}),
        "n_splits": n_splits,
        "split_seed": 0,
        "split_correlation": "pearson",
        "irr_correlation": "spearman",
        # a random-weight twin of each CLIP model: the baseline of its similarity (result_probe_baselines)
        **({"random_twins": True} if any(m.backend == "clip" for m in models) else {}),
    }
    lines = [
        "# Seed 004 on the One Million Impressions data (Peterson et al. 2022, PNAS 119, e2115228119),",
        "# written by `cueshift import omi`. OMI is licensed CC BY-NC-SA 4.0: keep its files out of",
        "# anything you publish under other terms. Human raters are pseudo-raters (docs/importing.md).",
        f"name = {_toml(name)}",
        'design = "probe"',
        'description = "One Million Impressions: model probes vs human impressions of 34 attributes"',
        f"database = {_toml(out / (name + '.duckdb'))}",
        "",
        "[image_set]",
        'kind = "omi"',
        f"root = {_toml(root)}",
        "",
        "[scenarios]",
        f"set = {_toml(SCENARIO_SET)}",
        "",
        "[probe]",
        *(f"{key} = {_toml(value)}" for key, value in probe.items()),
    ]
    for model in models:
        lines += [
            "",
            "[[models]]",
            f"model_id = {_toml(model.model_id)}",
            f"backend = {_toml(model.backend)}",
        ]
        if model.checkpoint:
            lines.append(f"checkpoint = {_toml(model.checkpoint)}")
    return "\n".join(lines) + "\n"


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
    n_splits: int = 100,
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
        The study's models (default: :data:`DEFAULT_MODEL`).
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
    root, out = Path(root).absolute(), Path(out).absolute()
    targets = [out / RATINGS_OUT, out / STUDY_OUT] + ([out / RELIABILITY_OUT] if reliability else [])
    existing = [str(p) for p in targets if p.exists()]
    if existing and not force:
        raise CueshiftError(f"{existing[0]}: already exists; pass --force to replace the imported study")
    specs = list(models) or [ModelSpec.parse(DEFAULT_MODEL)]
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
    if reliability is not None:
        published, converted = read_published_reliability(reliability, attributes=OMI_ATTRIBUTES)
    text = study_text(
        name=name, root=root, out=out, models=specs, reliability=published is not None, n_splits=n_splits
    )
    parse_study(tomllib.loads(text), f"{out / STUDY_OUT} (as it would be written)")
    split_half = split_half_table(ratings.long, n_splits=preview_splits, seed=0)
    out.mkdir(parents=True, exist_ok=True)
    _atomic_write(out / RATINGS_OUT, ratings.long.write_csv())
    if published is not None:
        _atomic_write(out / RELIABILITY_OUT, published.write_csv())
    _atomic_write(out / STUDY_OUT, text)
    return OmiImport(
        study_file=out / STUDY_OUT,
        ratings_file=out / RATINGS_OUT,
        reliability_file=out / RELIABILITY_OUT if published is not None else None,
        reliability_converted=bool(converted),
        n_images=len(stimuli),
        ratings=ratings,
        split_half=split_half,
    )
