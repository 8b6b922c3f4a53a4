"""Preregistration: ``cueshift prereg`` freezes an analysis plan, ``analyze --prereg`` runs exactly it.

The plan (:func:`freeze_plan`) holds the design, the study as parsed (scenarios, attributes and
variations, prompt and parser, seeds, models, any smallest effects of interest it declares), every
declared analysis with its statistic and correction family, the run's options (resamples, seed,
tests, intervals, φ, audit mode, models, ...), α and the confidence level, and two hashes: the
study's and the image set's (every image's id and SHA-256, as its loader reads it). Its file is
canonical TOML under a SHA-256 (:mod:`cueshift.execution.prereg_toml`).

:func:`apply_plan` checks a plan against the study, its images and the options given, read-only:
the first difference is one line (:class:`~cueshift.errors.ConfigError`) unless ``exploratory``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tomllib
from pathlib import Path
from typing import Any

from cueshift.designs import AnalysisRequest, design_of
from cueshift.errors import ConfigError
from cueshift.execution.prereg_toml import canonical_body, plan_text, read_plan_text
from cueshift.stats import ALPHA, Resampling
from cueshift.study.config import Study
from cueshift.study.reading import read_toml_text

#: Bumped when the plan's layout changes.
PLAN_FORMAT = 1
#: The analyze options a plan fixes, by :class:`AnalysisRequest` field, with their spelling.
PLANNED_OPTIONS = {
    "resamples": "--resamples", "seed": "--seed", "test": "--test", "ci": "--ci", "phi": "--phi",
    "min_identity": "--min-identity", "models": "--models", "compat": "--compat",
    "generalise": "--generalise", "audit": "--audit",
}  # fmt: skip
#: Study fields that say where things are stored, not what is analysed (left out of the plan).
_NOT_PLANNED = ("database", "description", "batch_size")


def _sha256(data: object) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def study_settings(study: Study) -> dict[str, Any]:
    """The study as parsed, as the plan records it (where things are stored left out, ``None``
    values too: the plan file's TOML has no null)."""
    dumped = study.model_dump(mode="json")
    dumped["image_set"].pop("cache_dir", None)  # where demo faces are drawn; the images hash covers them
    planned = {k: v for k, v in dumped.items() if k not in _NOT_PLANNED}
    return dict(tomllib.loads(canonical_body(planned)))  # as the plan file reads back: no None


def images_sha256(study: Study) -> str:
    """SHA-256 of the study's image set: every image's id, path, SHA-256 and whether it is evaluated."""
    from cueshift.images import load_image_set

    image = load_image_set(study.image_set, study.variations, progress=False).image
    rows = image.select("image_id", "path", "sha256", "evaluated").sort("image_id").rows()
    return _sha256([list(row) for row in rows])


def _options(request: AnalysisRequest) -> dict[str, Any]:
    given = {name: getattr(request, name) for name in PLANNED_OPTIONS}
    return {k: list(v) if isinstance(v, tuple) else v for k, v in given.items() if v not in (None, ())}


def freeze_plan(study: Study, request: AnalysisRequest) -> dict[str, Any]:
    """The plan of analysing ``study`` with ``request``'s options: those left out are the design's
    defaults, written out where they are one value for every design (tests, intervals, φ,
    replication mode, population); ``--resamples``, ``--seed`` and ``--audit`` left out stay so."""
    design = design_of(study)
    declared = design.analyses()
    defaults = {"test": design.options.tests[0], "ci": design.options.ci_methods[0], "compat": "default",
                "generalise": "faces", **({"phi": "greedy"} if design.options.phi else {})}  # fmt: skip
    settings = study_settings(study)
    return {
        "format": PLAN_FORMAT,
        "design": study.design,
        "hashes": {"study": _sha256(settings), "images": images_sha256(study)},
        "study": settings,
        "options": {**defaults, **_options(request)},
        "statistics": {"alpha": ALPHA, "confidence_level": Resampling().confidence_level},
        "analyses": {
            item.name: {
                "table": item.table,
                "statistic": item.statistic,
                "family": item.family,
                "grouping": item.grouping,
            }
            for item in declared
        },  # fmt: skip
    }


def write_plan(plan: dict[str, Any], out: Path) -> str:
    """Write ``plan`` to ``out`` (canonical TOML); return its SHA-256."""
    text = plan_text(plan)
    out.write_text(text, encoding="utf-8")
    return text.split('"')[1]


def read_plan(path: Path) -> tuple[dict[str, Any], str]:
    """A plan file and its SHA-256, checked against its hash line (see :func:`read_plan_text`)."""
    if not path.is_file():
        raise ConfigError(f"{path}: no such plan file (write one with `cueshift prereg`)")
    return read_plan_text(read_toml_text(path, "preregistered plan"), str(path))


def deviations(plan: dict[str, Any], study: Study, request: AnalysisRequest, source: str) -> list[str]:
    """Every way that analysing ``study`` with ``request`` departs from ``plan``, one line each."""
    found: list[str] = []
    planned = plan.get("options", {})
    for name, option in PLANNED_OPTIONS.items():
        given = _options(request).get(name)
        if given is not None and given != planned.get(name):
            fixed = planned.get(name, "the design's default")
            found.append(f"{option} {_shown(given)} departs from the plan's {_shown(fixed)}")
    fresh = freeze_plan(study, AnalysisRequest())
    if fresh["design"] != plan.get("design"):
        found.append(f"the study's design {fresh['design']!r} departs from the plan's {plan.get('design')!r}")
    if fresh["hashes"]["study"] != plan.get("hashes", {}).get("study"):
        keys = sorted(k for k in fresh["study"].keys() | plan.get("study", {}).keys()
                      if fresh["study"].get(k) != plan.get("study", {}).get(k))  # fmt: skip
        found.append(f"the study file changed since the plan was frozen ({', '.join(keys) or 'its hash'})")
    if fresh["hashes"]["images"] != plan.get("hashes", {}).get("images"):
        found.append("the image set changed since the plan was frozen (its image hashes differ)")
    for key in ("statistics", "analyses"):
        if fresh[key] != plan.get(key):
            found.append(f"the declared {key} differ from the plan's")
    return [f"{source}: {line}" for line in found]


def _shown(value: object) -> str:
    return ",".join(map(str, value)) if isinstance(value, list) else str(value)


def apply_plan(
    path: Path, study: Study, request: AnalysisRequest, *, exploratory: bool
) -> tuple[AnalysisRequest, str, list[str]]:
    """The request the plan at ``path`` runs, the plan's SHA-256 and its deviations (with
    ``exploratory``; without it a deviation raises).

    Raises
    ------
    ConfigError
        A missing or edited plan file, or (unless ``exploratory``) the first deviation, in one line.
    """
    plan, digest = read_plan(path)
    if plan.get("format") != PLAN_FORMAT:
        raise ConfigError(f"{path}: plan format {plan.get('format')!r}; this cueshift reads {PLAN_FORMAT}")
    found = deviations(plan, study, request, str(path))
    if found and not exploratory:
        raise ConfigError(f"{found[0]} (--exploratory runs it anyway, labelled exploratory)")
    planned = {k: tuple(v) if isinstance(v, list) else v for k, v in plan.get("options", {}).items()}
    given = {k: getattr(request, k) for k in PLANNED_OPTIONS if getattr(request, k) not in (None, ())}
    return dataclasses.replace(request, **{**planned, **given}), digest, found


__all__ = ["PLANNED_OPTIONS", "PLAN_FORMAT", "apply_plan", "deviations", "freeze_plan", "images_sha256",
           "read_plan", "study_settings", "write_plan"]  # fmt: skip
