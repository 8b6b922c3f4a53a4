"""Content-addressed image files: ``images/<sha[:2]>/<sha>.png`` under the image set's folder.

A file is written through a temporary name and :func:`os.replace`, before the ``generation`` row
that names it is committed: a killed build leaves no truncated file, and a file no row names
(the try in flight when it was killed) is made again, to the same name when the generator is
deterministic, and swept by :func:`sweep_orphans` otherwise.

>>> content_path(Path("set"), "ab" + "0" * 62).as_posix()
'set/images/ab/ab00000000000000000000000000000000000000000000000000000000000000.png'
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path


def content_path(root: Path, sha256: str) -> Path:
    """Where the image of hash ``sha256`` lies under ``root``."""
    return root / "images" / sha256[:2] / f"{sha256}.png"


def store_png(root: Path, png: bytes) -> tuple[str, Path]:
    """Write ``png`` under its hash (once: an existing file is kept); its hash and path."""
    sha256 = hashlib.sha256(png).hexdigest()
    path = content_path(root, sha256)
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        temporary.write_bytes(png)
        os.replace(temporary, path)
    return sha256, path


def sweep_orphans(root: Path, named: Iterable[str]) -> int:
    """Remove image files (and temporaries) whose hash no ``generation`` row names; how many."""
    keep = set(named)
    removed = 0
    for path in sorted((root / "images").glob("*/*")):
        if path.name.endswith(".tmp") or path.stem not in keep:
            path.unlink(missing_ok=True)
            removed += 1
    return removed


__all__ = ["content_path", "store_png", "sweep_orphans"]
