"""How the pages show numbers: rounded at render time, booleans as words, the noise floor summarised
on the overview and in full on its own page, example faces labelled by direction and size."""

from __future__ import annotations

import re

import polars as pl
import pytest

from cueshift.viewer.summaries import examples
from tests.viewer.conftest import Served
from tests.viewer.pages import RAW_BOOLEAN, RAW_FLOAT, delta_frame, fetch, frame, signed, tables, visible_text

FLOOR_PAGE = "/design/stylisticbias/noise-floor"


def _page(served: Served, path: str) -> str:
    status, _, body = fetch(served.url + path)
    assert status == 200, body[:500]
    return body.decode()


@pytest.mark.parametrize(
    "path", ["/", "/?model=sim-a", "/?category=Socioeconomic+%26+Appearance", FLOOR_PAGE]
)
def test_pages_show_rounded_numbers_and_words(stylisticbias_server: Served, path: str) -> None:
    text = visible_text(_page(stylisticbias_server, path))
    assert "Noise floor" in text
    assert not RAW_FLOAT.findall(text), RAW_FLOAT.findall(text)[:5]
    assert not RAW_BOOLEAN.findall(text), RAW_BOOLEAN.findall(text)[:5]


def test_overview_summarises_the_stored_floor_and_links_the_full_tables(stylisticbias_server: Served) -> None:
    db = stylisticbias_server.db
    html = _page(stylisticbias_server, "/")
    found = tables(html)
    # only the models table, the ranking, the placebos in view and the floor summary: no raw dumps
    assert {k for k in found if k.startswith("tbl-")} == {
        "tbl-models",
        "tbl-ranking",
        "tbl-placebos",
        "tbl-noise-floor",
    }
    floor = frame(
        db,
        "SELECT model_id, estimate, ci_low, ci_high, abs_sbs_mean FROM result_noise_floor "
        "WHERE variation_value = '(all placebos)'",
    )
    passes = frame(db, "SELECT model_id, passes FROM result_noise_floor_attributes")
    rows = {r[0]: r for r in found["tbl-noise-floor"][2:-1]}
    assert len(rows) == floor.height == 3
    for r in floor.iter_rows(named=True):
        name = "Pooled over models" if r["model_id"] == "(pooled)" else r["model_id"]
        mine = passes.filter(pl.col("model_id") == r["model_id"])["passes"]
        assert rows[name][1:4] == [signed(r["estimate"]), f"[{signed(r['ci_low'])}, {signed(r['ci_high'])}]",
                                   f"{r['abs_sbs_mean']:.3f}"]  # fmt: skip
        assert rows[name][6] == f"{mine.sum()} of {mine.len()}"
    assert f'href="{FLOOR_PAGE}"' in html


def test_floor_page_lists_attributes_largest_first(stylisticbias_server: Served) -> None:
    db = stylisticbias_server.db
    found = tables(_page(stylisticbias_server, FLOOR_PAGE + "?model=sim-b"))
    rows = found["tbl-noise_floor_attributes"]
    stored = frame(
        db,
        "SELECT model_id, variation_value, abs_sbs, passes FROM result_noise_floor_attributes "
        "WHERE model_id IN ('(pooled)', 'sim-b')",
    )
    groups: dict[str, list[list[str]]] = {}
    current = ""
    for row in rows[2:-1]:
        if len(row) == 1:
            current = row[0]
            groups[current] = []
        else:
            groups[current].append(row)
    assert list(groups) == ["Pooled over models", "sim-b"]
    for label, model in (("Pooled over models", "(pooled)"), ("sim-b", "sim-b")):
        mine = stored.filter(pl.col("model_id") == model)
        shown = groups[label]
        assert sorted(r[0] for r in shown) == sorted(mine["variation_value"])
        magnitudes = [float(r[1]) for r in shown]
        assert magnitudes == sorted(magnitudes, reverse=True)
        pairs = zip(mine["variation_value"], mine["passes"], strict=True)
        expected = {v: "yes" if p else "no" for v, p in pairs}
        assert {r[0]: r[-1] for r in shown} == expected


def test_example_faces_are_labelled_by_direction_on_planted_shifts() -> None:
    # planted: the largest shift in magnitude is a decrease; the highest Δ is a smaller increase
    planted = pl.DataFrame({"image_id": ["up", "mid", "flat", "down"], "delta": [0.043, 0.01, 0.0, -0.1]})
    picks = dict(zip(examples(planted)["pick"], examples(planted)["image_id"], strict=True))
    assert picks == {"largest increase": "up", "median": "mid", "largest decrease": "down"}
    # every face moved the same way: the extremes say so
    same_way = pl.DataFrame({"image_id": ["a", "b", "c"], "delta": [-0.01, -0.05, -0.2]})
    assert examples(same_way)["pick"].to_list() == ["smallest decrease", "median", "largest decrease"]
    rising = pl.DataFrame({"image_id": ["a", "b"], "delta": [0.3, 0.02]})
    assert examples(rising)["pick"].to_list() == ["largest increase", "smallest increase"]


def test_attribute_page_labels_match_the_faces_shifts(stylisticbias_server: Served) -> None:
    html = _page(stylisticbias_server, "/attribute?value=Gray")
    cards = re.findall(r'data-pick="([^"]+)" data-image="([^"]+)"', html)
    per_image = dict(
        delta_frame(stylisticbias_server.db)
        .filter(pl.col("variation_value") == "Gray")
        .group_by("image_id")
        .agg(pl.col("delta").mean())
        .iter_rows()
    )
    assert len(cards) == 3 and cards[1][0] == "median"
    (top, high), (bottom, low) = (cards[0][0], per_image[cards[0][1]]), (cards[2][0], per_image[cards[2][1]])
    assert high == max(per_image.values()) and low == min(per_image.values())
    assert top == ("largest increase" if high > 0 else "smallest decrease")
    assert bottom == ("largest decrease" if low < 0 else "smallest increase")
    assert "smallest shift" not in visible_text(html) and "largest shift" not in visible_text(html)
