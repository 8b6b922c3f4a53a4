"""Finding the designs: every ``cueshift/designs/<name>/`` package that exports ``DESIGN``, and
every design an installed distribution declares under the ``cueshift.designs`` entry-point group.

A design that lives outside the package registers through its distribution's metadata, read
once when the registry is first asked (no import-order tricks): in ``pyproject.toml``::

    [project.entry-points."cueshift.designs"]
    toy = "toy_design"            # a module exporting DESIGN, or "toy_design:DESIGN"

The entry point's name is the design's name. Built-in folders and entry points are merged; a
name declared twice is refused, as is a design that lacks a member of the protocol. The rest of
the registry (analyses, study files) is :mod:`cueshift.designs.registry`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

from cueshift import _result_declarations
from cueshift.designs.protocol import Design
from cueshift.errors import ConfigError
from cueshift.study.config import DEFAULT_DESIGN

_PACKAGE = "cueshift.designs"
#: The entry-point group an installed distribution declares its designs under.
ENTRY_POINT_GROUP = "cueshift.designs"
#: What every design offers (:class:`~cueshift.designs.protocol.Design`).
MEMBERS = (
    "name",
    "study_model",
    "options",
    "workload",
    "analyses",
    "analyze",
    "result_schemas",
    "report",
    "planner",
    "viewer",
)

_ABSENT = object()


def _built_in() -> Iterator[tuple[str, object]]:
    """``(where, DESIGN)`` of every subpackage of :mod:`cueshift.designs` that exports one, by name."""
    package = importlib.import_module(_PACKAGE)
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.ispkg:
            module = importlib.import_module(f"{_PACKAGE}.{info.name}")
            if (design := getattr(module, "DESIGN", None)) is not None:
                yield module.__name__, design


def _installed() -> Iterator[tuple[str, object]]:
    """``(where, DESIGN)`` of every ``cueshift.designs`` entry point, by name then value."""
    for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: (p.name, p.value)):
        where = f"entry point {point.name!r} ({point.value})"
        loaded = point.load()
        design = getattr(loaded, "DESIGN", None) if isinstance(loaded, ModuleType) else loaded
        if design is None:
            raise ConfigError(f"{where}: the module exports no DESIGN")
        if getattr(design, "name", None) != point.name:
            raise ConfigError(f"{where}: names design {getattr(design, 'name', None)!r}, not {point.name!r}")
        yield where, design


@functools.cache
def designs() -> dict[str, Design[Any]]:
    """Every design by name, the default design (:data:`DEFAULT_DESIGN`) first, then by name.

    A design is a subpackage of :mod:`cueshift.designs` (any folder on the package's
    ``__path__``) whose ``__init__`` exports ``DESIGN``, or the ``DESIGN`` an entry point of the
    ``cueshift.designs`` group names (:data:`ENTRY_POINT_GROUP`).

    Each design's :attr:`~cueshift.designs.protocol.Design.result_schemas` are declared to the
    result check (:func:`~cueshift.schemas.results.declare_result_schemas`) as it is found, or,
    when the check is not loaded yet, as it loads (:mod:`cueshift._result_declarations`): finding
    the designs reads no member but ``name`` and ``study_model`` and ``scenario_sets``, so it loads
    no library a design only needs to run (D90).

    Raises
    ------
    ConfigError
        A design name declared twice, a design lacking a member of the protocol, a result table
        two designs declare (raised here when the result check is loaded, else as it loads), or
        an entry point that names no design.
    """
    found: dict[str, Design[Any]] = {}
    where: dict[str, str] = {}
    for source, design in [*_built_in(), *_installed()]:
        # looked up, not read: a member may be a property that imports its machinery (D90)
        missing = [member for member in MEMBERS if inspect.getattr_static(design, member, _ABSENT) is _ABSENT]
        if missing:
            raise ConfigError(f"{source}: the design lacks {', '.join(missing)} (docs/designs.md)")
        name = str(getattr(design, "name"))  # noqa: B009  (checked above, not typed yet)
        if name in found:
            raise ConfigError(f"design {name!r} is declared twice: by {where[name]} and by {source}")
        found[name], where[name] = design, source  # type: ignore[assignment]
        _result_declarations.declare(source, name, functools.partial(getattr, design, "result_schemas"))
    order = sorted(found, key=lambda name: (name != DEFAULT_DESIGN, name))
    return {name: found[name] for name in order}


__all__ = ["ENTRY_POINT_GROUP", "MEMBERS", "designs"]
