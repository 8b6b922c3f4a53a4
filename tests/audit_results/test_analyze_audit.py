"""``cueshift analyze --audit strict|report`` over a study database: strict drops exactly the
variations whose edit failed the audit (checked against a direct SQL anti-join), the manifest
records the mode, the console prints its one line, and designs without audited edits refuse the
option in one line (exit 2)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

import cueshift as cs
from cueshift import store
from cueshift.api import write_demo_study
from cueshift.cli import app
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.design import StylisticBiasDesign
from cueshift.designs.stylisticbias.edit_audit import read_edit_audit
from cueshift.errors import ConfigError
from cueshift.render import MarkdownOutput, Report, TableOutput
from cueshift.stats import Resampling
from cueshift.store import write_tables
from tests.audit_results.planted import VARIATION, audit_rows
from tests.hardening.failing import one_line
from tests.simulate.outputs import write_study
from tests.simulate.study import SimulationSpec, simulate_study

RUNNER = CliRunner()
#: Δ rows per model that survive the audit: the delta view without the failed variations.
KEPT_SQL = """
    SELECT model_id, count(*) FROM delta AS d
    WHERE delta IS NOT NULL AND lower(feature_key) <> 'placebo'
      AND NOT EXISTS (SELECT 1 FROM edit_audit AS a WHERE a.image_id = d.image_id AND a.failed)
    GROUP BY model_id ORDER BY model_id
"""
ALL_SQL = """
    SELECT model_id, count(*) FROM delta
    WHERE delta IS NOT NULL AND lower(feature_key) <> 'placebo' GROUP BY model_id ORDER BY model_id
