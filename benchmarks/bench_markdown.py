"""The one helper the benchmark scripts share: their section of ``BENCHMARKS.md`` rewritten in place."""

from __future__ import annotations

import re
from pathlib import Path


def replace_section(path: Path, section: str, start: str, end: str) -> None:
    """Put ``section`` between the ``start`` / ``end`` markers of ``path``, keeping the rest.

    ``section`` begins with ``start`` and ends with ``end`` (and a newline); when the file lacks
    the markers it is appended, and a missing file is created with a ``# Benchmarks`` title.
    """
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n\n"
    if start in text and end in text:
        text = re.sub(
            re.escape(start) + r".*?" + re.escape(end) + r"\n?", lambda _: section, text, flags=re.S
        )
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text, encoding="utf-8")
