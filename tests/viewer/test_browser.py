"""The viewer in a real browser: headless Chromium clicks through filters and links, and every number
it reads off the page is checked against the study database.

Skipped with the reason when there is no Chromium or Playwright; ``.ci/run`` sets
``CUESHIFT_REQUIRE_BROWSER=1`` so that there a skip is a failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from tests.viewer.conftest import Served
from tests.viewer.pages import delta_frame, frame, scalar, signed


def _table(page: Any, key: str) -> list[list[str]]:
    rows: list[list[str]] = page.eval_on_selector_all(
        f"#tbl-{key} tr", "rows => rows.map(r => [...r.cells].map(c => c.innerText.trim()))"
    )
    return rows


def test_filters_links_and_numbers(page: Any, stylisticbias_server: Served, tmp_path: Path) -> None:
    db = stylisticbias_server.db
    page.goto(stylisticbias_server.url + "/")
    assert page.title().startswith("Overview")
    # filter by model: the select submits itself, the URL carries the filter
    page.select_option("#filter-model", "sim-b")
    page.wait_for_url("**/?model=sim-b")
    models = [r for r in _table(page, "models") if r and r[0].startswith("sim-")]
    n = scalar(db, "SELECT count(*) FROM judgment WHERE model_id = 'sim-b'")
    assert models == [[*models[0][:3], f"{n:,}", models[0][4]]] and models[0][0] == "sim-b"
    # the top attribute of sim-b, then its page
    first = page.locator("#tbl-ranking td a").first
    value = first.inner_text()
    stored = frame(
        db,
        "SELECT variation_value FROM result_sbs WHERE level = 'variation_value' AND model_id = 'sim-b' "
        "AND dimension IS NULL ORDER BY abs_sbs DESC, variation_value LIMIT 1",
    )
    assert value == stored["variation_value"][0]
    first.click()
    page.wait_for_url("**/attribute?*")
    assert page.inner_text("#attribute-title").startswith(value)
    assert "model=sim-b" in page.url
    # example strip: the highest / median / lowest face shift of sim-b, with both pictures loaded
    per_face = (
        delta_frame(db)
        .filter((pl.col("variation_value") == value) & (pl.col("model_id") == "sim-b"))
        .group_by("image_id")
        .agg(pl.col("delta").mean())
        .sort(["delta", "image_id"], descending=[True, False])
    )
    examples = page.locator("#examples .example")
    assert examples.count() == 3
    for i, row in enumerate((0, (per_face.height - 1) // 2, per_face.height - 1)):
        card = examples.nth(i)
        assert card.get_attribute("data-image") == per_face["image_id"][row]
        assert card.locator(".value").inner_text() == signed(per_face["delta"][row])
    widths = page.eval_on_selector_all("#examples img", "imgs => imgs.map(i => i.complete && i.naturalWidth)")
    assert len(widths) == 6 and all(w and w > 0 for w in widths)
    page.screenshot(path=str(tmp_path / "attribute.png"), full_page=True)
    # narrow to one scenario category: only its scenarios remain, the value stays
    page.select_option("#filter-category", "Socioeconomic & Appearance")
    page.wait_for_url("**category=Socioeconomic*")
    labels = [r[0] for r in _table(page, "scenarios")[2:] if len(r) > 1]
    assert sorted(labels) == ["Attractive / Unattractive", "Wealthy / Poor"]
    # into the highest-shift face, then its variation's judgments
    card = examples.first
    image_id = card.get_attribute("data-image")
    card.locator("a").first.click()
    page.wait_for_url("**/face?*")
    identity = scalar(db, "SELECT face_id FROM image WHERE image_id = ?", [image_id])
    assert page.inner_text("#face-title") == identity
    n_images = scalar(db, "SELECT count(*) FROM image WHERE face_id = ?", [identity])
    assert page.locator("#images .card").count() == n_images
    page.locator(f'#images .card[data-image="{image_id}"] a.drill').click()
    page.wait_for_url("**/judgments?*")
    scenario_id = page.input_value("#scenario")
    judged = frame(
        db,
        "SELECT outcome FROM judgment WHERE model_id = 'sim-b' AND image_id = ? AND scenario_id = ?",
        [image_id, scenario_id],
    )
    assert page.locator("#judgments tr[data-model]").count() == judged.height == 4
    invalid = judged.filter(pl.col("outcome") == "invalid").height
    assert page.locator("#judgments tr.invalid").count() == invalid


def test_invalid_answers_are_highlighted(page: Any, stylisticbias_server: Served) -> None:
    db = stylisticbias_server.db
    image_id, scenario_id = frame(
        db, "SELECT image_id, scenario_id FROM judgment WHERE outcome = 'invalid' ORDER BY ALL LIMIT 1"
    ).row(0)
    page.goto(f"{stylisticbias_server.url}/judgments?image={image_id}&scenario={scenario_id}")
    row = page.locator("#judgments tr.invalid").first
    colour = row.locator("td").first.evaluate("td => getComputedStyle(td).backgroundColor")
    assert colour == "rgb(253, 226, 225)"
    assert row.locator("td.outcome").inner_text() == "invalid"
    # another scenario from the menu
    options = page.eval_on_selector_all("#scenario option", "os => os.map(o => o.value)")
    other = next(o for o in options if o != scenario_id)
    page.select_option("#scenario", other)
    page.wait_for_url(f"**scenario={other}*")
    n = scalar(db, "SELECT count(*) FROM judgment WHERE image_id = ? AND scenario_id = ?", [image_id, other])
    assert page.locator("#judgments tr[data-model]").count() == n


def test_face_index_pages_and_group_filter(page: Any, stylisticbias_server: Served) -> None:
    db = stylisticbias_server.db
    page.goto(stylisticbias_server.url + "/faces")
    assert page.inner_text("#n-faces") == str(scalar(db, "SELECT count(*) FROM face"))
    page.select_option("#filter-group", "gender:female")
    page.wait_for_url("**group=gender%3Afemale*")
    females = scalar(db, "SELECT count(*) FROM face WHERE gender = 'female'")
    assert page.inner_text("#n-faces") == str(females)
    assert page.locator("#faces .card").count() == females
    page.locator("#faces .card").first.click()
    page.wait_for_url("**/face?*")
    assert page.locator("#images .card[data-role=base]").count() == 1


def test_two_models_side_by_side(page: Any, stylisticbias_server: Served) -> None:
    db = stylisticbias_server.db
    page.goto(stylisticbias_server.url + "/")
    page.click("#nav-compare")
    page.wait_for_url("**/compare*")
    # pick the pair the other way round from the stored one (sim-a, sim-b), and one attribute
    page.select_option("#compare-a", "sim-b")
    page.select_option("#compare-b", "sim-a")
    page.select_option("#compare-value", "Gray")
    page.click("#compare-apply")
    page.wait_for_url("**a=sim-b&b=sim-a*")
    stored = frame(
        db,
        "SELECT variation_value, estimate, ci_low, ci_high FROM result_model_differences "
        "WHERE level = 'variation_value' AND model_a = 'sim-a' AND model_b = 'sim-b'",
    )
    rows = {r[0]: r for r in _table(page, "compare-attribute") if len(r) == 6}
    assert len(rows) == stored.height + 1
    for r in stored.iter_rows(named=True):
        assert rows[r["variation_value"]][3].startswith(signed(-r["estimate"]))
        assert rows[r["variation_value"]][4] == f"[{signed(-r['ci_high'])}, {signed(-r['ci_low'])}]"
    # the largest disagreement on a Gray face, with both pictures loaded
    first = page.locator("#disagreements .disagreement").first
    deltas = frame(
        db,
        "SELECT max(abs(b.delta - a.delta)) FROM delta AS a JOIN delta AS b USING (image_id, scenario_id) "
        "WHERE a.model_id = 'sim-a' AND b.model_id = 'sim-b' AND a.variation_value = 'Gray'",
    )
    assert abs(float(first.locator(".value").inner_text().replace("−", "-"))) == round(deltas.item(), 3)
    widths = first.locator("img").evaluate_all("imgs => imgs.map(i => i.complete && i.naturalWidth)")
    assert len(widths) == 2 and all(w and w > 0 for w in widths)


def test_pages_fit_a_1400_px_window(browser: Any, stylisticbias_server: Served) -> None:
    """Nothing on the overview, the noise-floor page or an attribute page is wider than the window."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    try:
        tab = context.new_page()
        for path in ("/", "/?model=sim-b", "/design/stylisticbias/noise-floor", "/attribute?value=Gray"):
            tab.goto(stylisticbias_server.url + path)
            assert tab.locator("table").count() > 0, path
            page_width, window = tab.evaluate(
                "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"
            )
            widest = tab.evaluate(
                "Math.max(...[...document.querySelectorAll('table, svg')]"
                ".map(e => e.getBoundingClientRect().right))"
            )
            assert page_width <= window == 1400 and widest <= window, (path, page_width, widest)
    finally:
        context.close()
