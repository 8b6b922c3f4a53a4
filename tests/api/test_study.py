"""``cs.open_study``: every read of :class:`cueshift.api.Study` against a direct DuckDB query of the
same table (an independent reference), and what a notebook shows of it."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

import cueshift as cs
from tests.api.conftest import Demo, copy_of


def direct(database: Path, sql: str) -> pl.DataFrame:
    """``sql`` on a plain read-only DuckDB connection (the reference)."""
    with duckdb.connect(str(database), read_only=True) as con:
        frame: pl.DataFrame = con.sql(sql).pl()
    return frame


def same_rows(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Equal as sets of rows (a query without ORDER BY has no set order)."""
    assert got.columns == want.columns
    assert_frame_equal(got.sort(got.columns), want.sort(want.columns))


def test_results_are_the_stored_tables(api_db: Path) -> None:
    study = cs.open_study(api_db)
    names = direct(api_db, "SELECT name FROM result_manifest")["name"].to_list()
    assert sorted(study.result_names()) == sorted(names) and "sbs" in names
    for name in ("sbs", "table2_vs", "face_anova"):
        same_rows(study.results(name), direct(api_db, f"SELECT * FROM result_{name}"))
    same_rows(study.results("result_sbs"), direct(api_db, "SELECT * FROM result_sbs"))


def test_manifest_delta_phi_and_judgments(api_db: Path) -> None:
    study = cs.open_study(api_db)
    same_rows(study.manifest(), direct(api_db, "SELECT * FROM result_manifest"))
    same_rows(study.delta(), direct(api_db, "SELECT * FROM delta"))
    same_rows(study.phi(), direct(api_db, "SELECT * FROM phi"))
    judgments = study.judgments()
    assert judgments.height == direct(api_db, "SELECT count(*) AS n FROM judgment")["n"].item() > 0
    same_rows(study.judgments("sim"), direct(api_db, "SELECT * FROM judgment WHERE model_id = 'sim'"))
    assert study.models() == ["sim"]


def test_sql_runs_a_query(api_db: Path) -> None:
    query = "SELECT scenario_id, count(*) AS n FROM judgment GROUP BY scenario_id"
    same_rows(cs.open_study(api_db).sql(query), direct(api_db, query))


def test_a_study_file_opens_its_database_and_names_the_study(demo: Demo, api_db: Path) -> None:
    by_file = cs.open_study(demo.study_file)
    assert (by_file.path, by_file.name, by_file.design) == (
        demo.folder / "demo.duckdb",
        "demo",
        "stylisticbias",
    )
    by_db = cs.open_study(demo.study_file, db=api_db)
    assert by_db.path == api_db and by_db.result_names()
    plain = cs.open_study(api_db)  # name and design from the database's latest run
    assert (plain.name, plain.design) == ("demo", "stylisticbias")


def test_repr_says_what_the_study_holds(api_db: Path) -> None:
    answers = direct(api_db, "SELECT count(*) AS n FROM judgment")["n"].item()
    shown = repr(cs.open_study(api_db))
    assert "'demo' (stylisticbias)" in shown and str(api_db) in shown
    assert "models: sim" in shown and f"answers: {answers:,}" in shown and "sbs, table2_vs" in shown


def test_before_analyze_there_are_no_results(demo: Demo) -> None:
    study = cs.open_study(demo.raw)
    assert study.result_names() == []
    assert "results: none" in repr(study)
    with pytest.raises(cs.CueshiftError, match="no result 'sbs'; stored results: none yet"):
        study.results("sbs")
    with pytest.raises(cs.CueshiftError, match="no result_manifest yet"):
        study.manifest()


def test_a_closed_study_refuses_to_read(api_db: Path) -> None:
    with cs.open_study(api_db) as study:
        assert study.result_names()
    with pytest.raises(cs.CueshiftError, match="the study is closed"):
        study.delta()
    with pytest.raises(cs.CueshiftError, match="the study is closed"):
        study.sql("SELECT 1")
    assert "closed" in repr(study)


def test_no_connection_is_held_between_calls(api_db: Path) -> None:
    study = cs.open_study(api_db)
    study.results("sbs")
    with duckdb.connect(str(api_db)) as writer:  # read-write in this process: refused if one were open
        writer.execute("SELECT 1")
    assert study.results("sbs").height > 0


def test_repr_of_a_removed_database_says_so(demo: Demo) -> None:
    database = copy_of(demo.raw, "removed")
    study = cs.open_study(database)
    database.unlink()
    assert "no such study database" in repr(study)
