"""Published reliabilities on a 0-100 scale are never read as 0-1 (docs/decisions.md#d6).

Through the CLI: a probe study whose ``[probe] reliability`` file is on 0-100 is refused by
``cueshift analyze``, and a file mixing the scales by ``cueshift import omi``, each with exit
code 2, one line naming the file, row and field, and nothing written.
"""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from cueshift.errors import CueshiftError
from cueshift.images.human_ratings import read_reliability, reliability_on_percent_scale
from cueshift.imports.omi import import_omi
from cueshift.imports.omi_study import ModelSpec
from tests.hardening.failing import one_line, run
from tests.images.omi_layout import write_omi

SIM = "sim=simulated-designs:cueshift-simulated-v1"


def _csv(path: Path, rows: dict[str, str]) -> Path:
    path.write_text("attribute,reliability\n" + "".join(f"{a},{v}\n" for a, v in rows.items()))
    return path


def test_scale_is_decided_per_file_and_a_mixed_file_is_refused(tmp_path: Path) -> None:
    assert reliability_on_percent_scale(_csv(tmp_path / "p.csv", {"trustworthy": "81.5", "happy": "0"}))
    assert not reliability_on_percent_scale(_csv(tmp_path / "u.csv", {"trustworthy": "0.8", "happy": "-0.1"}))
    mixed = _csv(tmp_path / "m.csv", {"trustworthy": "81.5", "happy": "0.9"})
    with pytest.raises(
        CueshiftError, match=r"m\.csv: row 2: field 'reliability': 0\.9 reads as 0-1 but row 1"
    ):
        reliability_on_percent_scale(mixed)
    with pytest.raises(CueshiftError, match=r"row 1: field 'reliability': 81\.5 is outside -1 to 1"):
        read_reliability(_csv(tmp_path / "p2.csv", {"trustworthy": "81.5"}))


def test_cli_import_refuses_mixed_scales_and_writes_nothing(tmp_path: Path) -> None:
    omi = write_omi(tmp_path / "omi")
    mixed = _csv(tmp_path / "mixed.csv", {"trustworthy": "81.5", "happy": "0.9"})
    out = tmp_path / "out"
    line = one_line(
        run("import", "omi", str(omi), "--out", str(out), "--model", SIM, "--reliability", str(mixed))
    )
    assert re.search(r"mixed\.csv: row 2: field 'reliability': 0\.9 reads as 0-1", line), line
    assert not out.exists()


def test_cli_analyze_refuses_a_percent_reliability_and_writes_no_result(tmp_path: Path) -> None:
    omi = write_omi(tmp_path / "omi")
    unit = _csv(tmp_path / "rel.csv", {"trustworthy": "0.8", "happy": "0.95"})
    study = import_omi(omi, tmp_path / "out", name="rel", models=[ModelSpec.parse(SIM)], reliability=unit)
    assert run("infer", "--study", str(study.study_file), "--no-progress").exit_code == 0
    assert study.reliability_file is not None
    _csv(study.reliability_file, {"trustworthy": "80", "happy": "95"})  # the study's copy, now on 0-100
    line = one_line(run("analyze", "--study", str(study.study_file), "--no-progress"))
    assert "rel" in line and "row 1: field 'reliability': 80 is outside -1 to 1" in line
    assert "0-100 scale" in line
    with duckdb.connect(str(tmp_path / "out" / "rel.duckdb"), read_only=True) as con:
        tables = {r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
    assert not {t for t in tables if t.startswith("result_")}
