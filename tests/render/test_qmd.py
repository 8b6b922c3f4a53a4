"""Reading a ``.qmd`` document without Quarto: chunks, options, parameter injection, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from cueshift.errors import CueshiftError
from cueshift.render._qmd import parse_qmd, to_notebook


def test_parse_qmd_chunks_options_and_parameter_injection(tmp_path: Path) -> None:
    doc = tmp_path / "d.qmd"
    doc.write_text(
        "---\ntitle: T\nformat:\n  typst:\n    toc: true\n---\n\n# Head\n\nText.\n\n"
        "```{python}\n#| tags: [parameters]\ndb = 'x'\n```\n\n"
        '```{python}\n#| label: fig-a\n#| fig-cap: "A cap"\nprint(db)\n```\n\nEnd.\n',
        encoding="utf-8",
    )
    parsed = parse_qmd(doc)
    assert parsed.header["title"] == "T"
    kinds = [c.kind for c in parsed.chunks]
    assert kinds == ["markdown", "code", "code", "markdown"]
    assert parsed.chunks[2].options == {"label": "fig-a", "fig-cap": "A cap"}
    assert parsed.chunks[2].source == "print(db)"
    nb = to_notebook(parsed, {"db": "/data/s.duckdb", "models": "a,b"})
    sources = [c.source for c in nb.cells]
    injected = sources.index("# injected parameters\ndb = '/data/s.duckdb'\nmodels = 'a,b'")
    assert sources[injected - 1] == "db = 'x'"  # right after the parameters cell


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("---\ntitle: [unclosed\n---\n", "YAML header"),
        ("```{python}\nx = 1\n", "not closed"),
        ("The value is `{python} x`.\n", "inline"),
    ],
)
def test_parse_qmd_errors(tmp_path: Path, text: str, message: str) -> None:
    doc = tmp_path / "bad.qmd"
    doc.write_text(text, encoding="utf-8")
    with pytest.raises(CueshiftError, match=message):
        parse_qmd(doc)
