"""cueshift: how single visual cues shift the social judgments of multimodal models.

The documented idiom is ``import cueshift as cs`` (docs/api.md)::

    study = cs.open_study("runs/default.duckdb")
    study.results("sbs")

The names below are imported on first use, so ``import cueshift`` stays fast and loads neither
the models (torch) nor the report stack.
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib import metadata
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cueshift import stats
    from cueshift.api import Study, analyze, audit, infer, open_study, report
    from cueshift.errors import CueshiftError

try:
    __version__: str = metadata.version("cueshift")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0.0.0+unknown"

#: Public name → the module it comes from (imported on first access).
_LAZY: dict[str, str] = {
    "open_study": "cueshift.api",
    "Study": "cueshift.api",
    "analyze": "cueshift.api",
    "audit": "cueshift.api",
    "report": "cueshift.api",
    "CueshiftError": "cueshift.errors",
}

__all__ = ["CueshiftError", "Study", "analyze", "audit", "infer", "open_study", "report", "stats"]


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


class _Infer:
    """``cs.infer``: calls :func:`cueshift.api.infer` (see its help); any other attribute is the
    subpackage ``cueshift.infer``'s, so ``import cueshift.infer.backends as backends`` still works."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__wrapped__(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        if name == "__wrapped__":  # the function itself: its signature and docstring
            return importlib.import_module("cueshift.api").infer
        return getattr(importlib.import_module("cueshift.infer"), name)

    def __repr__(self) -> str:
        return "<function cueshift.infer (cueshift.api.infer)>"


class _Package(types.ModuleType):
    """``cueshift`` itself: ``cs.infer`` stays the function once the subpackage ``cueshift.infer``
    is imported (the import system binds a loaded subpackage as an attribute of its parent)."""

    @property
    def infer(self) -> Any:
        return _INFER

    @infer.setter
    def infer(self, package: Any) -> None:
        """The import system binding the subpackage: it stays reachable through ``sys.modules``."""


_INFER = _Infer()
sys.modules[__name__].__class__ = _Package
