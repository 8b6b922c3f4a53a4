"""The viewer's interval labels say the level of the numbers they head (D63): a study analysed at
90 % reads "90% CI" on every stored interval (result_sbs, result_table11, result_noise_floor,
result_model_differences, result_probe_baselines, the design's declared pages), never "95% CI";
intervals the viewer computes on the rows in view say its own level, from the number it computes
them at; a database whose manifest does not record the level reads as 95 %."""

from __future__ import annotations

import inspect
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats as st

from cueshift.designs.probe.viewer_pages import humans_page
from cueshift.designs.viewer_support import PageRequest
from cueshift.stats import cluster_bootstrap, group_difference_interval
from cueshift.viewer.face_models import SKIN_TONE_LEVEL
from cueshift.viewer.source import open_source
from tests.designs.report_db import shared_analysed_study
from tests.viewer.conftest import STUDIES, Served, cueshift, serve_in_thread
from tests.viewer.pages import delta_frame, page_html, signed, tables

#: A 95 % interval label: "95% CI", "95% interval", "at 95%" (not "95th percentile").
_NINETY_FIVE = re.compile(r"95\s?%")
#: A label's level: "90% CI" → 90.
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)% CI")


def _text(table: list[list[str]]) -> str:
    """A page table's words around its numbers: title, headers, group rows and notes (no data row)."""
    return " | ".join(cell for i, row in enumerate(table) if i < 2 or len(row) == 1 for cell in row)


def _stored_tables(served: Served) -> dict[str, str]:
    """The text of every table of the analysed study that shows a stored interval, by page and key."""
    value = "Acne"
    pages = {
        "overview": page_html(served.url, "/"),
        "attribute": page_html(served.url, "/attribute", value=value),
        "compare": page_html(served.url, "/compare", a="m1", b="m2"),
        "noise-floor": page_html(served.url, "/design/stylisticbias/noise-floor"),
    }
    found = {
        f"{name}/{key}": _text(rows) for name, html in pages.items() for key, rows in tables(html).items()
    }
    keys = (
        "overview/tbl-ranking",
        "overview/tbl-noise-floor",
        "attribute/tbl-scenarios",
        "attribute/tbl-groups",
    )
    shown = {key: found[key] for key in keys}
    shown |= {
        key: text
        for key, text in found.items()
        if key.startswith(("compare/tbl-compare-", "noise-floor/tbl-"))
    }
    assert len(shown) >= 7, sorted(found)
    return shown


