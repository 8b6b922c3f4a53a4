"""``export_study``: files written, counts against the ``phi`` view, Every Eval Ever
JSON against its published schema (``eee_eval.schema.json``: every-eval-ever 0.3.0's
``eval.schema.json``, MIT licence, vendored because the package needs Python >= 3.12), refusals,
and the study database left byte for byte as it was."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import jsonschema
import polars as pl
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.errors import CueshiftError
from cueshift.stats import Resampling
from cueshift.store.study_export import export_study
from tests.render.study_db import build_study_db

SCHEMA = json.loads((Path(__file__).parent / "eee_eval.schema.json").read_text())


@pytest.fixture(scope="module")
def raw_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_study_db(tmp_path_factory.mktemp("raw") / "study.duckdb", n_faces=12)


@pytest.fixture(scope="module")
def analysed_db(raw_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("analysed") / "study.duckdb"
    path.write_bytes(raw_db.read_bytes())
    con = store.open_study(path)
    try:
        run_analyses(con, Resampling(resamples=50, seed=1), progress=False)
    finally:
        con.close()
    return path


def _sql(db: Path, sql: str) -> pl.DataFrame:
    con = duckdb.connect(str(db), read_only=True)
    try:
        frame: pl.DataFrame = con.sql(sql).pl()
        return frame
    finally:
        con.close()


def test_writes_counts_results_and_scores_without_touching_the_db(analysed_db, tmp_path):
    before = hashlib.sha256(analysed_db.read_bytes()).hexdigest()
    written = export_study(analysed_db, tmp_path / "out")
    assert hashlib.sha256(analysed_db.read_bytes()).hexdigest() == before
    assert all(p.is_file() for p in written)
    tables = set(_sql(analysed_db, 'SELECT DISTINCT "table" FROM result_manifest')["table"])
    results = tmp_path / "out" / "results"
    assert {p.stem for p in results.glob("*.parquet")} == tables
    assert {p.stem for p in results.glob("*.csv")} == tables
    for table in tables:
        stored = _sql(analysed_db, f'SELECT count(*) AS n FROM "{table}"')["n"][0]
        assert pl.read_parquet(results / f"{table}.parquet").height == stored


def test_counts_sum_to_the_phi_view(analysed_db, tmp_path):
    export_study(analysed_db, tmp_path, formats=["counts"])
    counts = pl.read_parquet(tmp_path / "counts.parquet")
    assert {
        "model_id",
        "face_id",
        "variation_value",
        "scenario_id",
        "scenario_category",
        "ordering",
        "favourable",
        "valid",
    } <= set(counts.columns)
    assert counts.select(["model_id", "image_id", "scenario_id", "ordering"]).is_duplicated().sum() == 0
    assert ((counts["favourable"] <= counts["valid"]) & (counts["valid"] <= counts["total"])).all()
    summed = counts.group_by("model_id", "image_id", "scenario_id").agg(pl.col("favourable", "valid").sum())
    phi = _sql(
        analysed_db,
        "SELECT model_id, image_id, scenario_id, n_favorable AS favourable, n_valid AS valid FROM phi",
    )
    keys = ["model_id", "image_id", "scenario_id"]
    assert summed.sort(keys).equals(phi.sort(keys).cast({"favourable": pl.Int64, "valid": pl.Int64}))
    faces = _sql(analysed_db, "SELECT image_id, face_id FROM image")
    assert counts.join(faces, on="image_id")["face_id_right"].equals(counts["face_id"])


def test_eee_records_validate_and_hold_the_favourable_share(analysed_db, tmp_path):
    export_study(analysed_db, tmp_path, formats=["eee"])
    files = sorted((tmp_path / "eee").glob("*.json"))
    models = _sql(analysed_db, "SELECT DISTINCT model_id FROM judgment ORDER BY 1")["model_id"].to_list()
    assert [f.stem for f in files] == models
    reference = _sql(
        analysed_db,
        "SELECT model_id, count(*) FILTER (WHERE outcome = 'favorable') / "
        "count(*) FILTER (WHERE outcome <> 'invalid') AS share FROM judgment GROUP BY 1",
    )
    for path in files:
        record = json.loads(path.read_text())
        jsonschema.Draft7Validator(SCHEMA).validate(record)
        result = {r["evaluation_name"]: r for r in record["evaluation_results"]}["favourable_share"]
        share = reference.filter(pl.col("model_id") == path.stem)["share"][0]
        assert result["score_details"]["score"] == pytest.approx(share, rel=1e-12)
        ci = result["score_details"]["uncertainty"]["confidence_interval"]
        assert ci["lower"] <= share <= ci["upper"]


def test_an_unanalysed_study_and_an_unknown_format_are_refused(raw_db, analysed_db, tmp_path):
    before = hashlib.sha256(raw_db.read_bytes()).hexdigest()
    with pytest.raises(CueshiftError, match=r"no analysis has run \(run `cueshift analyze` first\)$"):
        export_study(raw_db, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert hashlib.sha256(raw_db.read_bytes()).hexdigest() == before
    with pytest.raises(CueshiftError, match="unknown format 'xlsx'"):
        export_study(analysed_db, tmp_path / "out", formats=["xlsx"])  # type: ignore[list-item]  # bad input on purpose
    with pytest.raises(CueshiftError, match="no such study database"):
        export_study(tmp_path / "missing.duckdb", tmp_path / "out")


def test_cli_export_writes_and_refuses_in_one_line(raw_db, analysed_db, tmp_path):
    from typer.testing import CliRunner

    from cueshift.cli import app

    ok = CliRunner().invoke(
        app, ["export", "--db", str(analysed_db), "--out", str(tmp_path / "o"), "--format", "eee"]
    )
    assert ok.exit_code == 0, ok.output
    assert list((tmp_path / "o" / "eee").glob("*.json")) and not (tmp_path / "o" / "counts.parquet").exists()
    refused = CliRunner().invoke(app, ["export", "--db", str(raw_db), "--out", str(tmp_path / "r")])
    assert refused.exit_code == 2 and "no analysis has run" in refused.output


def test_api_export_is_the_same_export(analysed_db, tmp_path):
    from cueshift.api import export

    written = export("default", db=analysed_db, out=tmp_path, formats=["counts"])
    assert written == [tmp_path / "counts.parquet"]
    with pytest.raises(CueshiftError, match="unknown format"):
        export("default", db=analysed_db, out=tmp_path, formats=["pdf"])
