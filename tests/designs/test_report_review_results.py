"""The paired (001), pairwise (002) and probe (004) reports after the D64 review's follow-ups: the
results ``cueshift analyze`` stores are shown, the scale regression's between-model terms say how
few models they rest on, the filtered-image set reads Fᵇ (not a literal caret) and the baselines
table drops the random-twin columns when no model has a twin.

Expected texts are built here from the stored rows (``cueshift.render`` formatters on what the
statistics engine wrote), or from an independent fit, never from the output being checked.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

from cueshift.designs.paired.report import CATALOG as PAIRED
from cueshift.designs.probe.report import CATALOG as PROBE
from cueshift.render import Catalog, Report, Styled, fmt_number
from tests.designs.review_dbs import analysed_dbs, rows


@pytest.fixture(scope="module")
def dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """An analysed database per design: its seed study file with the simulated judges."""
    return analysed_dbs(tmp_path_factory)


def _styled(db: Path, catalog: Catalog, key: str) -> Styled:
    with Report.open(db, None, catalog) as report:
        return report.styled(key)


def test_paired_table6_writes_the_filtered_set_as_a_superscript_not_a_caret(dbs: dict[str, Path]) -> None:
    styled = _styled(dbs["paired"], PAIRED, "paired_table1")
    texts = [*styled.labels, *styled.notes]
    assert not [t for t in texts if "^" in t], "a caret shows literally in HTML and typst"
    assert "Stronger in filtered (Fᵇ)" in styled.labels
    assert any("filtered images (Fᵇ)" in note for note in styled.notes)


def test_probe_baselines_drop_the_twin_columns_when_no_model_has_a_twin(
    dbs: dict[str, Path], tmp_path: Path
) -> None:
    stored = rows(
        dbs["probe"], "SELECT count(random_similarity) AS k, count(*) AS n FROM result_probe_baselines"
    )
    assert stored[0]["k"] == 0 and stored[0]["n"] != 0, "the seed study runs no random twin"
    styled = _styled(dbs["probe"], PROBE, "probe_baselines")
    assert "ρ random twin" not in styled.labels
    assert len(styled.labels) == len(PROBE.table("probe_baselines").columns) - 2  # ρ and its interval
    assert all(len(row) == len(styled.labels) for row in styled.rows)
    notes = " ".join(styled.notes)
    assert "No random twin was run" in notes and "ρ random twin:" not in notes
    # one model with a twin: the columns come back, blank for the models without one
    db = tmp_path / "probe.duckdb"
    shutil.copy(dbs["probe"], db)
    first = rows(db, "SELECT min(model_id) AS m FROM result_probe_baselines")[0]["m"]
    with duckdb.connect(str(db)) as con:
        con.execute(
            "UPDATE result_probe_baselines SET random_similarity = 0.125, random_low = 0.0, "
            "random_high = 0.25 WHERE model_id = ?",
            [first],
        )
    styled = _styled(db, PROBE, "probe_baselines")
    j = styled.labels.index("ρ random twin")
    twin = [row[j].text for row, group in zip(styled.rows, styled.groups, strict=True) if group == first]
    assert twin and set(twin) == {fmt_number(0.125, 2)}
    notes = " ".join(styled.notes)
    assert "ρ random twin:" in notes and "No random twin was run" not in notes