@pytest.fixture(scope="module")
def served_at_90(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The simulated StylisticBias study (two models, placebos) analysed at 90 %, served."""
    db = shared_analysed_study(tmp_path_factory, confidence_level=0.9)
    yield from serve_in_thread(db, db.parent / "thumbs")


@pytest.fixture(scope="module")
def served_unrecorded(served_at_90: Served, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The same results with the manifest of an older cueshift (no ``confidence_level`` column)."""
    folder = tmp_path_factory.mktemp("viewer-unrecorded")
    db = Path(shutil.copy(served_at_90.db, folder / "study.duckdb"))
    with duckdb.connect(str(db)) as con:
        con.execute("ALTER TABLE result_manifest DROP COLUMN confidence_level")
    yield from serve_in_thread(db, folder / "thumbs")


def test_stored_intervals_say_the_level_analyze_used(served_at_90: Served) -> None:
    with duckdb.connect(str(served_at_90.db), read_only=True) as con:
        levels = con.execute("SELECT DISTINCT confidence_level FROM result_manifest").fetchall()
    assert levels == [(0.9,)]
    shown = _stored_tables(served_at_90)
    for key, text in shown.items():
        assert "90%" in text, key
        assert not _NINETY_FIVE.search(text), (key, text)
    assert "Morris's 90% interval" in shown["attribute/tbl-groups"]
    assert "BCa 90% CI" in shown["overview/tbl-ranking"]


@pytest.fixture(scope="module")
def served_percentile(served_at_90: Served, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """The same results as if ``analyze --ci percentile --test permutation`` had made them."""
    folder = tmp_path_factory.mktemp("viewer-percentile")
    db = Path(shutil.copy(served_at_90.db, folder / "study.duckdb"))
    with duckdb.connect(str(db)) as con:
        con.execute("UPDATE result_manifest SET ci_method = 'percentile', test = 'permutation'")
    yield from serve_in_thread(db, folder / "thumbs")


def test_stored_notes_name_the_interval_method_and_test_analyze_used(
    served_at_90: Served, served_percentile: Served
) -> None:
    """The note under stored SBS said "BCa …; Wilcoxon signed-rank" whatever ``analyze`` ran."""
    for served, words in (
        (served_at_90, "BCa 90% CI; Wilcoxon signed-rank p"),
        (served_percentile, "percentile 90% CI; sign-flip permutation p"),
    ):
        shown = _stored_tables(served)
        assert words in shown["overview/tbl-ranking"], shown["overview/tbl-ranking"]
        assert words in shown["attribute/tbl-scenarios"], shown["attribute/tbl-scenarios"]
    floor = " ".join(
        text for key, text in _stored_tables(served_percentile).items() if key.startswith("noise-floor/")
    )
    assert "one-sided sign-flip permutation test" in floor and "Wilcoxon" not in floor, floor


def test_a_manifest_without_the_level_reads_as_95(served_unrecorded: Served) -> None:
    shown = _stored_tables(served_unrecorded)
    for key, text in shown.items():
        assert "95%" in text and "90%" not in text, key


def test_computed_intervals_say_the_level_they_are_computed_at(served_at_90: Served) -> None:
    """The placebos and a narrowed ranking are the viewer's own t intervals: their header says the
    level the printed interval has (scipy's t interval over the faces' mean Δ at that level)."""
    narrowed = tables(page_html(served_at_90.url, "/", category="Behavioral"))["tbl-ranking"]
    found = tables(page_html(served_at_90.url, "/"))
    placebos = found["tbl-placebos"]
    for table in (narrowed, placebos):
        (percent,) = {m for cell in table[1] for m in _PERCENT.findall(cell)}
        assert f"Computed by the viewer at {percent}%" in _text(table)
        assert "90%" not in _text(table)
    level = float(percent) / 100
    column = next(i for i, cell in enumerate(placebos[1]) if _PERCENT.search(cell))
    delta = delta_frame(served_at_90.db).filter(pl.col("feature_key") == "placebo")
    rows = {row[1]: row[column] for row in placebos[2:] if len(row) > column}
    assert len(rows) == 2
    for value, shown in rows.items():
        placebo = delta.filter(pl.col("variation_value") == value)
        faces = placebo.group_by("face_id").agg(pl.col("delta").mean())["delta"].to_numpy()
        half = st.t.ppf(0.5 + level / 2, len(faces) - 1) * faces.std(ddof=1) / np.sqrt(len(faces))
        assert shown == f"[{signed(faces.mean() - half)}, {signed(faces.mean() + half)}]", value


def test_the_skin_tone_label_is_the_level_the_audit_computes_at() -> None:
    """``cueshift audit`` computes audit_skin_tone at the face bootstraps' default level."""
    for function in (cluster_bootstrap, group_difference_interval):
        assert inspect.signature(function).parameters["confidence_level"].default == SKIN_TONE_LEVEL


@pytest.fixture(scope="module")
def probe_at_90(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The viewer tests' probe study with ``[probe] confidence = 0.9``, and a random twin pasted
    into one attribute's rows (the simulated judges have none)."""
    folder = tmp_path_factory.mktemp("probe-level90")
    text = (STUDIES / "probe.toml").read_text()
    study = folder / "probe.toml"
    study.write_text(text.replace("[probe]\n", "[probe]\nconfidence = 0.9\n", 1))
    cueshift("infer", "--study", str(study), "--db", "study.duckdb", "--no-progress", cwd=folder)
    # the study's own n_splits (10) random rater splits and twin_resamples (100): the labels'
    # level does not depend on the counts
    cueshift("analyze", "--study", str(study), "--db", "study.duckdb", "--no-progress", cwd=folder)
    db = folder / "study.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute(
            "UPDATE result_probe_baselines SET random_similarity = 0.1, twin_difference = similarity - 0.1, "
            "twin_low = similarity - 0.3, twin_high = similarity + 0.1, twin_p_adj = 0.2, "
            "twin_partial_difference = 0.05, twin_partial_low = -0.1, twin_partial_high = 0.2, "
            "twin_partial_p_adj = 0.4, verdict = 'not above its twin' WHERE attribute = 'happy'"
        )
    return db


def test_the_probe_twin_intervals_say_the_stored_level(probe_at_90: Path) -> None:
    source = open_source(probe_at_90)
    try:
        _, context = humans_page(source.cursor(), PageRequest({"attribute": "happy"}, has=source.has))
    finally:
        source.close()
    rows = tables(context["twin_table"])["tbl-probe-twin"]
    text = _text(rows)
    assert any("not above its twin" in row for row in rows)
    assert [cell for cell in rows[1] if "CI" in cell] == ["90% CI", "90% CI"]
    assert "bootstrap 90% interval" in text and not _NINETY_FIVE.search(text)
