"""Two models side by side (``/compare``): the stored paired differences per attribute and per
scenario, either way round, and the cells where the models disagree most, each number compared
with a direct DuckDB query of the study file (``result_model_differences``, the ``delta`` view)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlencode

import polars as pl

from tests.viewer.conftest import Served, serve_in_thread
from tests.viewer.pages import fetch, frame, signed, tables
from tests.viewer.test_identity import _build


def _page(served: Served, path: str, **params: str) -> tuple[int, str]:
    status, _, body = fetch(served.url + path + ("?" + urlencode(params) if params else ""))
    return status, body.decode()


def _stored(db: Path, level: str) -> pl.DataFrame:
    return frame(
        db,
        "SELECT variation_value, scenario_id, sbs_a, sbs_b, estimate, ci_low, ci_high, n "
        "FROM result_model_differences WHERE level = ? AND model_a = 'sim-a' AND model_b = 'sim-b'",
        [level],
    )


def _shown(html: str, key: str) -> dict[str, list[str]]:
    return {row[0]: row for row in tables(html)[f"tbl-compare-{key}"] if len(row) == 6}


def test_paired_differences_per_attribute_and_scenario(stylisticbias_server: Served) -> None:
    status, html = _page(stylisticbias_server, "/compare", a="sim-a", b="sim-b")
    assert status == 200
    assert 'id="filter-model"' not in html  # the page picks its two models; the header's filter is off
    assert 'id="filter-model"' in _page(stylisticbias_server, "/")[1]
    attributes = _stored(stylisticbias_server.db, "variation_value")
    shown = _shown(html, "attribute")
    assert attributes.height > 10 and len(shown) == attributes.height + 1  # + header
    for r in attributes.iter_rows(named=True):
        interval = f"[{signed(r['ci_low'])}, {signed(r['ci_high'])}]"
        row = shown[r["variation_value"]]
        assert row[1:3] == [signed(r["sbs_a"]), signed(r["sbs_b"])]
        assert row[3].startswith(signed(r["estimate"])) and row[4:] == [interval, str(r["n"])]
    scenarios = _stored(stylisticbias_server.db, "scenario")
    labels = dict(
        frame(
            stylisticbias_server.db, "SELECT scenario_id, favorable || ' / ' || unfavorable FROM scenario"
        ).rows()
    )
    shown = _shown(html, "scenario")
    assert scenarios.height == 5
    for r in scenarios.iter_rows(named=True):
        assert shown[labels[r["scenario_id"]]][3].startswith(signed(r["estimate"]))


def test_the_other_way_round_reverses_the_difference(stylisticbias_server: Served) -> None:
    _, html = _page(stylisticbias_server, "/compare", a="sim-b", b="sim-a")
    shown = _shown(html, "attribute")
    for r in _stored(stylisticbias_server.db, "variation_value").iter_rows(named=True):
        row = shown[r["variation_value"]]
        assert row[1:3] == [signed(r["sbs_b"]), signed(r["sbs_a"])]
        assert row[3].startswith(signed(-r["estimate"]))
        assert row[4] == f"[{signed(-r['ci_high'])}, {signed(-r['ci_low'])}]"


def test_the_faces_they_disagree_on_most(stylisticbias_server: Served) -> None:
    value = "Full beard"
    _, html = _page(stylisticbias_server, "/compare", a="sim-a", b="sim-b", value=value)
    expected = frame(
        stylisticbias_server.db,
        "SELECT a.image_id, a.base_image_id, a.scenario_id, a.phi_base AS pa, a.phi_variation AS va, "
        "b.phi_base AS pb, b.phi_variation AS vb, a.delta - b.delta AS d FROM delta AS a JOIN delta AS b "
        "USING (image_id, scenario_id) WHERE a.model_id = 'sim-a' AND b.model_id = 'sim-b' "
        "AND a.variation_value = ? AND a.delta IS NOT NULL AND b.delta IS NOT NULL",
        [value],
    )
    cards = re.findall(
        r'<div class="example disagreement" data-image="([^"]+)" data-scenario="([^"]+)">(.*?)judgments →',
        html,
        re.S,
    )
    assert len(cards) == min(12, expected.height) > 0
    largest = expected["d"].abs().max()
    sizes = []
    for image_id, scenario_id, card in cards:
        row = expected.filter((pl.col("image_id") == image_id) & (pl.col("scenario_id") == scenario_id)).row(
            0, named=True
        )
        assert (
            f'src="/image/{row["base_image_id"]}?w=160"' in card and f'src="/image/{image_id}?w=160"' in card
        )
        cells = re.findall(r"<td>([^<]*)</td>", card)
        assert cells == [
            "sim-a",
            f"{row['pa']:.3f}",
            f"{row['va']:.3f}",
            "sim-b",
            f"{row['pb']:.3f}",
            f"{row['vb']:.3f}",
        ]
        assert f'<span class="value">{signed(row["d"])}</span>' in card
        sizes.append(abs(row["d"]))
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == largest


def test_bad_picks_and_a_single_model(stylisticbias_server: Served, tmp_path: Path) -> None:
    assert _page(stylisticbias_server, "/compare", a="sim-a", b="sim-a")[0] == 400
    assert _page(stylisticbias_server, "/compare", a="sim-a", b="nope")[0] == 404
    _build(tmp_path / "study.duckdb", identity=False)  # one model
    for served in serve_in_thread(tmp_path / "study.duckdb", tmp_path / "thumbs"):
        status, html = _page(served, "/compare")
        assert status == 200
        assert "This study has 1 model: comparing needs at least two." in html
        assert 'id="nav-compare"' not in _page(served, "/")[1]


def test_all_attributes_leave_the_placebos_out(stylisticbias_server: Served) -> None:
    _, html = _page(stylisticbias_server, "/compare", a="sim-a", b="sim-b")
    shown = re.findall(
        r'<div class="example disagreement" data-image="([^"]+)" data-scenario="([^"]+)"', html
    )
    cells = frame(
        stylisticbias_server.db,
        "SELECT a.image_id, a.scenario_id, a.feature_key, abs(a.delta - b.delta) AS d FROM delta AS a "
        "JOIN delta AS b USING (image_id, scenario_id) WHERE a.model_id = 'sim-a' AND b.model_id = 'sim-b' "
        "AND a.delta IS NOT NULL AND b.delta IS NOT NULL",
    )
    placebo = cells.filter(pl.col("feature_key") == "placebo")
    assert placebo.height > 0 and len(shown) == 12
    keys = set(zip(cells["image_id"], cells["scenario_id"], strict=True))
    assert all(cell in keys for cell in shown)
    assert not set(shown) & set(zip(placebo["image_id"], placebo["scenario_id"], strict=True))
    largest = cells.filter(pl.col("feature_key") != "placebo")["d"].max()
    first = cells.filter((pl.col("image_id") == shown[0][0]) & (pl.col("scenario_id") == shown[0][1]))
    assert first["d"][0] == largest
