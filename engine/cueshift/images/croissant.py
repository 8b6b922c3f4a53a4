"""Croissant metadata (MLCommons' JSON-LD description of a data set) of an image release.

When a release ships a ``croissant.json``, :func:`read_croissant` reads and validates it with
``mlcroissant`` (the ``croissant`` extra: ``pip install -e '.[croissant]'``) and keeps what a
study should record about its images: the data set's name, version, licence, citation and
URL, and the file sets and record sets it declares. Nothing is downloaded: only the metadata
file is read, never the records.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cueshift.errors import ImageSetError
from cueshift.extras import importing

FILE_NAME = "croissant.json"


@dataclass(frozen=True)
class CroissantInfo:
    """What a ``croissant.json`` says about the data set (empty strings where it says nothing)."""

    file: Path
    name: str
    version: str
    license: str
    cite_as: str
    url: str
    file_sets: tuple[str, ...]
    record_sets: tuple[str, ...]

    def __str__(self) -> str:
        version = f" {self.version}" if self.version else ""
        licence = f", licence {self.license}" if self.license else ""
        return f"{self.name}{version}{licence} (Croissant: {self.file})"


def find_croissant(root: Path, faces_root: Path) -> Path | None:
    """The first ``croissant.json`` in ``root``, the folder of face folders or its two parents."""
    for folder in (root, faces_root, faces_root.parent, faces_root.parent.parent):
        candidate = folder / FILE_NAME
        if candidate.is_file():
            return candidate
    return None


@contextmanager
def _quiet_absl() -> Iterator[None]:
    """mlcroissant reports recommendations through absl's logger (and rdflib warns): keep them quiet."""
    logger = logging.getLogger("absl")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # rdflib's, inside mlcroissant
            yield
    finally:
        logger.setLevel(level)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return "; ".join(_text(v) for v in value)
    return str(value)


def read_croissant(path: Path) -> CroissantInfo:
    """Read and validate a Croissant metadata file with ``mlcroissant``.

    Raises
    ------
    MissingExtra
        ``mlcroissant`` (the 'croissant' extra) is not installed.
    ImageSetError
        The file is not valid Croissant (the first error ``mlcroissant`` reports, on one line).
    """
    with importing("croissant", f"{path}: reading Croissant metadata"):
        import mlcroissant as mlc
    try:
        with _quiet_absl():
            metadata = mlc.Dataset(jsonld=str(path)).metadata
    except mlc.ValidationError as exc:
        lines = [line.strip(" -") for line in str(exc).splitlines() if line.strip(" -")]
        detail = lines[1] if len(lines) > 1 else (lines[0] if lines else "invalid")
        raise ImageSetError(f"{path}: not valid Croissant metadata: {detail}") from None
    except Exception as exc:  # malformed JSON and the like surface as many exception types
        raise ImageSetError(f"{path}: unreadable Croissant metadata ({type(exc).__name__}: {exc})") from None
    return CroissantInfo(
        file=path,
        name=_text(metadata.name),
        version=_text(metadata.version),
        license=_text(metadata.license),
        cite_as=_text(metadata.cite_as),
        url=_text(metadata.url),
        file_sets=tuple(_text(d.name) for d in metadata.distribution),
        record_sets=tuple(_text(r.name) for r in metadata.record_sets),
    )
