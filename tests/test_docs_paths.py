"""Every file or folder README.md, BENCHMARKS.md and docs/*.md name exists (docs/architecture.md).

A path-looking string is checked when it starts with a folder of the repository or of the package
(``tests/stats/test_sbs.py``, ``stats/_vs.py``, ``sql/views/phi.sql``): it must exist under the
repository root, under ``engine/cueshift/`` or beside the document. A bare file name
(``phi.sql``, ``runner.py``) must name some file of the repository. A user's own files in
examples and files of other projects are listed in :data:`EXAMPLES`; a string followed by ``*``,
``<`` or ``{`` is a pattern, one followed by ``(`` a call (``study.sql(...)``).
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "engine" / "cueshift"
DOCUMENTS = [ROOT / "README.md", ROOT / "BENCHMARKS.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIPPED_FOLDERS = {".git", ".venv", "node_modules", "runs", "__pycache__", ".cueshift-cache"}

#: A user's own files in examples, outputs that exist only after a command ran, and files of other
#: projects (the StylisticBias release code).
EXAMPLES = {
    "studies/x.toml",
    "studies/qwen25vl.toml",
    "my-pairwise.toml",
    "release.toml",
    "images/1.jpg",
    "study.toml",
    "reports/_out",
    "reports/_out/study.html",
    "reports/_out/study.pdf",
    "judgement_pipeline.py",
    "plan.toml",
    "missing.toml",
}

PATH = re.compile(r"[A-Za-z0-9_.\-]+(?:/[A-Za-z0-9_.\-]+)+/?|[A-Za-z0-9_\-]+\.(?:py|sql|qmd|toml|md)\b")
FILE_NAME = re.compile(r"[A-Za-z0-9_\-]+\.(?:py|sql|qmd|toml|md)")


@cache
def repository_file_names() -> frozenset[str]:
    """The name of every file and folder of the repository (virtual environments and caches aside)."""
    names: set[str] = set()
    for _folder, subfolders, files in os.walk(ROOT, followlinks=False):
        subfolders[:] = [name for name in subfolders if name not in SKIPPED_FOLDERS]
        names.update(files)
        names.update(subfolders)
    return frozenset(names)


@cache
def checked_prefixes() -> frozenset[str]:
    """First components that make a string a path of this repository."""
    top = {path.name for path in ROOT.iterdir() if path.is_dir() and path.name not in SKIPPED_FOLDERS}
    package = {path.name for path in PACKAGE.iterdir() if path.is_dir()} - {"__pycache__"}
    return frozenset(top | package)


def missing_paths(document: Path) -> list[str]:
    """``line: path`` for every path ``document`` names that does not exist."""
    text = document.read_text(encoding="utf-8")
    missing = []
    for match in PATH.finditer(text):
        token = match.group(0).rstrip(".")
        following = text[match.end() : match.end() + 1]
        before = text[max(0, match.start() - 3) : match.start()]
        if (following and following in "*<{(") or token in EXAMPLES or "://" in before + token:
            continue
        if "/" in token:
            if token.split("/")[0] not in checked_prefixes():
                continue
            found = any((base / token).exists() for base in (ROOT, PACKAGE, document.parent))
        else:
            found = FILE_NAME.fullmatch(token) is None or token in repository_file_names()
        if not found:
            missing.append(f"{text.count(chr(10), 0, match.start()) + 1}: {token}")
    return missing


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_path_a_document_names_exists(document: Path) -> None:
    assert missing_paths(document) == []


def test_a_stale_path_is_found(tmp_path: Path) -> None:
    document = tmp_path / "stale.md"
    document.write_text("See `engine/stats/_registry.py`, `stats/_vs.py` and `no_such_module.py`.\n")
    assert missing_paths(document) == ["1: engine/stats/_registry.py", "1: no_such_module.py"]