"""


def _audit(con: duckdb.DuckDBPyConnection, share: float, seed: int) -> pl.DataFrame:
    """Store a planted edit audit of every evaluated variation; ``share`` of them fail."""
    variations = pl.from_arrow(
        con.sql(
            "SELECT image_id, base_image_id, face_id, feature_key, variation_value FROM image "
            "WHERE role = 'variation' AND evaluated AND lower(feature_key) <> 'placebo' ORDER BY image_id"
        ).to_arrow_table()
    )
    assert isinstance(variations, pl.DataFrame)
    variations = variations.select(VARIATION)
    failed = set(variations["image_id"].sample(fraction=share, seed=seed))
    rng = np.random.default_rng(seed)
    rows = audit_rows(variations, failed, {"probe_lighting": rng.normal(0.2, 0.5, variations.height)})
    write_tables(con, {"edit_audit": rows})
    return rows


@pytest.fixture()
def study_db(tmp_path: Path):
    con = store.open_study(tmp_path / "study.duckdb")
    write_study(con, simulate_study(SimulationSpec(n_faces=16, models=("m-a", "m-b"), seed=6)))
    yield con
    con.close()


def test_strict_drops_exactly_the_failed_variations(study_db: duckdb.DuckDBPyConnection) -> None:
    con = study_db
    with pytest.raises(ConfigError, match="no edit audit stored: run `cueshift audit` first"):
        read_edit_audit(con, "strict")
    _audit(con, share=0.2, seed=1)
    only = ["sbs", "audit_sensitivity"]
    run_analyses(
        con,
        Resampling(resamples=200),
        only=only,
        progress=False,
        audit=read_edit_audit(con, "strict"),
    )
    n_obs = con.execute(
        "SELECT model_id, n_obs FROM result_sbs WHERE level = 'model' AND model_id <> '(pooled)' ORDER BY 1"
    ).fetchall()
    assert n_obs == con.execute(KEPT_SQL).fetchall()
    assert n_obs != con.execute(ALL_SQL).fetchall()  # something was dropped
    assert con.execute("SELECT DISTINCT audit FROM result_manifest").fetchall() == [("strict",)]
    sens = con.execute(
        "SELECT sum(n_failed), sum(n_variations) FROM result_audit_sensitivity WHERE model_id = '(pooled)'"
    ).fetchall()[0]
    failed = con.execute(
        "SELECT count(DISTINCT image_id) FILTER (WHERE failed), count(DISTINCT image_id) FROM edit_audit"
    ).fetchall()[0]
    assert sens == failed
    shown = _report(con).outputs("edit_audit")
    assert isinstance(shown[0], MarkdownOutput)
    assert "failed the edit audit and are left out of every analysis" in shown[0].text
    n_rows = con.execute("SELECT count(*) FROM result_audit_sensitivity").fetchall()[0][0]
    assert isinstance(shown[1], TableOutput) and shown[1].styled.n_rows == n_rows

    run_analyses(
        con,
        Resampling(resamples=200),
        only=only,
        progress=False,
        audit=read_edit_audit(con, "report"),
    )
    n_obs = con.execute(
        "SELECT model_id, n_obs FROM result_sbs WHERE level = 'model' AND model_id <> '(pooled)' ORDER BY 1"
    ).fetchall()
    assert n_obs == con.execute(ALL_SQL).fetchall()  # report keeps every edit
    assert con.execute("SELECT DISTINCT audit FROM result_manifest").fetchall() == [("report",)]

    run_analyses(con, Resampling(resamples=200), only=only, progress=False)
    assert con.execute("SELECT DISTINCT audit FROM result_manifest").fetchall() == [(None,)]
    named = "SELECT count(*) FROM result_manifest WHERE name = 'audit_sensitivity'"
    assert con.execute(named).fetchall()[0] == (0,)
    shown = _report(con).outputs("edit_audit")  # the earlier run's table is still in the file, not shown
    assert isinstance(shown[0], MarkdownOutput) and isinstance(shown[1], MarkdownOutput)
    assert shown[0].text == "" and "no edit audit in these results" in shown[1].text


def _report(con: duckdb.DuckDBPyConnection) -> Report:
    models = ["m-a", "m-b"]
    return Report(con, Path("study.duckdb"), models, models, StylisticBiasDesign().report())


def test_analyze_audit_from_the_command_line_and_the_api(tmp_path: Path) -> None:
    study = write_demo_study(tmp_path, faces=3)
    cs.infer(study, progress=False)
    first = RUNNER.invoke(
        app, ["analyze", "--study", str(study), "--audit", "report", "--resamples", "100", "--no-progress"]
    )
    assert first.exit_code == 0, (first.stderr, first.exception)
    assert "edit audit: none stored - measuring it first" in first.stdout  # as `cueshift audit` does
    con = store.open_study(tmp_path / "demo.duckdb")
    try:
        measured = con.execute("SELECT count(DISTINCT image_id) FROM edit_audit").fetchall()[0][0]
        con.execute("DELETE FROM edit_audit")  # replaced by a planted audit
        rows = _audit(con, share=0.3, seed=2)
    finally:
        con.close()
    assert measured == rows["image_id"].n_unique()  # every evaluated variation was measured
    n_failed = rows.filter(pl.col("failed"))["image_id"].n_unique()
    n_variations = rows["image_id"].n_unique()
    result = RUNNER.invoke(
        app, ["analyze", "--study", str(study), "--audit", "strict", "--resamples", "100", "--no-progress"]
    )
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert (
        f"{n_failed:,} of {n_variations:,} variations failed the audit (left out of the analyses)"
        in result.stdout
    )
    assert "largest SBS change" in result.stdout
    analysed = cs.analyze(study, resamples=100, audit="report")
    assert set(analysed.manifest()["audit"].to_list()) == {"report"}
    assert analysed.results("audit_sensitivity").height > 0


@pytest.mark.parametrize("design", ["pairwise", "probe"])
def test_designs_without_audited_edits_refuse_the_option(tmp_path: Path, design: str) -> None:
    from tests.hardening.inputs_layout import study_file

    study = study_file(tmp_path, design)
    line = one_line(RUNNER.invoke(app, ["analyze", "--study", str(study), "--audit", "report"]))
    assert "--audit" in line and repr(design) in line
    assert not (tmp_path / "s.duckdb").exists()


def test_an_unknown_mode_is_one_line(tmp_path: Path) -> None:
    study = write_demo_study(tmp_path)
    line = one_line(RUNNER.invoke(app, ["analyze", "--study", str(study), "--audit", "loose"]))
    assert "--audit 'loose': 'strict' or 'report'" in line


def test_strict_combines_with_min_identity(study_db: duckdb.DuckDBPyConnection, tmp_path: Path) -> None:
    from cueshift.designs.stylisticbias.quality import IdentityQuality
    from cueshift.study.quality import QualityConfig

    con = study_db
    _audit(con, share=0.15, seed=3)
    variations = pl.from_arrow(
        con.sql(
            "SELECT image_id, face_id, feature_key, variation_value FROM image "
            "WHERE role = 'variation' AND evaluated ORDER BY image_id"
        ).to_arrow_table()
    )
    assert isinstance(variations, pl.DataFrame)
    cosine = np.random.default_rng(9).uniform(0.5, 1.0, variations.height)
    identity = variations.with_columns(cosine=cosine, outlier=pl.lit(False))
    low = identity.filter(pl.col("cosine") < 0.6).select("image_id")  # noqa: F841 (read by name in SQL)
    quality = IdentityQuality(identity, QualityConfig(encoder=tmp_path), min_identity=0.6)
    audit = read_edit_audit(con, "strict")
    run_analyses(con, Resampling(resamples=200), only=["sbs"], progress=False, quality=quality, audit=audit)
    n_obs = con.execute(
        "SELECT model_id, n_obs FROM result_sbs WHERE level = 'model' AND model_id <> '(pooled)' ORDER BY 1"
    ).fetchall()
    both = KEPT_SQL.replace("GROUP BY", "AND d.image_id NOT IN (SELECT image_id FROM low) GROUP BY")
    assert n_obs == con.execute(both).fetchall()  # neither the failed edits nor the low-identity ones
    assert n_obs != con.execute(KEPT_SQL).fetchall()
    recorded = con.execute("SELECT DISTINCT audit, min_identity FROM result_manifest").fetchall()
    assert recorded == [("strict", 0.6)]
