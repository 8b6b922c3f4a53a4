"""The design registry: every design by name (found by :mod:`cueshift.designs.discovery`), its
analyses, and the study files validated against the designs' study models.

Nothing lists the designs by hand: a new folder with a ``DESIGN`` object, or a design an installed
distribution declares under the ``cueshift.designs`` entry-point group, is found by
:func:`~cueshift.designs.discovery.designs`; its study model joins the discriminated union that
study files are validated against (:func:`load_study`), its result schemas join the result check
(:func:`~cueshift.schemas.results.declare_result_schemas`), and the command line, the runner,
``cueshift plan``, ``report`` and ``view`` reach it by the ``design`` of a study (:func:`design_of`).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import Field, TypeAdapter

from cueshift import _result_declarations
from cueshift.designs.discovery import designs
from cueshift.designs.imported_judges import explain_no_judge
from cueshift.designs.protocol import Design
from cueshift.errors import ConfigError
from cueshift.study import reading
from cueshift.study.config import Study
from cueshift.study.reading import read_study_file
from cueshift.study.scenarios import Scenario

if TYPE_CHECKING:
    from cueshift.stats import Analysis


def clear_caches() -> None:
    """Forget the designs found, and the study-file union and scenario sets built from them (after
    a design is installed or removed while the process runs, e.g. in a test); the result tables
    of the designs outside the package are withdrawn from the result check."""
    from cueshift.schemas.results import RESULT_TABLES_BY_DESIGN, withdraw_result_schemas

    _result_declarations.forget()  # not declared yet: dropped before the check loads
    for name in list(RESULT_TABLES_BY_DESIGN):
        withdraw_result_schemas(name)
    if analyses.cache_info().currsize:
        from cueshift.stats import declare_analyses

        for suite in {item.suite for item in analyses().values()}:
            declare_analyses(suite, ())  # no longer shown in cueshift.stats.ANALYSES
    designs.cache_clear()
    analyses.cache_clear()
    study_schema.cache_clear()
    scenario_sets.cache_clear()


@functools.cache
def analyses() -> dict[str, Analysis[Any]]:
    """Every design's analyses by name: the designs in :func:`designs` order, each design's in
    the order it declares them (:meth:`~cueshift.designs.protocol.Design.analyses`).

    The view is also shown as :data:`cueshift.stats.ANALYSES` once asked for here.

    Raises
    ------
    ConfigError
        A design whose analyses belong to another suite, or an analysis two designs declare.
    """
    from cueshift.stats import declare_analyses

    found: dict[str, Analysis[Any]] = {}
    for name, design in designs().items():
        declared = design.analyses()
        if declared.suite != name:
            raise ConfigError(f"design {name!r} declares the analyses of suite {declared.suite!r}")
        for item in declared:
            if item.name in found:
                first = found[item.name].suite
                raise ConfigError(f"analysis {item.name!r} is declared by {first!r} and {name!r}")
            found[item.name] = item
        declare_analyses(name, declared)
    return found


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
    return reading.parse_study(data, source, study_schema(), scenario_sets=scenario_sets())


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
    try:
        return parse_study(data, source)
    except ConfigError as error:
        raise explain_no_judge(error, data) from None


__all__ = [
    "analyses",
    "clear_caches",
    "design_named",
    "design_of",
    "load_study",
    "parse_study",
    "scenario_sets",
    "study_scenarios",
    "study_schema",
]
