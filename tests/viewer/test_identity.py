"""Identity preservation (``image_identity``) on the viewer's pages: each variation's cosine on its
face card and judgments page, below-threshold variations marked, and the counts on the overview."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from cueshift import store
from tests.viewer.conftest import Served, serve_in_thread
from tests.viewer.pages import page_html, tables

#: Variation -> (cosine with its base, robust z, outlier), as ``cueshift analyze`` would store them.
IDENTITY = {
    "f1_glasses": (0.953, 0.4, False),
    "f1_hat": (0.712, -4.1, True),
    "f2_glasses": (0.861, -0.9, False),
    "f2_hat": (0.799, -1.8, False),
}
MIN_IDENTITY = 0.8  # the latest analyze's --min-identity: f1_hat and f2_hat fall below it
ENCODER = "tiny-clip@default:float32"


def _build(path: Path, *, identity: bool) -> None:
    con = store.open_study(path)
    try:
        con.execute(
            "INSERT INTO scenario VALUES ('competent', 'sb25', 1, 'Competent', 'Incompetent', 'P', NULL)"
        )
        con.execute("INSERT INTO model VALUES ('sim', 'simulated', 'sim', NULL, '{}')")
        con.execute(
            "INSERT INTO run (run_id, study_name, shard, config, versions, started_at, n_planned) "
            "VALUES ('r1', 'q', '1/1', '{\"name\": \"q\", \"design\": \"stylisticbias\"}', '{}', "
            "TIMESTAMP '2026-01-01', 1)"
        )
        for face in ("f1", "f2"):
            con.execute("INSERT INTO face VALUES (?, 'demo', 'elderly', 'female', NULL, NULL, '{}')", [face])
            con.execute(
                "INSERT INTO image VALUES "
                "(?, ?, 'base', NULL, NULL, NULL, NULL, 'face', ?, 'x', 8, 8, true, NULL)",
                [f"{face}_base", face, f"{face}_base.png"],
            )
            for key, value in (("eyewear", "glasses"), ("headwear", "hat")):
                image_id = f"{face}_{value}"
                con.execute(
                    "INSERT INTO image VALUES "
                    "(?, ?, 'variation', ?, 'Accessories', ?, ?, 'face', ?, 'x', 8, 8, true, NULL)",
                    [image_id, face, f"{face}_base", key, value, f"{image_id}.png"],
                )
        con.execute(
            "INSERT INTO judgment (model_id, image_id, scenario_id, ordering, seed, response_text, "
            "outcome, chosen_letter, latency_ms, created_at, run_id) SELECT 'sim', image_id, 'competent', "
            "1, 0, '(a)', 'favorable', 'a', 1.0, TIMESTAMP '2026-01-01', 'r1' FROM image"
        )
        if identity:
            con.executemany(
                "INSERT INTO image_identity "
                "SELECT ?, image_id, base_image_id, feature_key, ?, ?, ? FROM image WHERE image_id = ?",
                [[ENCODER, cos, z, outlier, image_id] for image_id, (cos, z, outlier) in IDENTITY.items()],
            )
            con.execute(
                f"CREATE TABLE result_manifest AS SELECT 'sbs' AS analysis, {MIN_IDENTITY} AS min_identity"
            )
        else:
            con.execute("DROP TABLE image_identity")  # a database written before the table existed
    finally:
        con.close()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("identity")
    _build(folder / "study.duckdb", identity=True)
    yield from serve_in_thread(folder / "study.duckdb", folder / "thumbs")


def _page(served: Served, path: str, **params: str) -> str:
    return page_html(served.url, path, **params)


def _cards(html: str) -> dict[str, str]:
    """Each face card's HTML by its image id."""
    parts = re.split(r'<div class="card" data-image="', html)[1:]
    return {part.split('"', 1)[0]: part for part in parts}


def test_the_face_page_shows_each_variations_identity_cosine(served: Served) -> None:
    for face in ("f1", "f2"):
        cards = _cards(_page(served, "/face", id=face))
        assert "identity cos" not in cards[f"{face}_base"]  # a base has no cosine with itself
        for value in ("glasses", "hat"):
            card = cards[f"{face}_{value}"]
            cosine, z, outlier = IDENTITY[f"{face}_{value}"]
            below = cosine < MIN_IDENTITY
            assert f'data-cosine="{cosine:.4f}"' in card
            assert f"identity cos {cosine:.3f}, z {z:+.3f}".replace("-", "−") in card
            assert (f"below min-identity {MIN_IDENTITY:.2f}" in card) == below
            assert ('data-below="true"' in card) == below
            assert ("outlier</span>" in card) == outlier


def test_the_judgments_page_shows_the_images_identity(served: Served) -> None:
    html = _page(served, "/judgments", image="f2_hat", scenario="competent")
    assert 'data-cosine="0.7990"' in html and "below min-identity 0.80" in html
    assert "identity cos" not in _page(served, "/judgments", image="f2_base", scenario="competent")


def test_the_overview_counts_the_low_identity_variations(served: Served) -> None:
    html = _page(served, "/")
    row = tables(html)["identity-summary"][1]
    n_below = sum(cos < MIN_IDENTITY for cos, _, _ in IDENTITY.values())
    n_outliers = sum(outlier for _, _, outlier in IDENTITY.values())
    assert row[:4] == [ENCODER, "4", f"{n_below} (cosine < 0.80: left out of the analyses)", str(n_outliers)]
    assert row[4] == "0.712"


def test_a_database_without_identity_rows_shows_none(tmp_path: Path) -> None:
    _build(tmp_path / "study.duckdb", identity=False)
    for served in serve_in_thread(tmp_path / "study.duckdb", tmp_path / "thumbs"):
        assert 'id="identity"' not in _page(served, "/")
        assert "identity cos" not in _page(served, "/face", id="f1")
