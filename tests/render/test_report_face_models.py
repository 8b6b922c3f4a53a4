"""The report's edit-audit section shows the face models beside CLIP (Tables A2-A4 and a summary
sentence) when ``[audit.faces]`` rows are stored, and nothing new without them.

The rows are planted (tests/audit/planted_face_models.py); every expected figure is computed here
in Python from what was planted, or read from the stored summary row by row.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.render import MarkdownOutput, Report, TableOutput
from tests.audit.planted_face_models import ITA_BOUND, THRESHOLD, Planted, plant

FACE_KEYS = ("audit_face_identity", "audit_skin_attribute", "audit_skin_group")


def _num(value: float, decimals: int) -> str:
    return f"{value:.{decimals}f}".replace("-", "−")


@pytest.fixture(scope="module")
def planted(raw_db: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Planted]:
    path = tmp_path_factory.mktemp("faces") / "study.duckdb"
    shutil.copy(raw_db, path)
    return path, plant(path)


def _outputs(path: Path) -> dict[str, str]:
    """The markdown text of each face-model output of the edit-audit section ('' when left out)."""
    with Report.open(path, None, CATALOG) as report:
        shown = {}
        for key in FACE_KEYS:
            output = report.table(key)
            shown[key] = output.text if isinstance(output, MarkdownOutput) else "<table>"
    return shown


def test_without_face_rows_the_section_is_unchanged(raw_db: Path, tmp_path: Path) -> None:
    assert set(_outputs(raw_db).values()) == {""}
    older = tmp_path / "older.duckdb"  # written before the face-model tables existed
    shutil.copy(raw_db, older)
    with duckdb.connect(str(older)) as con:
        con.execute("DROP TABLE face_detection")
        con.execute("DROP TABLE audit_skin_tone")
    assert set(_outputs(older).values()) == {""}


def test_identity_table_puts_face_recognition_beside_clip(planted: tuple[Path, Planted]) -> None:
    path, rows = planted
    with Report.open(path, None, CATALOG) as report:
        output = report.table("audit_face_identity")
        assert isinstance(output, TableOutput)
        styled = output.styled
    shown = {(group, row[0]): row for group, row in zip(styled.groups, styled.texts(), strict=True)}
    v = rows.variations
    cells = [
        ((k, val), v.filter(variation_value=val))
        for k, val in v.select("feature_key", "variation_value").unique().rows()
    ]
    cells.append((("All attributes", "every value"), v))
    for key, part in cells:
        row = shown[key]
        no_face = part.filter((pl.col("base_faces") == 0) | (pl.col("variation_faces") == 0)).height
        several = part.filter((pl.col("base_faces") > 1) | (pl.col("variation_faces") > 1)).height
        distances = part["distance"].drop_nulls().to_numpy()
        assert row[1:4] == [str(part.height), str(no_face), str(several)], key
        assert row[4:6] == [_num(float(np.median(distances)), 3), _num(float(distances.max()), 3)], key
        assert row[6] == str(int((distances > THRESHOLD).sum())), key
        assert row[7] == _num(float(np.median(part["cosine"].to_numpy())), 3), key
        assert row[8] == str(part["cosine_failed"].sum()), key
    assert any(f"same person below a distance of {THRESHOLD:.2f}" in note for note in styled.notes)
    assert any("Detector mtcnn" in note for note in styled.notes)


def test_skin_tone_tables_show_the_stored_summary(planted: tuple[Path, Planted]) -> None:
    path, rows = planted
    with Report.open(path, None, CATALOG) as report:
        by_attribute, by_group = report.styled("audit_skin_attribute"), report.styled("audit_skin_group")
    summary = rows.skin_tone
    for row in by_attribute.texts():
        cell = summary.filter(summary="attribute", variation_value=row[0]).row(0, named=True)
        changes = rows.variations.filter(variation_value=row[0])["ita_change"].drop_nulls().to_numpy()
        assert row[1] == _num(cell["estimate"], 2)
        low, high = cell["ci_low"], cell["ci_high"]
        assert (
            row[2] == f"[{'+' if low >= 0 else ''}{_num(low, 2)}, {'+' if high >= 0 else ''}{_num(high, 2)}]"
        )
        assert row[4] == str(changes.size) and row[5] == str(int((np.abs(changes) > ITA_BOUND).sum()))
    assert len(by_attribute.rows) == rows.variations["variation_value"].n_unique()
    groups = summary.filter(pl.col("summary").is_in(["group", "difference"]), feature_key="(all)")
    assert len(by_group.rows) == groups.height
    kinds = set(by_group.groups)
    assert kinds == {"Each group, over every edit", "Each ethnicity minus all other faces"}
    assert any("ita_bound 8.0" in note for note in by_attribute.notes)


def test_notes_count_identity_and_skin_tone_changes(planted: tuple[Path, Planted]) -> None:
    path, rows = planted
    with Report.open(path, None, CATALOG) as report:
        identity, groups = report.styled("audit_face_identity"), report.styled("audit_skin_group")
    v = rows.variations
    off = v.filter((pl.col("base_faces") != 1) | (pl.col("variation_faces") != 1)).height
    distances = v["distance"].drop_nulls().to_numpy()
    changes = v["ita_change"].drop_nulls().to_numpy()
    counts = next(note for note in identity.notes if note.startswith("Of "))
    assert f"Of {v.height} audited variations, {off} had no face or several faces" in counts
    assert f"; {int((distances > THRESHOLD).sum())} of {distances.size} changed identity" in counts
    assert f"; {int((np.abs(changes) > ITA_BOUND).sum())} moved skin tone past the bound." in counts
    differences = rows.skin_tone.filter(summary="difference", feature_key="(all)")
    apart = differences.filter((pl.col("ci_low") > 0) | (pl.col("ci_high") < 0))
    assert 0 < apart.height < differences.height  # the planted changes set some groups apart, not all
    lines = [note for note in groups.notes if "against the other faces (95% CI" in note]
    assert len(lines) == apart.height
    for cell, line in zip(apart.sort("ethnicity").iter_rows(named=True), lines, strict=True):
        signed = f"{cell['estimate']:+.2f}".replace("-", "−")
        assert line.startswith(f"{cell['ethnicity']} faces: ΔITA° {signed} against the other faces")


def test_console_tables_print_the_face_tables_only_when_stored(
    planted: tuple[Path, Planted], raw_db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cueshift.render.cli import print_tables

    titles = [
        CATALOG.table(key).title.split(":")[0] for key in FACE_KEYS
    ]  # "Table A2. Edit audit, face models"
    print_tables(planted[0], CATALOG)
    with_faces = " ".join(capsys.readouterr().out.split())
    print_tables(raw_db, CATALOG)
    without = " ".join(capsys.readouterr().out.split())
    for title in titles:
        assert title in with_faces and title not in without


def _skin_texts(path: Path) -> dict[str, str]:
    """The skin tone tables' headers and notes, joined, by key."""
    with Report.open(path, None, CATALOG) as report:
        shown = {key: report.styled(key) for key in FACE_KEYS[1:]}
    return {key: " | ".join((*styled.labels, *styled.notes)) for key, styled in shown.items()}


