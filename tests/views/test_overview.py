"""The first-cut overview keeps the noise-floor placebos apart: never in the top variations, on
their own noise-floor line (docs/decisions.md#d1), with values worked by hand from seed 000 Eq. 1-2."""

from __future__ import annotations

import io

import polars as pl
import pytest
from rich.console import Console

from cueshift import store
from cueshift.designs.stylisticbias.overview import overview, print_overview
from tests import dbrows


def _twelve(image_id: str, n_favorable: int) -> list[tuple[str, str, int, int, str]]:
    """12 valid prompts (4 orderings x 3 seeds) of one cell, ``n_favorable`` of them favorable."""
    cells = [(o, s) for o in (1, 2, 3, 4) for s in (1, 2, 3)]
    return [
        (image_id, "kind", o, s, "favorable" if k < n_favorable else "unfavorable")
        for k, (o, s) in enumerate(cells)
    ]


@pytest.fixture()
def con(tmp_path):
    con = store.open_study(tmp_path / "overview.duckdb")
    image = dbrows.images(
        ("f1_base", "f1", None, None),
        ("f1_glasses", "f1", "f1_base", "Thick-rimmed"),
        ("f1_copy", "f1", "f1_base", "Identical copy"),
        ("f2_base", "f2", None, None),
        ("f2_glasses", "f2", "f2_base", "Thick-rimmed"),
        ("f2_copy", "f2", "f2_base", "Identical copy"),
    )
    placebo = pl.col("variation_value") == "Identical copy"
    image = image.with_columns(
        pl.when(placebo).then(pl.lit("placebo")).otherwise("feature_key").alias("feature_key"),
        pl.when(placebo).then(pl.lit("placebo")).otherwise("variation_category").alias("variation_category"),
    )
    store.write_tables(
        con,
        {
            "face": dbrows.faces(("f1", "male", "elderly"), ("f2", "female", "young adult")),
            "image": image,
            "scenario": dbrows.scenarios("kind"),
        },
    )
    # phi: bases 6/12; glasses 7/12 and 5/12 (mean delta 0); copies 12/12 and 3/12 (delta +6/12, -3/12)
    rows = [*_twelve("f1_base", 6), *_twelve("f2_base", 6), *_twelve("f1_glasses", 7)]
    rows += [*_twelve("f2_glasses", 5), *_twelve("f1_copy", 12), *_twelve("f2_copy", 3)]
    store.write_tables(con, {"judgment": dbrows.judgments("m", rows)})
    yield con
    con.close()


def test_placebos_are_never_top_variations_and_have_their_own_noise_floor_line(con) -> None:
    # the placebo's |mean delta| (1/8) beats the attribute's (0): ranked, it would come first
    result = overview(con, top=1)
    assert result.top_variations["variation_value"].to_list() == ["Thick-rimmed"]
    assert result.top_variations["mean_delta"][0] == pytest.approx(0.0, abs=1e-12)
    floor = result.noise_floor.row(0, named=True)
    assert result.noise_floor.height == 1 and floor["variation_value"] == "Identical copy"
    assert floor["mean_delta"] == pytest.approx((6 / 12 - 3 / 12) / 2)  # +0.125
    assert floor["mean_abs_delta"] == pytest.approx((6 / 12 + 3 / 12) / 2)  # 0.375
    assert (floor["n_cells"], floor["n_faces"]) == (2, 2)
    out = io.StringIO()
    print_overview(result, Console(file=out, width=200), "overview.duckdb")
    text = out.getvalue()
    top_table = text.split("top variations")[1].split("noise floor")[0]
    assert "Identical copy" not in top_table
    line = "noise floor (placebos, true Δ = 0): Identical copy mean Δ +0.125, mean |Δ| 0.375 (2 cells)"
    assert line in text


def test_no_noise_floor_line_without_placebos(con) -> None:
    con.execute("DELETE FROM judgment WHERE image_id LIKE '%copy'")
    result = overview(con)
    assert result.noise_floor.height == 0
    out = io.StringIO()
    print_overview(result, Console(file=out, width=200), "overview.duckdb")
    assert "noise floor" not in out.getvalue()
