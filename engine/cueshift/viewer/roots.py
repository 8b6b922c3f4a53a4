"""Where the registered images lie: the image-set root, and the only way a file is resolved.

``image.path`` is stored relative to the image-set root, which the study database does not
store; the study configuration of each run (``run.config``) says where it was: a demo
image set under ``<cache_dir>/<size>``, a release under ``root``, a manifest's folder, or a
design's synthetic image folder (``<section>.synthetic.cache_dir``; the sections a design declares
in ``Design.viewer.image_sections``). Relative folders are
tried against the working directory and the database's folder (and its parent, for the usual
``runs/<name>.duckdb``). The candidate holding most of a sample of the registered files wins;
``--images DIR`` names the root outright.

A file is served only through :func:`resolve_image`: a registered path, relative, without
``..``, whose resolved target (symlinks followed) lies inside the root.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from cueshift.designs import designs
from cueshift.images.demo import size_label


def design_sections() -> tuple[str, ...]:
    """Sections of a study configuration that may carry their own image folders: those every
    registered design declares (``Design.viewer.image_sections``), in registry order."""
    sections = (s for design in designs().values() for s in design.viewer.image_sections)
    return tuple(dict.fromkeys(sections))


def _folder_of(value: object) -> Path | None:
    """The folder a configured path names: a manifest's folder, or the folder itself."""
    if not isinstance(value, str) or not value:
        return None
    path = Path(value)
    return path.parent if path.suffix.lower() in {".csv", ".parquet", ".json", ".tsv"} else path


def configured_folders(config: Mapping[str, Any]) -> list[Path]:
    """Every image folder one run's study configuration names (relative or absolute)."""
    found: list[Path] = []
    section = config.get("image_set") or config.get("benchmark") or {}  # "benchmark": runs before the rename
    if section.get("kind") == "demo" and section.get("cache_dir"):
        found.append(Path(section["cache_dir"]) / size_label(section.get("size", "small")))
    for value in (section.get("root"), section.get("manifest")):
        if (folder := _folder_of(value)) is not None:
            found.append(folder)
    for section in design_sections():
        part = config.get(section)
        if not isinstance(part, Mapping):
            continue
        synthetic = part.get("synthetic")
        if isinstance(synthetic, Mapping) and (folder := _folder_of(synthetic.get("cache_dir"))):
            found.append(folder)
        for key in ("stimuli", "manifest", "root"):
            if (folder := _folder_of(part.get(key))) is not None:
                found.append(folder)
    return found


def candidate_roots(configs: Iterable[Mapping[str, Any]], database: Path) -> list[Path]:
    """Configured folders resolved against the working directory and the database's folders."""
    bases = [Path.cwd(), database.resolve().parent, database.resolve().parent.parent]
    seen: dict[Path, None] = {}
    for config in configs:
        for folder in configured_folders(config):
            for base in [Path("/")] if folder.is_absolute() else bases:
                candidate = (base / folder).resolve()
                if candidate.is_dir():
                    seen.setdefault(candidate, None)
    return list(seen)


def clean_relative(path: str) -> PurePosixPath | None:
    """``path`` as a relative POSIX path without ``..``; ``None`` when it is not one."""
    pure = PurePosixPath(path.replace("\\", "/"))
    if not path or pure.is_absolute() or ".." in pure.parts or ":" in pure.parts[0]:
        return None
    return pure


def resolve_image(root: Path | None, relative: str) -> Path | None:
    """The existing file ``root/relative``, only when it resolves inside ``root``; else ``None``."""
    pure = clean_relative(relative)
    if root is None or pure is None:
        return None
    base = root.resolve()
    target = (base / pure).resolve()
    if not target.is_relative_to(base) or not target.is_file():
        return None
    return target


def choose_root(candidates: Sequence[Path], sample: Sequence[str]) -> Path | None:
    """The candidate under which most of ``sample`` (registered paths) exist; ``None`` if none."""
    best, best_hits = None, 0
    for root in candidates:
        hits = sum(resolve_image(root, rel) is not None for rel in sample)
        if hits > best_hits:
            best, best_hits = root, hits
    return best
