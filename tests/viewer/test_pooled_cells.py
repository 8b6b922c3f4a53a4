"""The attribute page shows Table 11's raw and partially pooled cells side by side."""

from __future__ import annotations

from urllib.parse import urlencode

from tests.viewer.conftest import Served
from tests.viewer.pages import fetch, frame, signed, tables


def test_attribute_page_shows_raw_and_pooled_table11_cells(sb_server: Served) -> None:
    value = "Full beard"
    status, _, body = fetch(sb_server.url + "/attribute?" + urlencode({"value": value}))
    assert status == 200
    html = body.decode()
    rows = tables(html)["tbl-groups"]
    header = rows[1]
    raw, pooled = header.index("Table 11 (pooled)"), header.index("Table 11 (partial pooling)")
    stored = frame(
        sb_server.db,
        'SELECT "group", estimate, pooled_estimate FROM result_table11 '
        "WHERE variation_value = ? AND pooled_estimate IS NOT NULL",
        [value],
    )
    assert stored.height >= 4  # age and gender cells (a dimension of one group per value has none)
    shown = {row[0]: row for row in rows[2:] if len(row) == len(header)}
    for row in stored.iter_rows(named=True):
        assert shown[row["group"]][raw] == signed(row["estimate"])
        assert shown[row["group"]][pooled] == signed(row["pooled_estimate"])
