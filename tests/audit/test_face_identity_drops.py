"""``result_identity_drops`` and report Tables S12/S12b count what each identity model dropped
when ``[audit.faces] identity_filter = true`` joins ``--min-identity``; a study without the
switch stores and shows what it did before (the face columns null, no Table S12b).

Expected counts are computed here from the planted face rows (tests/audit/planted_face_models.py)
and the stored cosines, per threshold and attribute, without the code under test.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from cueshift.designs.stylisticbias.report import CATALOG  # noqa: E402
from cueshift.inference.stand_ins.tiny_clip import save_tiny_clip  # noqa: E402
from cueshift.render import MarkdownOutput, Report, TableOutput  # noqa: E402
from tests.audit.face_filter_study import Analysed, analysed, run, stored_drops, write_study  # noqa: E402

BY_MODEL = ("n_dropped_cosine", "n_dropped_distance", "n_dropped_face_count", "n_dropped_both")


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Analysed:
    encoder = save_tiny_clip(tmp_path_factory.mktemp("tiny-clip"), seed=0)
    return analysed(tmp_path_factory.mktemp("face-filter"), encoder)


def _expected(study: Analysed, threshold: float, key: str) -> dict[str, int]:
    keys = study.feature_keys()
    mine = [v for v in study.cosines if key == "all" or keys[v] == key]
    reasons = study.face_reasons()
    by_cosine = {v for v in mine if study.cosines[v] < threshold}
    by_faces = {v for v in mine if v in reasons}
    return {
        "n_variations": len(mine),
        "n_dropped": len(by_cosine | by_faces),
        "n_dropped_cosine": len(by_cosine),
        "n_dropped_distance": sum(reasons.get(v) == "distance" for v in mine),
        "n_dropped_face_count": sum(reasons.get(v) == "face_count" for v in mine),
        "n_dropped_both": len(by_cosine & by_faces),
    }


def test_the_stored_table_counts_each_models_drops(study: Analysed) -> None:
    stored = stored_drops(study.db)
    assert sorted(stored["threshold"].unique()) == sorted({0.5, 0.99, study.min_identity})
    assert stored.height == 3 * 3  # thresholds x (eyewear, hair_style, all)
    for row in stored.iter_rows(named=True):
        expected = _expected(study, row["threshold"], row["feature_key"])
        assert {k: row[k] for k in expected} == expected, (row["threshold"], row["feature_key"])
        assert row["share_dropped"] == pytest.approx(expected["n_dropped"] / expected["n_variations"])
    applied = stored.filter("applied")
    assert applied["threshold"].unique().to_list() == [study.min_identity]
    pooled = _expected(study, study.min_identity, "all")
    # the plant: four face-model drops (three without one face, one too far), two by the cosine
    assert (pooled["n_dropped_face_count"], pooled["n_dropped_distance"], pooled["n_dropped_cosine"]) == (
        3,
        1,
        2,
    )
    assert pooled["n_dropped_both"] >= 1 and pooled["n_dropped"] == 6 - pooled["n_dropped_both"]


def test_the_report_shows_each_models_drops_beside_table_s13(study: Analysed) -> None:
    with Report.open(study.db, None, CATALOG) as report:
        styled = report.styled("identity_drops_by_model")
        s13 = report.styled("identity_drops")
    assert styled.labels[1:] == (
        "Variations", "By CLIP cosine", "By face distance", "No single face", "By face models", "By both",
        "Dropped", "Share dropped",
    )  # fmt: skip
    applied = f"cosine < {study.min_identity:.2f} (applied in this run)"
    shown = {
        (group, row[0].text): [c.text for c in row[1:]]
        for group, row in zip(styled.groups, styled.rows, strict=True)
    }
    for key, label in (("all", "All attributes"), ("eyewear", "eyewear"), ("hair_style", "hair_style")):
        e = _expected(study, study.min_identity, key)
        faces = e["n_dropped_distance"] + e["n_dropped_face_count"]
        assert shown[(applied, label)] == [
            str(e["n_variations"]), str(e["n_dropped_cosine"]), str(e["n_dropped_distance"]),
            str(e["n_dropped_face_count"]), str(faces), str(e["n_dropped_both"]), str(e["n_dropped"]),
            f"{100 * e['n_dropped'] / e['n_variations']:.1f}%",
        ]  # fmt: skip
    assert any("Dropped counts what either model drops" in note for note in s13.notes)


def test_without_the_switch_nothing_changes(study: Analysed, tmp_path: Path) -> None:
    # a copy of the study re-analysed with identity_filter = false: the cosine alone, as before
    plain = write_study(tmp_path, study.encoder, identity_filter=False)  # the same images
    db = tmp_path / "s.duckdb"
    shutil.copy(study.db, db)
    out = run(
        "analyze", "--study", str(plain), "--resamples", "100", "--min-identity", f"{study.min_identity}"
    )
    assert "by face recognition" not in out
    stored = stored_drops(db)
    assert stored.select(BY_MODEL).null_count().row(0) == (stored.height,) * 4
    for row in stored.iter_rows(named=True):
        n = sum(study.cosines[v] < row["threshold"] for v in study.cosines
                if row["feature_key"] == "all" or study.feature_keys()[v] == row["feature_key"])  # fmt: skip
        assert row["n_dropped"] == n
    with Report.open(db, None, CATALOG) as report:
        table = report.table("identity_drops_by_model")
        s13 = report.styled("identity_drops")
    assert isinstance(table, MarkdownOutput) and table.text == ""  # left out, no note
    assert not any("either model" in note for note in s13.notes)
    assert not isinstance(table, TableOutput)


def test_the_pooled_drops_leave_the_same_variations_out_of_result_sbs(study: Analysed) -> None:
    """The union the table counts is what the analyses left out: the Mohawk faces in result_sbs."""
    keys = study.feature_keys()
    reasons = study.face_reasons()
    kept_mohawk = [
        v
        for v in study.cosines
        if keys[v] == "hair_style" and v not in reasons and study.cosines[v] >= study.min_identity
    ]
    with duckdb.connect(str(study.db), read_only=True) as con:
        n = con.execute(
            "SELECT DISTINCT n FROM result_sbs WHERE level = 'variation_value' "
            "AND variation_value = 'Mohawk' AND model_id = 'sim'"
        ).fetchall()
    assert [r[0] for r in n] == ([len(kept_mohawk)] if kept_mohawk else [])
