"""The other designs' databases: pairwise trials, paired original vs filtered, probe vs humans."""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np
import polars as pl
import pytest

from tests.viewer.conftest import Served, serve_in_thread
from tests.viewer.pages import RAW_BOOLEAN, RAW_FLOAT, fetch, frame, tables, visible_text


@pytest.fixture(scope="module")
def pairwise_server(pairwise_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serve_in_thread(pairwise_db, tmp_path_factory.mktemp("thumbs"))


@pytest.fixture(scope="module")
def paired_server(paired_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serve_in_thread(paired_db, tmp_path_factory.mktemp("thumbs"))


@pytest.fixture(scope="module")
def probe_server(probe_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    yield from serve_in_thread(probe_db, tmp_path_factory.mktemp("thumbs"))


def _html(url: str) -> str:
    status, _, body = fetch(url)
    assert status == 200, body[:400]
    return body.decode()


def _moved(url: str) -> tuple[int, str]:
    """The status and ``Location`` of ``url``, the redirect not followed."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=60)
    try:
        connection.request("GET", f"{parts.path}?{parts.query}" if parts.query else parts.path)
        response = connection.getresponse()
        return response.status, response.getheader("location") or ""
    finally:
        connection.close()


def test_design_pages_are_served_from_the_design_and_old_routes_redirect(
    pairwise_server: Served, probe_server: Served
) -> None:
    overview = _html(pairwise_server.url + "/")
    assert 'href="/design/pairwise/trials" id="nav-design-pairwise-trials">Pairwise trials</a>' in overview
    assert _moved(pairwise_server.url + "/pairwise?model=sim-strong&page=1") == (
        301,
        "/design/pairwise/trials?model=sim-strong&page=1",
    )
    new, old = (_html(pairwise_server.url + path) for path in ("/design/pairwise/trials", "/pairwise"))
    assert new == old and 'action="/design/pairwise/trials"' in new
    assert _moved(probe_server.url + "/probe") == (301, "/design/probe/humans")
    assert 'id="nav-design-probe-humans"' in _html(probe_server.url + "/")
    status, _, body = fetch(probe_server.url + "/pairwise")  # another design's page: the one-line 404
    assert status == 404 and b"declares no such page" in body


def test_pairwise_trials_show_both_images_and_the_choice(pairwise_server: Served) -> None:
    db = pairwise_server.db
    assert pairwise_server.viewer.source.design == "pairwise"
    overview = tables(_html(pairwise_server.url + "/"))["tbl-models"]
    trials = frame(db, "SELECT model_id, count(*) AS n FROM pairwise_trial GROUP BY 1")
    for row in trials.iter_rows(named=True):
        assert any(r[0] == row["model_id"] and f"{row['n']:,}" in r for r in overview)
    cohort = str(frame(db, "SELECT min(cohort) AS c FROM stimulus")["c"][0])
    html = _html(f"{pairwise_server.url}/pairwise?model=sim-strong&cohort={cohort.replace(' ', '%20')}")
    expected = frame(
        db,
        "SELECT t.* FROM pairwise_trial AS t JOIN stimulus AS s ON s.image_id = t.left_image_id "
        "WHERE t.model_id = 'sim-strong' AND s.cohort = ? ORDER BY left_image_id, right_image_id, seed",
        [cohort],
    )
    rows = tables(html)["trials"][1:]
    assert len(rows) == expected.height > 0
    assert f'<span id="n-trials">{expected.height}</span>' in html
    first = expected.row(0, named=True)
    assert (
        f"/image/{first['left_image_id']}?w=96" in html and f"/image/{first['right_image_id']}?w=96" in html
    )
    chosen = expected.filter(pl.col("winner_image_id").is_not_null()).height
    assert html.count('class="chosen"') == chosen
    status, headers, _ = fetch(f"{pairwise_server.url}/image/{first['left_image_id']}?w=96")
    assert status == 200 and headers["content-type"] == "image/jpeg"


def test_paired_face_shows_original_and_filtered(paired_server: Served) -> None:
    db = paired_server.db
    identity = str(frame(db, "SELECT min(face_id) AS i FROM image")["i"][0])
    html = _html(f"{paired_server.url}/face?id={identity}")
    images = frame(db, "SELECT image_id, role FROM image WHERE face_id = ? ORDER BY role", [identity])
    assert images["role"].to_list() == ["base", "variation"]
    for image_id, role in images.iter_rows():
        assert f'data-image="{image_id}" data-role="{role}"' in html
    phi = frame(db, "SELECT count(*) AS n FROM phi JOIN image USING (image_id) WHERE face_id = ?", [identity])
    shown = tables(html)
    cells = sum(len(r) - 1 for key, t in shown.items() if key.startswith("tbl-phi") for r in t[2:-1])
    assert cells == phi["n"][0]
    attribute = _html(f"{paired_server.url}/attribute?value=Beautified")
    assert 'data-pick="median"' in attribute and "Δ per scenario" in attribute


def test_probe_scatter_against_human_means(probe_server: Served) -> None:
    db = probe_server.db
    html = _html(f"{probe_server.url}/probe?attribute=attractive&model=sim-80m")
    points = frame(
        db,
        "SELECT p.image_id, coalesce(p.phi_expected, p.phi) AS score, h.human FROM phi AS p JOIN "
        "(SELECT image_id, avg(rating) AS human FROM rating "
        " WHERE rater_kind = 'human' AND attribute = 'attractive' GROUP BY 1) AS h USING (image_id) "
        "WHERE p.model_id = 'sim-80m' AND p.scenario_id = 'attractive'",
    )
    assert html.count("<circle") == points.height > 2
    r = float(np.corrcoef(points["score"].to_numpy(), points["human"].to_numpy())[0, 1])
    (row,) = [r for r in tables(html)["tbl-probe-r"] if r and r[0] == "sim-80m"]
    assert row[1] == f"{r:.3f}" and row[2] == str(points.height)


@pytest.mark.parametrize(
    ("server", "paths"),
    [
        ("pairwise_server", ["/", "/design/pairwise/trials"]),
        ("probe_server", ["/", "/design/probe/humans"]),
        ("paired_server", ["/", "/attribute?value=Beautified"]),
    ],
)
def test_pages_show_rounded_numbers_and_words(
    request: pytest.FixtureRequest, server: str, paths: list[str]
) -> None:
    served: Served = request.getfixturevalue(server)
    for path in paths:
        text = visible_text(_html(served.url + path))
        assert not RAW_FLOAT.findall(text), (path, RAW_FLOAT.findall(text)[:5])
        assert not RAW_BOOLEAN.findall(text), (path, RAW_BOOLEAN.findall(text)[:5])
