"""cueshift: how single visual cues shift the social judgments of multimodal models.

The documented idiom is ``import cueshift as cs`` (docs/api.md)::

    study = cs.open_study("runs/default.duckdb")
    study.results("sbs")

The names below are imported on first use, so ``import cueshift`` stays fast and loads neither
the models (torch) nor the report stack.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cueshift import stats
    from cueshift.api import (
        Study,
        analyze,
        audit,
        build,
        check_invariance,
        describe,
        export,
        import_judgments,
        import_omi,
        infer,
        merge,
        multiverse,
        open_study,
        plan_study,
        prereg,
        report,
        show_study,
        status,
        upgrade,
        view,
    )  # fmt: skip
    from cueshift.errors import CueshiftError

try:
    __version__: str = metadata.version("cueshift")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = [
    "CueshiftError",
    "Study",
    "analyze",
    "audit",
    "build",
    "check_invariance",
    "describe",
    "export",
    "import_judgments",
    "import_omi",
    "infer",
    "merge",
    "multiverse",
    "open_study",
    "plan_study",
    "prereg",
    "report",
    "show_study",
    "stats",
    "status",
    "upgrade",
    "view",
]

#: Public name → the module it comes from (imported on first access): ``stats`` is a module,
#: ``CueshiftError`` comes from ``cueshift.errors``, every other name from ``cueshift.api``.
_LAZY: dict[str, str] = {
    name: "cueshift.errors" if name == "CueshiftError" else "cueshift.api"
    for name in __all__
    if name != "stats"
}


def __getattr__(name: str) -> Any:
    if name == "stats":
        return importlib.import_module("cueshift.stats")
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value  # later accesses skip this function
        return value
    raise AttributeError(f"module 'cueshift' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
