"""The design registry: every ``cueshift/designs/<name>/`` package that exports ``DESIGN``.

Nothing lists the designs by hand: a new folder with a ``DESIGN`` object is found here, its
study model joins the discriminated union that study files are validated against
(:func:`load_study`), and the command line, the runner and ``cueshift report`` reach it by
the ``design`` of a study (:func:`design_of`).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from pathlib import Path
from typing import Annotated, Any, Union

from pydantic import Field, TypeAdapter

from cueshift.designs.protocol import Design
from cueshift.errors import ConfigError
from cueshift.study import config
from cueshift.study.config import DEFAULT_DESIGN, Study, read_study_file
from cueshift.study.scenarios import Scenario

_PACKAGE = "cueshift.designs"


@functools.cache
def designs() -> dict[str, Design[Any]]:
    """Every design by name, the default design (:data:`DEFAULT_DESIGN`) first, then by name.

    A design is a subpackage of :mod:`cueshift.designs` (any folder on the package's
    ``__path__``) whose ``__init__`` exports ``DESIGN``.
    """
    found: dict[str, Design[Any]] = {}
    package = importlib.import_module(_PACKAGE)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if not info.ispkg:
            continue
        design = getattr(importlib.import_module(f"{_PACKAGE}.{info.name}"), "DESIGN", None)
        if design is None:
            continue
        if design.name in found:
            raise ValueError(f"design {design.name!r} is declared twice")
        found[design.name] = design
    order = sorted(found, key=lambda name: (name != DEFAULT_DESIGN, name))
    return {name: found[name] for name in order}


def design_named(name: str) -> Design[Any]:
    """The design called ``name``.

    Raises
    ------
    ConfigError
        No such design (the message lists the known ones).
    """
    known = designs()
    if name not in known:
        raise ConfigError(f"unknown design {name!r}; known: {', '.join(known)}")
    return known[name]


def design_of(study: Study) -> Design[Any]:
    """The design of ``study``."""
    return design_named(study.design)


@functools.cache
def scenario_sets() -> dict[str, tuple[Scenario, ...]]:
    """Every scenario set a study file can name in ``[scenarios] set``: those the designs declare
    (:attr:`~cueshift.designs.protocol.Design.scenario_sets`), in design order."""
    found: dict[str, tuple[Scenario, ...]] = {}
    for design in designs().values():
        for name, scenarios in getattr(design, "scenario_sets", {}).items():
            if name in found:
                raise ValueError(f"scenario set {name!r} is declared twice")
            found[name] = scenarios
    return found


def study_scenarios(study: Study) -> tuple[Scenario, ...]:
    """The scenarios of ``study``: its scenario set, restricted to ``[scenarios] only``, in set order."""
    scenarios = scenario_sets()[study.scenarios.set]
    if study.scenarios.only is not None:
        keep = set(study.scenarios.only)
        scenarios = tuple(s for s in scenarios if s.scenario_id in keep)
    return scenarios


@functools.cache
def study_schema() -> TypeAdapter[Study]:
    """The discriminated union of every design's study model, tagged by ``design``."""
    models = tuple(design.study_model for design in designs().values())
    if len(models) == 1:
        return TypeAdapter(models[0])
    union: Any = Union[models]  # noqa: UP007  (built from the registry at run time)
    return TypeAdapter(Annotated[union, Field(discriminator="design")])


def parse_study(data: dict[str, Any], source: str) -> Study:
    """Validate study-file ``data`` as the study model of its design (one-line :class:`ConfigError`)."""
    return config.parse_study(data, source, study_schema(), scenario_sets=scenario_sets())


def load_study(path: str | Path | None = None) -> Study:
    """Load a study file as the study model of its design; ``None`` or ``'default'`` gives the
    embedded default study.

    Raises
    ------
    ConfigError
        No such file, invalid TOML, an unknown design or an invalid field (one line, naming
        the file and the field).
    """
    data, source = read_study_file(path)
    return parse_study(data, source)


__all__ = [
    "design_named",
    "design_of",
    "designs",
    "load_study",
    "parse_study",
    "scenario_sets",
    "study_scenarios",
    "study_schema",
]
