"""The attribute page shows Table 11's raw and partially pooled cells side by side, the pooled
cell with its (Morris) interval."""

from __future__ import annotations

from urllib.parse import urlencode

from tests.viewer.conftest import Served
from tests.viewer.pages import fetch, frame, signed, tables


def test_attribute_page_shows_raw_and_pooled_table11_cells(stylisticbias_server: Served) -> None:
    value = "Full beard"
    status, _, body = fetch(stylisticbias_server.url + "/attribute?" + urlencode({"value": value}))
    assert status == 200
    html = body.decode()
    rows = tables(html)["tbl-groups"]
    header = rows[1]
    raw, pooled = header.index("Table 11 (pooled)"), header.index("Table 11 (partial pooling)")
    stored = frame(
        stylisticbias_server.db,
        'SELECT "group", estimate, pooled_estimate, pooled_ci_low, pooled_ci_high FROM result_table11 '
        "WHERE variation_value = ? AND pooled_estimate IS NOT NULL",
        [value],
    )
    assert stored.height >= 4  # age and gender cells (a dimension of one group per value has none)
    shown = {row[0]: row for row in rows[2:] if len(row) == len(header)}
    assert stored["pooled_ci_low"].count() >= 3  # the age groups (one gender: nothing to pool over)
    for row in stored.iter_rows(named=True):
        assert shown[row["group"]][raw] == signed(row["estimate"])
        expected = signed(row["pooled_estimate"])
        if row["pooled_ci_low"] is not None:
            assert row["pooled_ci_low"] <= row["pooled_estimate"] <= row["pooled_ci_high"]
            expected += f" [{signed(row['pooled_ci_low'])}, {signed(row['pooled_ci_high'])}]"
        assert shown[row["group"]][pooled] == expected
