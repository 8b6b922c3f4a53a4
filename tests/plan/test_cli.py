"""``cueshift plan`` end to end: a pilot in, the tidy tables (each passing its schema), the curve and
the report section out; bad input is one line, exit code 2, and nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import polars as pl
import pytest
from typer.testing import CliRunner

from cueshift import store
from cueshift.cli import app
from cueshift.schemas.plan import PLAN_SCHEMAS, validate_plan
from cueshift.study.config import Study

FAST = ["--simulations", "20", "--curve-simulations", "10"]


def test_plan_from_a_pilot_writes_every_table_the_curve_and_the_report_section(
    pilot_db: tuple[Study, Path], tmp_path: Path
) -> None:
    study, database = pilot_db
    out = tmp_path / "plan"
    study_file = database.with_suffix(".toml")
    result = CliRunner().invoke(
        app,
        [
            "plan",
            "--study",
            str(study_file),
            "--pilot",
            str(database),
            "--faces",
            "60",
            "--out",
            str(out),
            *FAST,
        ],
    )
    assert result.exit_code == 0, result.output
    assert "pilot" in result.output and "Power at the planned size" in result.output
    for name in PLAN_SCHEMAS:
        frame = pl.read_parquet(out / f"{name}.parquet")
        assert frame.height > 0
        validate_plan(name, frame)
        assert pl.read_csv(out / f"{name}.csv").height == frame.height
    power = pl.read_parquet(out / "plan_power.parquet")
    assert set(power["test"]) == {"sbs_attribute", "table11_cell", "vs_scenario"}
    assert (power.filter(pl.col("protocol") == "planned")["units_planned"] == 60).all()
    assert {"seeds=1", "score mode", "orderings=2"} <= set(power["protocol"])
    cost = pl.read_parquet(out / "plan_cost.parquet")
    assert cost["throughput_source"][0] == "pilot latencies" and cost["gpu_hours"][0] > 0
    assert (out / "power_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    section = (out / "plan.md").read_text()
    assert section.startswith("## Plan: stylisticbias") and "](power_curve.png)" in section
    assert "Cost per model" in section and "Variance components" in section


def test_plan_without_a_pilot_says_where_its_numbers_come_from(tmp_path: Path) -> None:
    out = tmp_path / "plan"
    result = CliRunner().invoke(
        app, ["plan", "--out", str(out), "--simulations", "0", "--curve-simulations", "0"]
    )
    assert result.exit_code == 0, result.output
    assert "no pilot" in result.output and "simulated judge" in result.output
    assert not (out / "power_curve.png").exists()
    assert pl.read_parquet(out / "plan_power.parquet")["power_sim"].is_null().all()


def _other_design_pilot(path: Path) -> Path:
    con = store.open_study(path)
    try:
        con.execute(
            "INSERT INTO run VALUES ('r', 'pw', '1/1', ?, '{}', TIMESTAMP '2026-01-01', NULL, 0, NULL, NULL)",
            [json.dumps({"design": "pairwise"})],
        )
    finally:
        con.close()
    return path


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--pilot", "PAIRWISE"], "the pilot is a pairwise study; this study's design is 'stylisticbias'"),
        (["--pilot", "EMPTY"], "the pilot holds no answers"),
        (["--pilot", "MISSING"], "no such pilot database"),
        (["--target-effect", "1.5"], "--target-effect 1.5: must lie strictly between 0 and 1"),
        (["--power", "0.01"], "--power 0.01: the target power must lie between the FDR level and 1"),
        (["--faces", "1"], "--faces 1: plan for at least 2"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    empty = tmp_path / "empty.duckdb"
    store.open_study(empty).close()
    paths = {
        "PAIRWISE": str(_other_design_pilot(tmp_path / "pw.duckdb")),
        "EMPTY": str(empty),
        "MISSING": str(tmp_path / "nowhere.duckdb"),
    }
    out = tmp_path / "plan"
    result = CliRunner().invoke(app, ["plan", "--out", str(out), *[paths.get(a, a) for a in args], *FAST])
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and message in " ".join(result.output.split())
    assert not out.exists()
    with duckdb.connect(str(empty), read_only=True) as con:  # the pilot was only read
        assert con.execute("SELECT count(*) FROM judgment").fetchone() == (0,)
