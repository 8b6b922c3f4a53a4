"""Batches of whole DuckDB row groups (:data:`cueshift.store.writes.ROW_GROUP_ROWS`,
:class:`cueshift.execution.batching.BatchSizer`'s ``align``): DuckDB itself says how it groups rows."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import polars as pl

from cueshift import store
from cueshift.execution.batching import BatchSizer
from cueshift.store.writes import ROW_GROUP_ROWS


def _row_group_sizes(con: duckdb.DuckDBPyConnection, table: str) -> list[int]:
    con.execute("CHECKPOINT")
    rows = con.execute(
        f"SELECT row_group_id, sum(count) FROM pragma_storage_info('{table}') "
        "WHERE column_id = 0 AND column_path = '[0]' GROUP BY ALL ORDER BY row_group_id"
    ).fetchall()
    return [int(count) for _, count in rows]


def _judgments(lo: int, n: int) -> pl.DataFrame:
    i = pl.int_range(lo, lo + n, dtype=pl.Int64, eager=True)
    return pl.DataFrame(
        {
            "model_id": pl.Series(["m"] * n),
            "image_id": (i // 100).cast(pl.String),
            "scenario_id": (i % 100).cast(pl.String),
            "ordering": pl.Series([1] * n, dtype=pl.Int32),
            "seed": pl.Series([0] * n, dtype=pl.Int32),
            "response_text": pl.Series(["(a)"] * n),
            "outcome": pl.Series(["favorable"] * n),
            "chosen_letter": pl.Series(["a"] * n),
            "latency_ms": pl.Series([1.0] * n),
            "created_at": pl.Series([dt.datetime(2026, 1, 1)] * n, dtype=pl.Datetime("us")),
            "run_id": pl.Series(["r"] * n),
        }
    )


def test_duckdb_groups_rows_by_the_constant(tmp_path: Path) -> None:
    con = duckdb.connect(str(tmp_path / "t.duckdb"))
    con.execute("CREATE TABLE t (i BIGINT)")
    con.execute(f"INSERT INTO t SELECT range FROM range({ROW_GROUP_ROWS + 1})")
    assert _row_group_sizes(con, "t") == [ROW_GROUP_ROWS, 1]


def test_a_fast_run_writes_whole_row_groups(tmp_path: Path) -> None:
    con = store.open_study(tmp_path / "study.duckdb")
    sizer = BatchSizer(max_rows=250_000, initial=200_000)
    written = 0
    for _ in range(2):  # 200,000 rows (the first batch), then the cap of 250,000 rounded down
        frame = _judgments(written, sizer.size)
        store.write_tables(con, {"judgment": frame})
        written += frame.height
        sizer.record(frame.height, 0.01)
    assert written == 200_000 - 200_000 % ROW_GROUP_ROWS + 2 * ROW_GROUP_ROWS
    assert _row_group_sizes(con, "judgment") == [ROW_GROUP_ROWS] * 3
    con.close()
