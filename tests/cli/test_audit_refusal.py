"""``cueshift audit`` of a design without base/variation edits (pairwise, probe) is refused in one
line, exit 2, nothing written, as ``multiverse``, ``check-invariance`` and ``build`` refuse a design
that cannot take them (D73; it printed "nothing to audit" and exited 0, creating the database)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

import cueshift as cs
from cueshift.cli import app

STUDIES = Path(__file__).resolve().parents[2] / "studies"


@pytest.mark.parametrize(("name", "design"), [("pairwise-002", "pairwise"), ("probe-004", "probe")])
def test_audit_of_a_design_without_edits_is_refused_in_one_line(
    tmp_path: Path, name: str, design: str
) -> None:
    study, database = STUDIES / f"{name}.toml", tmp_path / "study.duckdb"
    line = (
        f"cueshift audit: study {name!r} has design {design!r}, which makes no base/variation edits; "
        "the edit audit checks those of a 'stylisticbias' or 'paired' study"
    )
    result = CliRunner().invoke(app, ["audit", "--study", str(study), "--db", str(database), "--no-progress"])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [f"error: {line}"], result.stderr
    with pytest.raises(cs.CueshiftError) as info:
        cs.audit(study, db=database)
    assert str(info.value) == line
    assert list(tmp_path.iterdir()) == []  # no database created
