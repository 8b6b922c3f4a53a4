"""The face models of the edit audit in the viewer: the overview's face-recognition identity beside
CLIP's, the detector's findings and the skin tone tables; an attribute's skin tone; each face
card's face-model measures; nothing at all for a study without face-model rows.

The rows are planted (tests/audit/planted_face_models.py) into a copy of the tiny analysed study;
every expectation is computed in Python from what was planted or read from the stored summary.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest

from cueshift.viewer import face_models
from cueshift.viewer.source import open_source
from tests.audit.planted_face_models import ITA_BOUND, THRESHOLD, Planted, plant
from tests.viewer.conftest import Served, serve_in_thread
from tests.viewer.pages import page_html, tables


def _page(served: Served, path: str, **params: str) -> str:
    return page_html(served.url, path, **params)


def _signed(value: float) -> str:
    return f"{value:+.2f}".replace("-", "−")


def _interval(low: float | None, high: float | None) -> str:
    return "–" if low is None or high is None else f"[{_signed(low)}, {_signed(high)}]"


@pytest.fixture(scope="module")
def served(
    stylisticbias_db: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Served, Planted]]:
    folder = tmp_path_factory.mktemp("face-models")
    db = folder / "study.duckdb"
    shutil.copy(stylisticbias_db, db)
    shutil.copytree(stylisticbias_db.parent / ".cueshift-cache", folder / ".cueshift-cache")
    planted = plant(db, per_value=4)
    assert planted.variations.height == 8
    for running in serve_in_thread(db, folder / "thumbs"):
        yield running, planted


def test_overview_shows_face_recognition_beside_clip(served: tuple[Served, Planted]) -> None:
    server, planted = served
    html = _page(server, "/")
    assert 'id="face-models"' in html and 'id="edit-audit"' in html
    v = planted.variations
    distances = v["distance"].drop_nulls().to_numpy()
    changes = v["ita_change"].drop_nulls().to_numpy()
    header, row = tables(html)["face-identity"]
    assert header[0] == "Detector" and len(row) == len(header)
    expected = [
        "mtcnn",
        str(v.height),
        str(v.filter((pl.col("base_faces") == 0) | (pl.col("variation_faces") == 0)).height),
        str(v.filter((pl.col("base_faces") > 1) | (pl.col("variation_faces") > 1)).height),
        "dlib-resnet",
        str(distances.size),
        f"{int((distances > THRESHOLD).sum())} (distance > {THRESHOLD:.2f})",
        f"{np.median(distances):.3f}",
        f"{distances.max():.3f}",
        str(int((np.abs(changes) > ITA_BOUND).sum())),
    ]
    assert row == expected


def test_overview_skin_tone_tables_hold_the_stored_summary(served: tuple[Served, Planted]) -> None:
    server, planted = served
    shown = tables(_page(server, "/"))
    summary = planted.skin_tone
    groups = [r for r in shown["tbl-skin-groups"] if len(r) == 5 and r[0] != "Ethnicity / gender"]
    expected = summary.filter(pl.col("summary").is_in(["group", "difference"]), feature_key="(all)")
    assert len(groups) == expected.height
    for cell in expected.filter(summary="difference").iter_rows(named=True):
        row = next(r for r in groups if r[0] == cell["ethnicity"])
        assert row[1] == _signed(cell["estimate"]) and row[2] == _interval(cell["ci_low"], cell["ci_high"])
        assert row[3:] == [str(cell["n_faces"]), str(cell["n_edits"])]
    attributes = [r for r in shown["tbl-skin-attributes"] if len(r) == 5 and r[0] != "Attribute"]
    assert sorted(r[0] for r in attributes) == sorted(planted.variations["variation_value"].unique())
    for row in attributes:
        changes = planted.variations.filter(variation_value=row[0])["ita_change"].drop_nulls().to_numpy()
        assert row[1] == _signed(float(np.mean(changes)))  # one edit per face and value: the face means
        assert row[4] == str(changes.size)


def test_attribute_page_shows_its_skin_tone(served: tuple[Served, Planted]) -> None:
    server, planted = served
    value = str(planted.variations["variation_value"][0])
    rows = [r for r in tables(_page(server, "/attribute", value=value))["tbl-skin-value"] if len(r) == 5]
    cell = planted.skin_tone.filter(summary="attribute", variation_value=value).row(0, named=True)
    every = next(r for r in rows if r[0] == "every face")
    assert every[1:3] == [_signed(cell["estimate"]), _interval(cell["ci_low"], cell["ci_high"])]
    groups = planted.skin_tone.filter(summary="group", variation_value=value)
    assert len([r for r in rows if " / " in r[0]]) == groups.height > 0


def test_face_cards_list_the_face_model_measures(served: tuple[Served, Planted]) -> None:
    server, planted = served
    measured = planted.variations.filter(pl.col("distance").is_not_null()).row(0, named=True)
    html = _page(server, "/face", id=measured["face_id"])
    card = html.split(f'data-image="{measured["image_id"]}"', 1)[1]
    assert f'data-measure="face_identity_distance" data-difference="{measured["distance"]:.4f}"' in card
    item = card.split('data-measure="face_identity_distance"', 1)[1].split("</li>", 1)[0]
    assert f"diff {measured['distance']:+.3f}" in item and f"bound {THRESHOLD:.3f}" in item


def test_a_study_without_face_models_shows_none(stylisticbias_server: Served) -> None:
    overview = _page(stylisticbias_server, "/")
    assert 'id="face-models"' not in overview and "skin-groups" not in overview
    value = next(iter(stylisticbias_server.viewer.menus.attributes))
    assert "skin-value" not in _page(stylisticbias_server, "/attribute", value=value)


def _skin_texts(db: Path, value: str) -> dict[str, str]:
    """The words (headers and notes, no data row) of the three skin tone tables the viewer builds."""
    source = open_source(db)
    try:
        con = source.cursor()
        found = face_models.summary(con)
        value_html = face_models.of_value(con, value)
    finally:
        source.close()
    assert found is not None and value_html is not None
    shown = {**tables(str(found["groups"])), **tables(str(found["attributes"])), **tables(value_html)}
    return {
        key: " | ".join(cell for i, row in enumerate(rows) if i < 2 or len(row) == 1 for cell in row)
        for key, rows in shown.items()
    }


def test_skin_tone_labels_say_the_level_the_audit_stored(stylisticbias_db: Path, tmp_path: Path) -> None:
    """The pages headed audit_skin_tone's intervals with the constant the audit defaults to (95 %),
    not the level the table stores (D71): intervals computed at 90 % said "95% CI"."""
    db = Path(shutil.copy(stylisticbias_db, tmp_path / "study.duckdb"))
    planted = plant(db, per_value=4, confidence_level=0.9)
    with duckdb.connect(str(db), read_only=True) as con:
        stored = con.execute("SELECT DISTINCT confidence_level FROM audit_skin_tone").fetchall()
    assert stored == [(0.9,)]
    value = str(planted.variations["variation_value"][0])
    texts = _skin_texts(db, value)
    assert set(texts) == {"tbl-skin-groups", "tbl-skin-attributes", "tbl-skin-value"}
    for key, text in texts.items():
        assert "90% CI" in text and "90% face-level bootstrap interval" in text, (key, text)
        assert not re.search(r"95\s?%", text), (key, text)
    # a file written before the level was stored (no column: NULL in memory) reads 95 %, its level
    with duckdb.connect(str(db)) as con:
        con.execute("ALTER TABLE audit_skin_tone DROP COLUMN confidence_level")
    for key, text in _skin_texts(db, value).items():
        assert "95% CI" in text and "90%" not in text, (key, text)
