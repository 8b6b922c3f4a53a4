"""``cueshift analyze --audit`` in the paired design (seed 001): an individual whose filtered
photo failed the edit audit leaves every paired analysis under ``strict`` (both photos), stays
under ``report``; the manifest records the mode."""

from __future__ import annotations

import io

import numpy as np
import pytest
from rich.console import Console

from cueshift import store
from cueshift.designs import analyze_design
from cueshift.designs.protocol import AnalysisRequest
from cueshift.designs.registry import parse_study
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.store import write_tables
from tests.audit_results.planted import VARIATION, audit_rows
from tests.designs.test_paired import _small_study

#: Individuals of one scenario's Wilcoxon test: each contributes one original-filtered pair.
N_SQL = "SELECT n FROM result_paired_attractiveness WHERE test = 'wilcoxon' ORDER BY scenario_id LIMIT 1"


@pytest.fixture(scope="module")
def paired_db(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("paired-audit")
    study = parse_study(_small_study(tmp), "test")
    run_study(study, RunOptions(progress=False))
    return study


def _analyze(study, audit: str | None) -> tuple[int, str]:
    out = io.StringIO()
    con = store.open_study(study.database_path)
    try:
        analyze_design(con, study, Console(file=out, width=200), request=AnalysisRequest(audit=audit))
        row = con.execute(N_SQL).fetchone()
        assert row is not None
        (n,) = row
        modes = {r[0] for r in con.execute("SELECT DISTINCT audit FROM result_manifest").fetchall()}
    finally:
        con.close()
    assert modes == {audit}
    return int(n), out.getvalue()


def test_strict_leaves_out_the_individuals_whose_filtered_photo_failed(paired_db) -> None:
    study = paired_db
    con = store.open_study(study.database_path)
    try:
        variations = (
            con.sql(
                "SELECT image_id, base_image_id, face_id, feature_key, variation_value "
                "FROM image "
                "WHERE role = 'variation' AND evaluated ORDER BY image_id"
            )
            .pl()
            .select(VARIATION)
        )
        failed = variations["image_id"].head(5).to_list()
        rng = np.random.default_rng(0)
        rows = audit_rows(variations, failed, {"probe_lighting": rng.normal(0, 0.1, variations.height)})
        write_tables(con, {"edit_audit": rows})
        n_individuals = variations["face_id"].n_unique()
    finally:
        con.close()

    n_all, _ = _analyze(study, None)
    n_report, said = _analyze(study, "report")
    assert n_all == n_report == n_individuals
    assert f"5 of {variations.height} filtered photos failed the audit; kept" in said
    n_strict, said = _analyze(study, "strict")
    assert n_strict == n_individuals - 5
    assert "left out of every analysis" in said
