"""The optional features and the extras that install them (``pip install 'cueshift[EXTRA]'``).

``import cueshift`` and the base commands (infer, analyze, sql, ...) need the base dependencies
only; each optional feature imports its dependencies when used, inside :func:`importing`, which
turns a missing one into :class:`~cueshift.errors.MissingExtra` (the command line: one line, exit 2)::

    with importing("report", "cueshift report"):
        from great_tables import GT

:func:`require` checks a whole extra up front, before a command does any work.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager

from cueshift.errors import MissingExtra

#: The top-level modules of each extra of pyproject.toml, as imported.
MODULES: dict[str, tuple[str, ...]] = {
    "models": ("torch", "transformers"),
    "report": (
        "great_tables",
        "matplotlib",
        "nbformat",
        "nbclient",
        "ipykernel",
        "typst",
        "pypandoc",
        "yaml",
    ),
    "view": ("starlette", "uvicorn", "jinja2", "great_tables"),
    "croissant": ("mlcroissant",),
    "ray": ("ray",),
    "build": ("diffusers", "torch", "transformers"),
    "faces": ("dlib", "face_recognition_models", "facenet_pytorch", "torch"),
}


def require(extra: str, feature: str) -> None:
    """Raise :class:`MissingExtra` unless every module of ``extra`` is installed (nothing is imported).

    ``feature`` names what needs it, e.g. ``"cueshift report"``.
    """
    for module in MODULES[extra]:
        if importlib.util.find_spec(module) is None:
            raise MissingExtra(feature, extra, module)


@contextmanager
def importing(extra: str, feature: str) -> Iterator[None]:
    """Imports inside raise :class:`MissingExtra` where a module of ``extra`` is not installed.

    A missing module of no extra (a bug, a broken install) keeps its ``ModuleNotFoundError``.
    """
    try:
        yield
    except ModuleNotFoundError as exc:
        top = (exc.name or "").partition(".")[0]
        if top not in MODULES[extra]:
            raise
        raise MissingExtra(feature, extra, top) from None
