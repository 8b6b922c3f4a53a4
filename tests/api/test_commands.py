"""``cs.infer`` and ``cs.analyze`` against the CLI on the same tiny study, and reading or analysing
a database that a running ``infer`` holds (its snapshot)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import types
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import cueshift as cs
from cueshift.api import write_demo_study
from tests.api.conftest import Demo, cli, copy_of

#: Columns of result_manifest that record when and how long, not what.
TIMING = ("seconds", "created_at")
#: Columns of an answer that record the run, not the answer.
RUN_COLUMNS = ("latency_ms", "created_at", "run_id")


def tables(database: Path) -> dict[str, pl.DataFrame]:
    """Every result table of ``database``, rows sorted, read with plain DuckDB."""
    with duckdb.connect(str(database), read_only=True) as con:
        names = [r[0] for r in con.sql("FROM duckdb_tables() SELECT table_name").fetchall()]
        found = {n: con.sql(f'SELECT * FROM "{n}"').pl() for n in names if n.startswith("result_")}
    found["result_manifest"] = found["result_manifest"].drop(TIMING)
    return {name: frame.sort(frame.columns) for name, frame in found.items()}


def test_analyze_writes_the_tables_the_cli_writes(api_db: Path, cli_db: Path) -> None:
    api, command = tables(api_db), tables(cli_db)
    assert sorted(api) == sorted(command) and len(api) > 20
    for name, frame in command.items():
        try:
            assert_frame_equal(api[name], frame, check_exact=False, rel_tol=1e-9)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_analyze_returns_the_analysed_study(demo: Demo) -> None:
    database = copy_of(demo.raw, "returned")
    study = cs.analyze(demo.study_file, db=database, resamples=100, models=["sim"])
    assert study.path == database and study.name == "demo"
    with duckdb.connect(str(database), read_only=True) as con:
        manifest = con.sql("SELECT name, models, n_resamples FROM result_manifest").pl()
    assert study.result_names() == manifest["name"].to_list()
    assert set(manifest["models"]) == {"sim"} and set(manifest["n_resamples"]) == {100}


def test_infer_stores_the_answers_the_cli_stores(demo: Demo, tmp_path: Path) -> None:
    via_cli = tmp_path / "cli.duckdb"
    done = cli("infer", "--study", str(demo.study_file), "--db", str(via_cli), "--no-progress")
    assert done.returncode == 0, done.stderr
    sql = "SELECT * EXCLUDE (latency_ms, created_at, run_id) FROM judgment"
    with duckdb.connect(str(demo.raw), read_only=True) as api, duckdb.connect(str(via_cli)) as command:
        got, want = api.sql(sql).pl(), command.sql(sql).pl()
    assert got.height == want.height > 0
    assert_frame_equal(got.sort(got.columns), want.sort(want.columns))


def test_infer_resumes_and_limits(tmp_path: Path) -> None:
    study_file = write_demo_study(tmp_path, name="resume")
    first = cs.infer(study_file, limit=250, progress=False)
    again = cs.infer(study_file, progress=False)
    assert (first.n_written, again.n_stored_before) == (250, 250)
    assert again.n_written == again.n_planned > 0  # planned: what was not stored yet
    with duckdb.connect(str(again.database), read_only=True) as con:
        stored = con.sql("SELECT count(*) FROM judgment").fetchall()[0][0]
    assert stored == 250 + again.n_written


def test_while_infer_holds_the_database_reads_use_its_snapshot_and_analyze_a_copy(
    demo: Demo, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    database = tmp_path / "held.duckdb"
    shutil.copyfile(demo.raw, database)
    shutil.copyfile(demo.raw, tmp_path / "held.duckdb.snapshot")  # what a running infer publishes
    hold = (
        "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
        "print('held', flush=True); time.sleep(120)"
    )
    holder = subprocess.Popen([sys.executable, "-c", hold, str(database)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        study = cs.open_study(database)
        assert study.judgments().height > 0
        assert "reading its snapshot of" in capfd.readouterr().err
        analysed = cs.analyze(demo.study_file, db=database, resamples=100)
        assert analysed.path == tmp_path / "held.partial.duckdb" and "sbs" in analysed.result_names()
        assert "analyzing a copy" in capfd.readouterr().err
        assert study.result_names() == []  # the study database itself gets results after the run
    finally:
        holder.kill()
        holder.wait()


def test_import_cueshift_stays_light() -> None:
    probe = (
        "import sys, cueshift as cs; "
        "assert cs.__version__; "
        "print(sorted(cs.__all__)); "
        "print(sorted(m for m in ('torch', 'great_tables', 'nbformat', 'cueshift.api') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    exported, heavy = done.stdout.splitlines()
    assert exported == str(
        ["CueshiftError", "Study", "analyze", "audit", "build", "check_invariance", "describe", "export"]
        + ["import_judgments", "import_omi", "infer", "merge", "multiverse"]
        + ["open_study", "plan_study", "prereg", "report", "show_study", "stats", "status", "upgrade", "view"]
    )
    assert heavy == "[]"


def test_the_curated_names_are_the_api_and_infer_is_the_function() -> None:
    import cueshift.api
    import cueshift.inference.backends  # the layer is its own name: nothing shadows cs.infer
    import cueshift.stats

    assert cs.open_study is cueshift.api.open_study and cs.Study is cueshift.api.Study
    assert cs.analyze is cueshift.api.analyze and cs.report is cueshift.api.report
    assert cs.audit is cueshift.api.audit and cs.infer is cueshift.api.infer
    assert cs.export is cueshift.api.export and cs.describe is cueshift.api.describe
    assert cs.stats is cueshift.stats and cs.CueshiftError is cueshift.errors.CueshiftError
    assert type(cs) is types.ModuleType  # no module-class swap
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        cs.nope  # noqa: B018
