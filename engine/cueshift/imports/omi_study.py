"""The study file ``import omi`` writes, and its arguments checked before the import loads its
machinery (D98): this module loads pydantic and the study layer only, so a bad ``--model``, an
``--out`` already holding a study, a missing OMI folder or ``--reliability`` file, or a study the
arguments make invalid (its ``name``, its models) is one line at once, before any data is read.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cueshift.designs import parse_study
from cueshift.designs.probe.scenarios import SCENARIO_SET
from cueshift.errors import ConfigError, CueshiftError, ImageSetError

RATINGS_OUT = "human_ratings.csv"
RELIABILITY_OUT = "reliability.csv"
STUDY_OUT = "study.toml"
#: The model written when none is named: OpenAI's CLIP ViT-B/32, the smallest model of seed 004.
DEFAULT_MODEL = "clip-vit-b32=clip:openai/clip-vit-base-patch32"
#: ``[probe] n_splits`` of the study written.
N_SPLITS = 100


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
class OmiPlan:
    """An ``import omi`` whose arguments passed :func:`plan_omi_import`: its absolute folders, the
    published reliabilities' file as given (None when not given) and the study file's text."""

    root: Path
    out: Path
    reliability: Path | None
    study_text: str


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


def plan_omi_import(
    root: Path,
    out: Path,
    *,
    name: str,
    models: Sequence[ModelSpec],
    reliability: Path | None,
    n_splits: int = N_SPLITS,
    force: bool = False,
) -> OmiPlan:
    """Check what ``import omi`` can check without reading data, in this order: study files
    already in ``out`` (without ``force``), the OMI folder, the ``reliability`` file, and the study
    file the arguments give (``models`` empty: :data:`DEFAULT_MODEL`), validated by the design
    registry, and each model's backend name and settings, as ``infer`` checks them (whether a
    checkpoint loads is left to ``infer``, on the machine that runs it). Each failure is the line
    the import gave when it found it later (before D98); an unknown backend was not refused.

    Raises
    ------
    CueshiftError
        One line naming the file or field; nothing is written.
    """
    root, out = Path(root).absolute(), Path(out).absolute()
    targets = [out / RATINGS_OUT, out / STUDY_OUT] + ([out / RELIABILITY_OUT] if reliability else [])
    existing = [str(p) for p in targets if p.exists()]
    if existing and not force:
        raise CueshiftError(f"{existing[0]}: already exists; pass --force to replace the imported study")
    if not root.is_dir():  # the line of cueshift.images.omi.load_omi
        raise ImageSetError(f"{root}: field 'root': no such folder")
    if reliability is not None and not Path(reliability).is_file():  # as images/_rating_csv.csv_reader
        raise CueshiftError(f"{reliability}: no such file")
    specs = list(models) or [ModelSpec.parse(DEFAULT_MODEL)]
    text = study_text(
        name=name, root=root, out=out, models=specs, reliability=reliability is not None, n_splits=n_splits
    )
    study = parse_study(tomllib.loads(text), f"{out / STUDY_OUT} (as it would be written)")
    from cueshift.execution.preflight import check_model_settings  # the backends: after the rest

    for model in study.models:  # infer's line now, not a study file infer refuses later
        check_model_settings(model)
    return OmiPlan(root=root, out=out, reliability=reliability, study_text=text)
