"""The pages over HTTP: every number checked against the study database, the safety rules, the 404s."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import polars as pl
import pytest

from tests.viewer.conftest import Served
from tests.viewer.pages import delta_frame, face_means, fetch, frame, page_html, scalar, signed, tables


def _page(served: Served, path: str, **params: str) -> str:
    return page_html(served.url, path, **params)


def test_overview_counts_and_stored_ranking(stylisticbias_server: Served) -> None:
    db = stylisticbias_server.db
    found = tables(_page(stylisticbias_server, "/"))
    models = {row[0]: row for row in found["tbl-models"][2:]}
    counts = frame(db, "SELECT model_id, count(*) AS n, count(*) FILTER (WHERE outcome = 'invalid') AS bad "
                       "FROM judgment GROUP BY 1")  # fmt: skip
    assert set(models) == set(counts["model_id"]) == {"sim-a", "sim-b"}
    for row in counts.iter_rows(named=True):
        assert models[row["model_id"]][3] == f"{row['n']:,}"
        assert models[row["model_id"]][4] == f"{100 * row['bad'] / row['n']:.1f}%"
    ranking = found["tbl-ranking"][2:-1]  # title, header ... source note
    stored = frame(
        db,
        "SELECT variation_value, estimate, abs_sbs FROM result_sbs WHERE level = 'variation_value' "
        "AND model_id = '(pooled)' AND dimension IS NULL ORDER BY abs_sbs DESC, variation_value",
    )
    assert [r[1] for r in ranking] == stored["variation_value"].to_list()
    assert [r[2] for r in ranking] == [signed(v) for v in stored["estimate"]]
    assert [r[4] for r in ranking] == [f"{v:.3f}" for v in stored["abs_sbs"]]


def test_narrowed_ranking_is_computed_on_the_rows_in_view(stylisticbias_server: Served) -> None:
    html = _page(
        stylisticbias_server, "/", category="Socioeconomic & Appearance", group="gender:female", model="sim-b"
    )
    rows = tables(html)["tbl-ranking"][2:-1]
    delta = delta_frame(stylisticbias_server.db).filter(
        (pl.col("scenario_category") == "Socioeconomic & Appearance")
        & (pl.col("gender") == "female")
        & (pl.col("model_id") == "sim-b")
    )
    placebo = pl.col("feature_key") == "placebo"
    expected = face_means(delta.filter(~placebo), ["variation_value"])
    by_value = {r["variation_value"]: r for r in expected.iter_rows(named=True)}
    assert len(rows) == expected.height > 5
    for row in rows:
        assert row[2] == signed(by_value[row[1]]["estimate"])
        assert row[5] == str(by_value[row[1]]["n"])
    assert "Computed by the viewer" in html
    # the placebos are summarised apart, the same way (noise floor; docs/decisions.md#d1)
    floor = face_means(delta.filter(placebo), ["variation_value"]).sort("variation_value")
    shown = sorted(tables(html)["tbl-placebos"][2:-1])
    assert [r[1] for r in shown] == floor["variation_value"].to_list()
    assert floor["variation_value"].to_list() == ["Identical copy", "Lossless re-encode"]
    assert [r[2] for r in shown] == [signed(v) for v in floor["estimate"]]


def test_placebos_are_shown_apart_from_the_variations(stylisticbias_server: Served) -> None:
    db = stylisticbias_server.db
    placebos = {"Identical copy", "Lossless re-encode"}
    assert set(frame(db, "SELECT DISTINCT variation_value FROM delta WHERE feature_key = 'placebo'")[
        "variation_value"]) == placebos  # fmt: skip
    html = _page(stylisticbias_server, "/")
    found = tables(html)
    assert not placebos & {r[1] for r in found["tbl-ranking"][2:-1]}
    assert {r[1] for r in found["tbl-placebos"][2:-1]} == placebos
    assert html.index('id="ranking"') < html.index("<h2>Noise floor") < html.index('id="placebos"')
    face = str(scalar(db, "SELECT min(face_id) FROM image WHERE feature_key = 'placebo'"))
    page = _page(stylisticbias_server, "/face", id=face)
    cards = page.split('class="card"')[1:]
    roles = [c.split('data-role="')[1].split('"')[0] for c in cards]
    assert roles[0] == "base" and roles[-2:] == ["placebo", "placebo"] and "placebo" not in roles[1:-2]
    assert all('class="badge placebo"' in c for c in cards[-2:])
    n_variations = scalar(
        db,
        "SELECT count(*) FROM image WHERE face_id = ? AND role = 'variation' AND evaluated "
        "AND feature_key <> 'placebo'",
        [face],
    )
    index = _page(stylisticbias_server, "/faces")
    card = index.split(f'data-face="{face}"')[1].split("</a>")[0]
    assert f"{n_variations} variations · 2 placebos" in card


def test_attribute_page_numbers(stylisticbias_server: Served) -> None:
    db, value = stylisticbias_server.db, "Worn / Distressed clothing"
    html = _page(stylisticbias_server, "/attribute", value=value)
    scen = tables(html)["tbl-scenarios"]
    header = scen[1]
    stored = frame(
        db,
        "SELECT model_id, scenario_id, estimate FROM result_sbs WHERE level = 'cell' "
        "AND variation_value = ? AND model_id <> '(pooled)' AND dimension IS NULL",
        [value],
    )
    favorable = dict(frame(db, "SELECT scenario_id, favorable FROM scenario").iter_rows())
    shown = {row[0].split(" / ")[0]: row for row in scen[2:] if len(row) == len(header)}
    for row in stored.iter_rows(named=True):
        cell = shown[favorable[row["scenario_id"]]][header.index(row["model_id"])]
        assert cell.split(" ")[0] == signed(row["estimate"])
    # example strip: the highest, median and lowest face mean shift over both models and all scenarios,
    # each named by its direction (the highest is an increase only when it is positive)
    per_face = (
        delta_frame(db)
        .filter(pl.col("variation_value") == value)
        .group_by("image_id")
        .agg(pl.col("delta").mean())
    ).sort(["delta", "image_id"], descending=[True, False])
    last = per_face.height - 1
    high, low = per_face["delta"][0], per_face["delta"][last]
    labels = (
        "largest increase" if high > 0 else "smallest decrease",
        "median",
        "largest decrease" if low < 0 else "smallest increase",
    )
    for label, index in zip(labels, [0, last // 2, last], strict=True):
        image_id = per_face["image_id"][index]
        assert f'data-pick="{label}" data-image="{image_id}"' in html
    assert f"/image/{per_face['image_id'][0]}?w=160" in html


def test_demographic_heatmap_is_face_level(stylisticbias_server: Served) -> None:
    value = "Full beard"
    html = _page(stylisticbias_server, "/attribute", value=value, category="Behavioral")
    rows = tables(html)["tbl-groups"]
    header = rows[1]
    delta = delta_frame(stylisticbias_server.db).filter(
        (pl.col("variation_value") == value) & (pl.col("scenario_category") == "Behavioral")
    )
    expected = face_means(delta, ["age", "model_id"])
    shown = {row[0]: row for row in rows[2:] if len(row) == len(header)}
    for row in expected.iter_rows(named=True):
        assert shown[row["age"]][header.index(row["model_id"])] == signed(row["estimate"])
    assert "Table 11 (pooled)" not in header  # a stored pooled table does not apply to one category


def test_judgment_drill_down_shows_every_answer(stylisticbias_server: Served) -> None:
    db = stylisticbias_server.db
    image_id, scenario_id = frame(
        db, "SELECT image_id, scenario_id FROM judgment WHERE outcome = 'invalid' ORDER BY ALL LIMIT 1"
    ).row(0)
    html = _page(stylisticbias_server, "/judgments", image=image_id, scenario=scenario_id)
    judged = frame(
        db,
        "SELECT * FROM judgment WHERE image_id = ? AND scenario_id = ? ORDER BY model_id, ordering, seed",
        [image_id, scenario_id],
    )
    rows = tables(html)["judgments"][1:]
    assert len(rows) == judged.height == 8
    assert html.count('class="invalid"') == judged.filter(pl.col("outcome") == "invalid").height >= 1
    template = str(scalar(db, "SELECT template FROM prompt_variant WHERE ordering = 2"))
    fav, unfav = frame(
        db, "SELECT favorable, unfavorable FROM scenario WHERE scenario_id = ?", [scenario_id]
    ).row(0)
    prompt = template.format(first_letter="b", first=unfav, second_letter="a", second=fav)
    assert [r[3] for r in rows if r[1] == "2"] == [prompt, prompt]
    assert [r[4] for r in rows] == [" ".join(t.split()) for t in judged["response_text"]]


def test_images_are_served_only_when_registered_and_inside_the_root(stylisticbias_server: Served) -> None:
    image_id = str(
        scalar(
            stylisticbias_server.db, "SELECT image_id FROM image WHERE role = 'base' ORDER BY 1 DESC LIMIT 1"
        )
    )
    status, headers, body = fetch(f"{stylisticbias_server.url}/image/{image_id}")
    assert status == 200 and headers["content-type"] == "image/png" and body[:4] == b"\x89PNG"
    status, headers, body = fetch(f"{stylisticbias_server.url}/image/{image_id}?w=160")
    assert status == 200 and headers["content-type"] == "image/jpeg"
    for bad in ("nope", quote("../../etc/passwd", safe=""), "..%2F..%2Fetc%2Fpasswd"):
        status, _, body = fetch(f"{stylisticbias_server.url}/image/{bad}")
        assert status == 404 and b"root:" not in body
    status, _, _ = fetch(f"{stylisticbias_server.url}/image/../../etc/passwd")
    assert status == 404


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/?model=x'; DROP TABLE judgment; --", "no such model"),
        ("/attribute?value=nothing", "no such attribute"),
        ("/face?id=nobody", "no such face"),
        ("/judgments?image=demo-0001-base&scenario=nope", "no such scenario"),
        ("/faces?page=999", "page(s)"),
        ("/faces?page=abc", "expected a page number"),
        ("/?group=gender", "no such demographic group"),
    ],
)
def test_unknown_values_are_one_line_404s(stylisticbias_server: Served, path: str, message: str) -> None:
    status, _, body = fetch(stylisticbias_server.url + path.replace(" ", "%20").replace("'", "%27"))
    assert status in (400, 404) and message in body.decode()
    # 10,400 attribute and base judgments + 640 of the placebos (8 faces x 2 x 5 scenarios x 4 x 2 models)
    assert scalar(stylisticbias_server.db, "SELECT count(*) FROM judgment") == 10_400 + 640


def test_partial_study_pages_and_missing_image(partial_db: Path, tmp_path: Path) -> None:
    from tests.viewer.conftest import serve_in_thread

    for served in serve_in_thread(partial_db, tmp_path / "thumbs"):
        html = _page(served, "/")
        assert "Computed by the viewer" in html and "3,000" in html
        lost = str(
            scalar(partial_db, "SELECT image_id FROM image WHERE role = 'base' ORDER BY image_id LIMIT 1")
        )
        status, headers, body = fetch(f"{served.url}/image/{lost}?w=160")
        assert status == 200 and headers.get("x-cueshift-placeholder") == "missing" and b"<svg" in body
        face = str(scalar(partial_db, "SELECT face_id FROM image WHERE image_id = ?", [lost]))
        assert "φ per scenario" in _page(served, "/face", id=face)
