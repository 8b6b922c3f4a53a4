"""The failed-edits page's robustness table: per model × attribute the RV, RV (α) and benchmark
bound that ``cueshift analyze --audit`` stored in ``result_audit_sensitivity``, each cell the
stored value read by a direct DuckDB query and formatted here; a table stored before those
columns existed still opens (blank cells and a note), and an older result schema shows none.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import pytest

from cueshift import store
from cueshift.designs.stylisticbias.analyses import run_analyses
from cueshift.designs.stylisticbias.edit_audit import read_edit_audit
from cueshift.schemas.results import RESULT_SCHEMA_VERSION
from cueshift.stats import Resampling
from cueshift.store import write_tables
from tests.audit_results.planted import audit_rows, stored_variations
from tests.viewer.conftest import Served, serve_in_thread
from tests.viewer.pages import frame, page_html, signed, tables

#: Columns of the stored table that came with the robustness values (D40) and their bound (D46).
ROBUSTNESS = ("partial_r2", "rv", "rv_alpha", "bound_confound", "bound_from", "bound_r2dz", "bound_r2yz")
BOUNDS = ("bound_sbs", "bound_ci_low", "bound_ci_high")


def _signed4(value: float | None) -> str:
    """Four signed decimals (U+2212), as the report's Table A1 shows the bound."""
    return "–" if value is None else f"{value:+.4f}".replace("-", "−")


def _copy(db: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(db, folder / "study.duckdb")
    return folder / "study.duckdb"


@pytest.fixture(scope="module")
def analysed(stylisticbias_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the tiny study with a planted audit (two CLIP probes) and ``analyze --audit report``."""
    return _audited(stylisticbias_db, tmp_path_factory.mktemp("robustness"), 0.95)


def _audited(study: Path, folder: Path, level: float) -> Path:
    """A copy of ``study`` in ``folder`` with the planted audit, its sensitivity analysed at ``level``."""
    db = _copy(study, folder)
    con = store.open_study(db)
    try:
        variations = stored_variations(con).sort("image_id")
        rng = np.random.default_rng(4)
        probes = {m: rng.normal(0.1, 0.5, variations.height) for m in ("expression", "lighting")}
        failed = set(variations["image_id"].sample(fraction=0.2, seed=1))
        write_tables(con, {"edit_audit": audit_rows(variations, failed, probes)})
        audit = read_edit_audit(con, "report")
        resampling = Resampling(resamples=50, confidence_level=level)
        run_analyses(con, resampling, only=["audit_sensitivity"], progress=False, audit=audit)
    finally:
        con.close()
    return db


@pytest.fixture(scope="module")
def served(analysed: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serve_in_thread(analysed, tmp_path_factory.mktemp("thumbs"))


def _shown(html: str) -> dict[tuple[str, str], list[str]]:
    """The robustness table's rows by (model group, attribute)."""
    found: dict[tuple[str, str], list[str]] = {}
    group = ""
    for row in tables(html)["tbl-audit-robustness"]:
        if len(row) == 1:
            group = row[0]
        elif len(row) == 9 and row[0] != "Attribute":  # not the header
            found[(group, row[0])] = row[1:]
    return found


def test_the_page_shows_the_stored_robustness_of_each_shift(served: Served) -> None:
    stored = frame(served.db, "SELECT * FROM result_audit_sensitivity WHERE audit = 'report' ORDER BY ALL")
    assert stored.height > 0 and stored["all_rv"].null_count() < stored.height
    assert stored["all_bound_sbs"].null_count() < stored.height
    shown = _shown(page_html(served.url, "/failed"))
    assert len(shown) == stored.height
    for r in stored.iter_rows(named=True):
        model = "Pooled over models" if r["model_id"] == "(pooled)" else r["model_id"]
        interval = (
            "–"
            if r["all_bound_ci_low"] is None
            else f"[{_signed4(r['all_bound_ci_low'])}, {_signed4(r['all_bound_ci_high'])}]"
        )
        assert shown[(model, r["feature_key"])] == [
            signed(r["all_sbs"]),
            f"[{signed(r['all_ci_low'])}, {signed(r['all_ci_high'])}]",
            "–" if r["all_rv"] is None else f"{100 * r['all_rv']:.1f}%",
            "–" if r["all_rv_alpha"] is None else f"{100 * r['all_rv_alpha']:.1f}%",
            _signed4(r["all_bound_from"]),  # signed as in the report's Table A1 (1adfb61)
            r["all_bound_confound"] or "–",
            _signed4(r["all_bound_sbs"]),
            interval,
        ]
    assert 'id="audit-robustness-older"' not in page_html(served.url, "/failed")  # current columns


def test_the_intervals_are_headed_with_the_stored_level(
    stylisticbias_db: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """The table headed its two intervals "CI" and "CI (1× probe)", naming no level."""
    db = _audited(stylisticbias_db, tmp_path_factory.mktemp("robustness-90"), 0.9)
    level = frame(db, "SELECT confidence_level FROM result_manifest WHERE name = 'audit_sensitivity'")
    assert level["confidence_level"].to_list() == [0.9]
    for served in serve_in_thread(db, db.parent / "thumbs"):
        header = next(
            r for r in tables(page_html(served.url, "/failed"))["tbl-audit-robustness"] if r[0] == "Attribute"
        )
        assert header[2] == "90% CI" and header[8] == "90% CI (1× probe)", header
        assert not [cell for cell in header if "95" in cell]


def test_a_table_stored_before_the_robustness_columns_still_opens(analysed: Path, tmp_path: Path) -> None:
    db = _copy(analysed, tmp_path / "older")
    con = duckdb.connect(str(db))
    try:
        for column in (*ROBUSTNESS, *BOUNDS):
            for prefix in ("all", "audited"):
                con.execute(f"ALTER TABLE result_audit_sensitivity DROP COLUMN {prefix}_{column}")
        n = con.execute("SELECT count(*) FROM result_audit_sensitivity").fetchall()[0][0]
    finally:
        con.close()
    for served in serve_in_thread(db, tmp_path / "thumbs"):
        html = page_html(served.url, "/failed")
        assert 'id="audit-robustness-older"' in html and "re-run `cueshift analyze --audit`" in html
        shown = _shown(html)
        assert len(shown) == n
        assert all(cells[2:] == ["–"] * 6 and cells[0] != "–" for cells in shown.values())


def test_an_older_result_schema_or_an_earlier_run_shows_no_table(analysed: Path, tmp_path: Path) -> None:
    for name, change in (
        ("schema", f"UPDATE result_manifest SET schema_version = {RESULT_SCHEMA_VERSION - 1}"),
        # a later analyze without --audit: the manifest no longer lists the table it left
        ("earlier", "UPDATE result_manifest SET name = 'sbs' WHERE name = 'audit_sensitivity'"),
    ):
        db = _copy(analysed, tmp_path / name)
        con = duckdb.connect(str(db))
        try:
            con.execute(change)
        finally:
            con.close()
        for served in serve_in_thread(db, tmp_path / f"thumbs-{name}"):
            html = page_html(served.url, "/failed")
            assert 'id="audit-robustness"' not in html and 'id="failed-edits"' in html
