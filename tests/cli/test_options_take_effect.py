"""Every option a command is given takes effect or is refused in one line (exit 2) naming it and
why, never silently ignored (docs/decisions.md D69).

Each case failed before its fix: ``plan --curve-simulations`` drew nothing for the designs without
a power curve and said nothing, ``plan --alpha`` left a paired study (``[paired] correction =
"none"``) at ``[paired] alpha``, ``report --tables`` printed the tables whatever ``--out``,
``--format``, ``--engine`` or ``--document`` said, and ``sql`` printed every row with ``--csv
--rows N``, wrote the whole result with ``--out`` beside ``--rows`` or ``--csv``, and took
``--force`` without ``--out``; the paired and probe plans' cost read no ``--pilot`` latencies; a
study file's ``[variations]`` (paired, probe), ``[prompt]`` and ``[scenarios]`` (pairwise) were
parsed and never read.
"""

from __future__ import annotations

import io
import tomllib
from pathlib import Path

import duckdb
import polars as pl
import pytest
from rich.console import Console
from typer.testing import CliRunner

from cueshift import store
from cueshift.cli import app
from cueshift.designs import analyze_design, parse_study
from cueshift.designs.registry import scenario_sets
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.extras import MODULES
from cueshift.plan import PlanRequest, plan_study

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ROOT / "studies"
PLAN = ("plan", "--simulations", "0", "--no-progress")


def _refused(args: list[str], *words: str) -> str:
    """Run ``cueshift args``: exit 2 and one line naming ``words``; that line."""
    result = CliRunner().invoke(app, args)
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("study", ["paired-001", "pairwise-002", "probe-004"])
def test_plan_refuses_curve_simulations_where_the_design_draws_no_curve(study: str, tmp_path: Path) -> None:
    out = tmp_path / "plan"
    args = [*PLAN, "--study", str(STUDIES / f"{study}.toml"), "--out", str(out), "--curve-simulations", "5"]
    design = study.split("-")[0]
    _refused(args, "--curve-simulations", f"design {design!r}")
    assert not out.exists()


