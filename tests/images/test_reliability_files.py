"""`cueshift import omi --reliability FILE` takes the published IRR file as it is (columns
``attribute,human_irr``, percent) beside cueshift's own ``attribute,reliability``; a bad row of
either is one line naming file, row and field, exit 2, nothing written."""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl
import pytest

from cueshift.designs import load_study
from cueshift.designs.probe.section import ProbeStudy
from cueshift.errors import CueshiftError
from cueshift.images.reliability_files import read_published_irr, read_published_reliability
from cueshift.imports.omi import import_omi
from cueshift.imports.omi_study import ModelSpec
from tests.hardening.failing import one_line, run
from tests.images.omi_layout import write_omi

SIM = "sim=simulated-designs:cueshift-simulated-v1"
#: The published file's shape: its header and percent values as they are (a BOM, CRLF lines).
PUBLISHED = "\ufeffattribute,human_irr\r\ntrustworthy,81.5\r\nhappy,95\r\nage,63.25\r\n"


@pytest.fixture
def omi(tmp_path: Path) -> Path:
    return write_omi(tmp_path / "omi")


def test_the_published_irr_file_is_read_as_it_is_and_stored_on_0_to_1(omi: Path, tmp_path: Path) -> None:
    published = tmp_path / "irr.csv"
    published.write_bytes(PUBLISHED.encode())
    result = import_omi(omi, tmp_path / "out", reliability=published, models=[ModelSpec.parse(SIM)])
    assert result.reliability_converted and result.reliability_file is not None
    stored = pl.read_csv(result.reliability_file)
    assert stored.columns == ["attribute", "reliability"]
    assert dict(zip(stored["attribute"], stored["reliability"], strict=True)) == pytest.approx(
        {"trustworthy": 0.815, "happy": 0.95, "age": 0.6325}
    )
    study = load_study(result.study_file)
    assert isinstance(study, ProbeStudy) and study.probe.reliability == result.reliability_file


def test_the_cli_takes_the_published_file_and_says_it_converted(omi: Path, tmp_path: Path) -> None:
    published = tmp_path / "irr.csv"
    published.write_text("attribute,human_irr\ntrustworthy,81.5\nhappy,95\n")
    out = tmp_path / "out"
    result = run(
        "import", "omi", str(omi), "--out", str(out), "--model", SIM, "--reliability", str(published)
    )
    assert result.exit_code == 0, result.output
    assert "0-100 scale; divided by 100" in result.output
    assert pl.read_csv(out / "reliability.csv")["reliability"].to_list() == pytest.approx([0.815, 0.95])


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            "attribute,human_irr\ntrustworthy,81.5\nhappy,lots\n",
            r"row 2: field 'human_irr': 'lots' is not a number",
        ),
        ("attribute,human_irr\ntrustworthy,181.5\n", r"row 1: field 'human_irr': 181.5 is outside 0 to 100"),
        ("attribute,human_irr\ntrustworthy,-3\n", r"row 1: field 'human_irr': -3 is outside 0 to 100"),
        ("attribute,human_irr\ntrustworthy,81\ntrustworthiness,70\n", r"row 2: field 'attribute': unknown"),
        ("attribute,human_irr\nhappy,81\nhappy,70\n", r"row 2: field 'attribute': 'happy' repeats row 1"),
        ("attribute,human_irr\n,81\n", r"row 1: field 'attribute': empty"),
        ("attribute,human_irr\nhappy,81,2\n", r"row 1: 3 fields, the header has 2"),
        ("attribute,human_irr\nhappy,0.81\nage,0.7\n", r"row 1: field 'human_irr': every value is at most 1"),
        ("attribute,human_irr,n\nhappy,81,3\n", r"field 'n': unknown column"),
        ("attribute,human_irr\n", r"no reliabilities"),
    ],
)
def test_a_bad_row_is_one_line_exit_2_and_nothing_written(
    omi: Path, tmp_path: Path, body: str, expected: str
) -> None:
    bad = tmp_path / "irr.csv"
    bad.write_text(body)
    out = tmp_path / "out"
    result = run("import", "omi", str(omi), "--out", str(out), "--model", SIM, "--reliability", str(bad))
    assert result.exit_code == 2
    line = one_line(result)
    assert line.startswith(f"error: {bad}: ") and re.search(expected, line), line
    assert not out.exists()


def test_the_existing_shape_still_reads_on_either_scale(tmp_path: Path) -> None:
    unit, percent = tmp_path / "unit.csv", tmp_path / "percent.csv"
    unit.write_text("attribute,reliability\ntrustworthy,0.8\nhappy,-0.1\n")
    percent.write_text("attribute,reliability\ntrustworthy,80\nhappy,0\n")
    frame, converted = read_published_reliability(unit)
    assert not converted and frame["reliability"].to_list() == [0.8, -0.1]
    frame, converted = read_published_reliability(percent)
    assert converted and frame["reliability"].to_list() == [0.8, 0.0]
    with pytest.raises(CueshiftError, match=r"field 'human_irr': required column is missing"):
        read_published_irr(unit)
