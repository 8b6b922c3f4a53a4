"""Declared tables: layout, pivots, marks from the p-value column, and the four outputs."""

from __future__ import annotations

import duckdb
import polars as pl
import pytest

from cueshift.designs.stylisticbias.report import delta_fill
from cueshift.errors import CueshiftError
from cueshift.render import (
    MISSING,
    NOT_APPLICABLE_FILL,
    Col,
    Notation,
    Pivot,
    TableSpec,
    effect,
    fmt_number,
    stub,
    to_html,
    to_markdown,
    to_rich,
    to_typst,
)


def test_star_marks_follow_the_p_column_and_skip_missing_values() -> None:
    frame = pl.DataFrame(
        {"name": ["a", "b", "c", "d"], "h": [12.5, 3.2, None, 0.4], "p": [2e-4, 0.004, 0.01, 0.3]}
    )
    spec = TableSpec(
        "kw", "KW", "", (stub("name", "Name"), Col("h", "H", fmt_number, p="p", notation=Notation.STARS))
    )
    table = spec.build(frame)
    assert table.texts() == [["a", "12.500 ***"], ["b", "3.200 **"], ["c", MISSING], ["d", "0.400"]]
    assert not any(cell.bold or cell.underline for row in table.rows for cell in row)
    typ = to_typst(table)
    assert "12.500 ***" in to_html(table) and '"12.500 ***"' in typ and 'strong("12.500' not in typ
    assert "12.500 \\*\\*\\*" in to_markdown(table)


def _long_frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "category": ["Skin", "Skin", "Fashion", "Fashion", "Fashion"],
            "value": ["Acne", "Acne", "Casual", "Casual", "Casual"],
            "dimension": ["Age", "Gender", "Age", "Gender", "Gender"],
            "grp": ["YA", "M", "YA", "M", "F"],
            "delta": [-0.065, 0.01, 0.12, 0.05, -0.2],
            "p_adj": [1e-5, 0.3, 0.01, 0.0001, 0.02],
        }
    )


def test_pivot_table_layout_marks_and_outputs() -> None:
    spec = TableSpec(
        "t11",
        "Δ per variation",
        "",
        (stub("category", "Category"), stub("value", "Variation")),
        pivot=Pivot(
            "grp",
            "delta",
            effect(),
            p="p_adj",
            fill=delta_fill,
            spanner="dimension",
            missing_fill=NOT_APPLICABLE_FILL,
        ),
    )
    table = spec.build(_long_frame())
    assert table.labels == ("Category", "Variation", "YA", "M", "F")
    assert table.spanners == (("Age", 2, 2), ("Gender", 3, 4))
    assert table.texts() == [
        ["Skin", "Acne", "−0.065", "+0.010", MISSING],
        ["Fashion", "Casual", "+0.120", "+0.050", "−0.200"],
    ]
    acne_ya, acne_m, acne_f = table.rows[0][2:]
    assert acne_ya.bold and not acne_ya.underline and acne_ya.fill == delta_fill(-0.065)
    assert acne_m.underline and not acne_m.bold
    assert acne_f.fill == NOT_APPLICABLE_FILL
    html = to_html(table)
    assert "−0.065" in html and "font-weight: bold" in html and "text-decoration: underline" in html
    assert NOT_APPLICABLE_FILL.lower() in html.lower()
    typ = to_typst(table)
    assert (
        'strong("−0.065")' in typ and 'underline("+0.010")' in typ and f'rgb("{NOT_APPLICABLE_FILL}")' in typ
    )
    assert "colspan: 2" in typ  # the Gender spanner
    md = to_markdown(table)
    assert "**−0.065**" in md and "[+0.010]{.underline}" in md
    assert to_rich(table).row_count == 2


def test_plain_table_from_duckdb_with_model_parameter() -> None:

    con = duckdb.connect()
    con.execute(
        "CREATE TABLE r AS SELECT * FROM (VALUES ('m1', 0.5, 0.2), ('m2', 0.25, 0.0001)) t(model_id, x, p)"
    )
    spec = TableSpec(
        "r",
        "R",
        "SELECT * FROM r WHERE list_contains($models, model_id) ORDER BY model_id",
        (stub("model_id", "Model"), Col("x", "X", fmt_number, p="p")),
    )
    table = spec.render(con, {"models": ["m2"], "unused": 1})
    assert table.texts() == [["m2", "0.250"]] and table.rows[0][1].bold
    with pytest.raises(CueshiftError, match="lacks column"):
        TableSpec("bad", "B", "SELECT 1 AS a", (Col("b", "B"),)).render(con)
    with pytest.raises(CueshiftError, match="report table bad"):
        TableSpec("bad", "B", "SELECT * FROM nowhere", (Col("b", "B"),)).render(con)