def test_skin_tone_labels_say_the_level_the_audit_stored(raw_db: Path, tmp_path: Path) -> None:
    """Tables A3-A4 said "95% CI" whatever level computed their intervals; they now read the level
    audit_skin_tone records (rows written before the column existed: 95 %, the level they had)."""
    at_90, at_95 = tmp_path / "at_90.duckdb", tmp_path / "at_95.duckdb"
    for path in (at_90, at_95):
        shutil.copy(raw_db, path)
    narrow = plant(at_90, confidence_level=0.9).skin_tone.filter(summary="attribute")
    wide = plant(at_95).skin_tone.filter(summary="attribute")
    # the same face draws at two levels: the stored 90 % interval lies inside the 95 % one
    for (low, high), (wide_low, wide_high) in zip(
        narrow.select("ci_low", "ci_high").iter_rows(),
        wide.select("ci_low", "ci_high").iter_rows(),
        strict=True,
    ):
        assert wide_low <= low < high <= wide_high and (low, high) != (wide_low, wide_high)
    texts = _skin_texts(at_90)
    assert (
        "90% CI" in texts["audit_skin_attribute"]
        and "90% face-level percentile" in texts["audit_skin_attribute"]
    )
    assert "against the other faces (90% CI [" in texts["audit_skin_group"]
    assert not {key: text for key, text in texts.items() if "95%" in text}
    assert all("95% CI" in text for text in _skin_texts(at_95).values())
    with duckdb.connect(str(at_90)) as con:  # as an audit before the level was stored wrote it
        con.execute("UPDATE audit_skin_tone SET confidence_level = NULL")
    older = _skin_texts(at_90)
    assert all("95% CI" in text and "90%" not in text for text in older.values())
