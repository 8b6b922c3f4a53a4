"""Every declared result says what it holds in one line, read from its declaration
(``cs.describe``, ``result_manifest.description``, the viewer)."""

from __future__ import annotations

import pytest

import cueshift as cs
from cueshift._method_words import StoredMethods, fill_methods
from cueshift.designs.descriptions import result_description, result_descriptions
from cueshift.designs.registry import analyses
from cueshift.schemas.results import RESULT_TABLES_BY_DESIGN

#: The built-in designs (a test design registered meanwhile is not checked here).
BUILT_IN = ("stylisticbias", "paired", "pairwise", "probe")


def test_every_declared_result_has_a_one_line_description() -> None:
    declared = [a for a in analyses().values() if a.suite in BUILT_IN]
    assert len(declared) >= 60
    for item in declared:
        for test in ("rank", "permutation"):  # as analyze writes it, with the words of what ran
            text = fill_methods(item.description, StoredMethods(test=(test,)))
            assert text.strip() == text and len(text) >= 10, item.name
            assert "\n" not in text and len(text) <= 140, item.name


def test_every_stored_table_of_a_design_is_described() -> None:
    described = set(result_descriptions()["name"])
    for design in BUILT_IN:
        assert set(RESULT_TABLES_BY_DESIGN[design]) <= described, design


def test_describe_reads_the_declaration() -> None:
    assert cs.describe("table3") == analyses()["table3"].description
    assert cs.describe("result_table11_crossed") == result_description("table11_crossed")
    assert "Table 11" in cs.describe("table11_crossed")
    with pytest.raises(cs.CueshiftError, match=r"^no result 'table99'; declared results: sbs, "):
        cs.describe("table99")
