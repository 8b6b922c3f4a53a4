"""Stored identifiers in a PDF table wrap inside their column (break after an underscore) instead
of running into the next column, as ``result_demographic_tests_crossed`` did in Table S18."""

from __future__ import annotations

from pathlib import Path

import pytest

from cueshift.render import Cell, Styled, to_typst

NAME = "result_demographic_tests_crossed"


def test_a_long_identifier_wraps_inside_its_column(tmp_path: Path) -> None:
    typst = pytest.importorskip("typst")
    pypdf = pytest.importorskip("pypdf")
    table = Styled(
        key="provenance",
        title="Table S18. Provenance",
        labels=("Table", "What"),
        align=("left", "left"),
        rows=((Cell(NAME), Cell("Kruskal-Wallis per model")),),
    )
    source = tmp_path / "table.typ"  # a page as narrow as the name: it must break to fit
    source.write_text(
        "#set page(width: 5cm, height: auto, margin: 0.5cm)\n" + to_typst(table), encoding="utf-8"
    )
    pdf = tmp_path / "table.pdf"
    typst.compile(str(source), output=str(pdf))
    text = pypdf.PdfReader(str(pdf)).pages[0].extract_text().replace("\u200b", "")
    lines = [line.strip() for line in text.splitlines()]
    name_lines = [
        line
        for line in lines
        if line.startswith("result_") or line.startswith(("demographic", "tests", "crossed"))
    ]
    assert len(name_lines) > 1, lines  # the name spans lines ...
    assert "".join(line.split()[0] for line in name_lines) == NAME  # ... broken only after underscores