def test_plan_curve_simulations_zero_is_honoured_by_every_design(tmp_path: Path) -> None:
    """0 asks for no curve, which a design without one honours (the scripts that pass it still run)."""
    out = tmp_path / "plan"
    args = [*PLAN, "--study", str(STUDIES / "paired-001.toml"), "--out", str(out), "--curve-simulations", "0"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert not (out / "plan_curve.csv").exists()


@pytest.mark.parametrize(
    ("given", "level"), [([], 0.05), (["--alpha", "0.01"], 0.01), (["--alpha", "0.2"], 0.2)]
)
def test_plan_alpha_is_the_level_of_the_paired_single_tests(
    given: list[str], level: float, tmp_path: Path
) -> None:
    """``[paired] correction = "none"``: each test at α; --alpha gives it, its default is ``[paired]
    alpha`` (0.05 in the study file)."""
    out = tmp_path / "plan"
    args = [*PLAN, "--study", str(STUDIES / "paired-001.toml"), "--out", str(out), *given]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    power = pl.read_parquet(out / "plan_power.parquet")
    assert power["alpha_level"].unique().to_list() == [level]


@pytest.mark.parametrize(
    ("option", "value"),
    [("--out", "elsewhere"), ("--format", "html"), ("--engine", "jupyter"), ("--document", "my.qmd")],
)
def test_report_tables_refuses_the_options_of_rendering(option: str, value: str, tmp_path: Path) -> None:
    for module in MODULES["report"]:  # require("report") comes first
        pytest.importorskip(module)
    args = ["report", "--tables", option, str(tmp_path / value), "--db", str(tmp_path / "none.duckdb")]
    _refused(args, option, "--tables")


@pytest.fixture(scope="module")
def query_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sql") / "study.duckdb"
    store.open_study(path).close()
    return path


QUERY = "SELECT range AS n FROM range(10)"


def test_sql_csv_prints_the_rows_asked_for(query_db: Path) -> None:
    result = CliRunner().invoke(app, ["sql", "--db", str(query_db), "--csv", "--rows", "3", QUERY])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["n", "0", "1", "2"]
    every = CliRunner().invoke(app, ["sql", "--db", str(query_db), "--csv", QUERY])
    assert every.output.splitlines() == ["n", *map(str, range(10))]


@pytest.mark.parametrize(
    ("given", "named"),
    [
        (["--out", "x.csv", "--rows", "3"], "--rows"),
        (["--out", "x.csv", "--csv"], "--csv"),
        (["--force"], "--force"),
        (["--rows", "-1"], "--rows"),
    ],
)
def test_sql_refuses_options_that_would_be_ignored(
    given: list[str], named: str, query_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _refused(["sql", "--db", str(query_db), *given, QUERY], named)
    assert not (tmp_path / "x.csv").exists()


def _with_section(study: str, section: str, folder: Path) -> Path:
    """``studies/<study>.toml`` with ``section`` (TOML) added before its first ``[[models]]``."""
    text = (STUDIES / f"{study}.toml").read_text(encoding="utf-8")
    head, models, rest = text.partition("[[models]]")
    path = folder / f"{study}.toml"
    path.write_text(f"{head}\n{section}\n{models}{rest}", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("study", "section", "named"),
    [
        ("paired-001", "[variations]\nrules = []\n", "[variations]"),
        ("probe-004", "[variations]\nwhitelist = {}\n", "[variations]"),
        ("pairwise-002", "[prompt]\norderings = [1]\n", "[prompt]"),
        ("pairwise-002", '[scenarios]\nset = "pairwise-002"\n', "[scenarios]"),
        ("pairwise-002", "[audit]\nbounds = {}\n", "[audit]"),
        ("probe-004", "[audit]\nbounds = {}\n", "[audit]"),
    ],
)
def test_a_study_file_section_the_design_never_reads_is_refused(
    study: str, section: str, named: str, tmp_path: Path
) -> None:
    """As ``[image_set] placebos = true`` outside stylisticbias: taken or refused, never ignored."""
    path = _with_section(study, section, tmp_path)
    line = _refused(["show-study", "--study", str(path)], named, f"{study.split('-')[0]!r} design", path.name)
    assert "leave it out" in line


def _small_pilot_study(name: str, folder: Path) -> tuple[dict[str, object], str]:
    """``studies/<name>.toml`` cut to a pilot of seconds (one seed; a few faces, scenarios,
    stimuli) as parsed data, and the table its answers go to."""
    data = tomllib.loads((STUDIES / f"{name}.toml").read_text(encoding="utf-8"))
    data["database"] = str(folder / "pilot.duckdb")
    data["seeds"] = [0]
    if name == "pairwise-002":
        synthetic = {"races": ["White"], "genders": ["female"], "per_group": {"western": 2, "local": 3}}
        data["pairwise"] = {**data["pairwise"], "synthetic": {**synthetic, "cache_dir": str(folder / "c")}}
        return data, "pairwise_trial"
    data["prompt"] = {"orderings": [1]}
    first = [s.scenario_id for s in scenario_sets()[data["scenarios"]["set"]][:2]]
    data["scenarios"] = {**data["scenarios"], "only": first}
    if name == "probe-004":
        data["image_set"] = {"kind": "demo", "size": 12, "cache_dir": str(folder / "demo")}
    else:
        data["paired"]["synthetic"] = {"cfd_per_cell": 1, "faces_per_cell": 1, "cache_dir": str(folder / "c")}
    return data, "judgment"


@pytest.mark.parametrize("name", ["paired-001", "pairwise-002", "probe-004"])
def test_plan_cost_reads_the_pilot_latencies(name: str, tmp_path: Path) -> None:
    """``--throughput``'s documented default, the pilot's latencies, for every design (the paired
    and probe cost tables read the measured-rate table instead, pairwise none)."""
    data, answers = _small_pilot_study(name, tmp_path)
    study = parse_study(data, name)
    run_study(study, RunOptions(progress=False))
    with duckdb.connect(str(study.database_path)) as con:
        con.execute(f"UPDATE {answers} SET latency_ms = 250")
    result = plan_study(PlanRequest(study, pilot=study.database_path, simulations=0, curve_simulations=0))
    cost = result.cost.filter(pl.col("model_id") != "(total)")
    assert cost["throughput_source"].unique().to_list() == ["pilot latencies"]
    assert cost["seconds_per_prompt"].to_list() == pytest.approx([0.25] * cost.height)


@pytest.fixture(scope="module")
def pairwise_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small analysed pairwise study: trials and ratings, no judgments."""
    folder = tmp_path_factory.mktemp("pairwise")
    data, _ = _small_pilot_study("pairwise-002", folder)
    study = parse_study(data, "pairwise-002")
    run_study(study, RunOptions(progress=False))
    con = store.open_study(study.database_path)
    try:
        analyze_design(con, study, Console(file=io.StringIO()))
    finally:
        con.close()
    return study.database_path


@pytest.mark.parametrize("export", ["counts", "eee"])
def test_export_refuses_the_judgment_exports_of_a_database_without_judgments(
    export: str, pairwise_db: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    _refused(
        ["export", "--db", str(pairwise_db), "--out", str(out), "--format", export], f"--format {export}"
    )
    assert not out.exists()


def test_export_by_default_writes_what_the_database_can_fill(pairwise_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["export", "--db", str(pairwise_db), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert not (out / "counts.parquet").exists() and not (out / "eee").exists()
    assert (out / "results" / "result_pairwise_cohort.parquet").is_file()
