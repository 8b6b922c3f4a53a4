"""Benchmark: judgment ingestion, side by side, under each way of keeping the key unique.

One run, the same rows, the same machine. Every DuckDB row writes through the runner's default
path (the compiled schema checks, one transaction per batch, batches sized by time with
:class:`cueshift.execution.batching.BatchSizer` up to the study default ``batch_size``) into a new
database whose ``judgment`` table keeps its key unique in one of these ways:

(a) the primary key on (model_id, image_id, scenario_id, ordering, seed) (schema version 3);
(b) one key column with the primary key on it: DuckDB's ``hash()`` of the five columns
    (UBIGINT), or the 128-bit ``md5_number`` (UHUGEINT) of them;
(c) no index: unique by construction, verified by ``analyze``/``merge`` with
    :func:`cueshift.store.keys.check_unique_keys` (schema version 4, what ``cueshift`` does);
(d) no index while writing, a ``UNIQUE`` index built in one pass afterwards; and DuckDB's
    appender (``con.append``) instead of ``INSERT ... SELECT``;

and (c) with batches not rounded to whole DuckDB row groups (the batch sizer before
``align``), and all rows in one batch; and one JSON file per judgment (how the release stores
them), written before and after the DuckDB rows, the faster pass counting (the shared disk
stalls at times, and a slow baseline must not inflate the ratios). Then the paper-scale
store (29 M rows, 6 models x the simulated paper images x 25 scenarios x 4 orderings x 3 seeds)
by the variants asked for, batch by batch as a run writes them, and the verification of (c).

Seconds in the write path include the ``CHECKPOINT`` after the last batch: what went through
DuckDB's write-ahead log, or a row group a later batch left partial, is compressed into the
file then, and a run pays for it when it closes the database.

Usage::

    .venv/bin/python benchmarks/bench_ingest.py [--rows 500000] [--json-rows 50000] \
        [--paper-faces 500] [--markdown BENCHMARKS.md]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
from bench_markdown import replace_section
from bench_rows import judgment_frame, paper_rows

from cueshift import store
from cueshift.execution.batching import BatchSizer
from cueshift.store.keys import check_unique_keys
from cueshift.store.transaction import transaction
from cueshift.store.writes import ROW_GROUP_ROWS
from cueshift.study.config import Study

START, END = "<!-- bench_ingest:start -->", "<!-- bench_ingest:end -->"
KEY = "model_id, image_id, scenario_id, ordering, seed"
PK = f",\n    PRIMARY KEY ({KEY})\n);"
#: key column expressions of (b)
HASH_KEY = ("UBIGINT", f"hash({KEY})")
MD5_KEY = ("UHUGEINT", f"md5_number(concat_ws(chr(31), {KEY}))")
Writer = Callable[[duckdb.DuckDBPyConnection, pl.DataFrame], None]


def new_study(path: Path, variant: str) -> duckdb.DuckDBPyConnection:
    """A new study database whose judgment table is that of ``variant`` (see the module docstring)."""
    con = store.open_study(path)
    ddl = store.sql_text("schema.sql")
    table = ddl[ddl.index("CREATE TABLE IF NOT EXISTS judgment (") :]
    table = table[: table.index("\n);") + 3]
    if variant == "pk":
        table = table.replace("\n);", PK)
    elif variant in ("hash", "md5"):
        kind = (HASH_KEY if variant == "hash" else MD5_KEY)[0]
        table = table.replace("judgment (\n", f"judgment (\n    judgment_key {kind} PRIMARY KEY,\n", 1)
    con.execute("DROP TABLE judgment")
    con.execute(table)
    return con


def write_tables(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> None:
    store.write_tables(con, {"judgment": frame})


def keyed(expression: str) -> Writer:
    """``write_tables`` for (b): the same checks and transaction, the key column computed in the INSERT."""

    def write(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> None:
        store.validate("judgment", frame)
        arrow = frame.to_arrow()  # noqa: F841  (referenced by name below)
        columns = ", ".join(frame.columns)
        with transaction(con):
            con.execute(
                f"INSERT INTO judgment (judgment_key, {columns}) SELECT {expression}, {columns} FROM arrow"
            )

    return write


def appended(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> None:
    """(d) the appender: the same checks and transaction, ``con.append`` (a pandas frame) by name."""
    store.validate("judgment", frame)
    with transaction(con):
        con.append("judgment", frame.to_pandas(), by_name=True)  # takes pandas frames only


def phased(phases: dict[str, float]) -> Writer:
    """``write_tables`` for one judgment frame, step by step, adding each step's seconds to ``phases``."""

    def write(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> None:
        t0 = time.perf_counter()
        store.validate("judgment", frame)
        t1 = time.perf_counter()
        arrow = frame.to_arrow()  # noqa: F841  (referenced by name below)
        columns = ", ".join(frame.columns)
        con.execute("BEGIN TRANSACTION")
        con.execute(f"INSERT INTO judgment ({columns}) SELECT {columns} FROM arrow")
        t2 = time.perf_counter()
        con.execute("COMMIT")
        t3 = time.perf_counter()
        for name, seconds in (("check", t1 - t0), ("insert", t2 - t1), ("commit", t3 - t2)):
            phases[name] = phases.get(name, 0.0) + seconds
        phases[f"batch {frame.height}"] = t3 - t0

    return write


def runner_default(
    con: duckdb.DuckDBPyConnection,
    rows: Callable[[int, int], pl.DataFrame],
    total: int,
    write: Writer,
    cap_s: float = float("inf"),
    align: int = ROW_GROUP_ROWS,
) -> tuple[float, int, list[int], float]:
    """Write ``total`` rows batch by batch as the runner sizes them (``align``: see
    :class:`BatchSizer`), stopping once ``cap_s`` seconds were spent writing, then checkpoint;
    seconds spent writing (with the checkpoint), rows written, batch sizes, checkpoint seconds."""
    sizer = BatchSizer(Study.model_fields["batch_size"].default, align=align)
    spent, start, sizes = 0.0, 0, []
    while start < total and spent < cap_s:
        batch = rows(start, min(sizer.size, total - start))
        t0 = time.perf_counter()
        write(con, batch)
        seconds = time.perf_counter() - t0
        spent += seconds
        sizer.record(batch.height, seconds)
        sizes.append(batch.height)
        start += batch.height
    checkpoint = timed(lambda: con.execute("CHECKPOINT"))
    assert con.execute("SELECT count(*) FROM judgment").fetchall() == [(start,)]
    return spent + checkpoint, start, sizes, checkpoint


def megabytes(path: Path) -> float:
    return path.stat().st_size / 1e6


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def storage(root: Path, n: int, n_json: int) -> dict[str, Any]:
    """Rows/s of every variant on the same ``n`` rows, and of one JSON file per judgment."""
    frame = judgment_frame(n)

    def rows(lo: int, k: int) -> pl.DataFrame:
        return frame.slice(lo, k)

    out: dict[str, Any] = {"rows": n}
    phases: dict[str, float] = {}
    variants: list[tuple[str, str, Writer, int]] = [
        ("a", "pk", write_tables, ROW_GROUP_ROWS),
        ("b_hash", "hash", keyed(HASH_KEY[1]), ROW_GROUP_ROWS),
        ("b_md5", "md5", keyed(MD5_KEY[1]), ROW_GROUP_ROWS),
        ("c", "none", write_tables, ROW_GROUP_ROWS),
        ("c_unaligned", "none", write_tables, 1),
        ("c_phases", "none", phased(phases), ROW_GROUP_ROWS),
        ("d_append", "none", appended, ROW_GROUP_ROWS),
        ("c_one", "none", write_tables, 0),  # 0: all rows in one batch
    ]
    first = json_files(root / "json_before", frame.head(min(n, n_json)))
    shutil.rmtree(root / "json_before")
    for name, variant, write, align in variants:
        print(f"  {name} ...", file=sys.stderr)
        path = root / f"{name}.duckdb"
        con = new_study(path, variant)
        if align:
            seconds, _, sizes, checkpoint = runner_default(con, rows, n, write, align=align)
        else:
            seconds = timed(partial(write, con, frame)) + timed(partial(con.execute, "CHECKPOINT"))
        out[f"{name}_mb"] = megabytes(path)  # checkpointed: the rows are all in the file
        out[name] = n / seconds
        print(f"    {out[name]:,.0f} rows/s", file=sys.stderr)
        if name == "c_phases":
            out["phases"] = {"checkpoint": checkpoint, **phases}
        if name in ("c", "c_unaligned"):
            out[f"{name}_sizes"] = sizes
        if name == "c":
            out["c_check_s"] = timed(partial(check_unique_keys, con))
            out["d_index_s"] = timed(
                partial(con.execute, f"CREATE UNIQUE INDEX judgment_key ON judgment ({KEY})")
            )
        con.close()
    out["json_rows"] = min(n, n_json)
    out["json_passes"] = [first, json_files(root / "json_after", frame.head(out["json_rows"]))]
    out["json"] = max(out["json_passes"])  # the faster pass: a disk stall cannot inflate the ratios
    return out


def json_files(root: Path, frame: pl.DataFrame) -> float:
    """Files per second writing one JSON file per row of ``frame`` under ``root``."""
    t0 = time.perf_counter()
    for row in frame.iter_rows(named=True):
        folder = root / row["model_id"] / row["image_id"]
        folder.mkdir(parents=True, exist_ok=True)
        row["created_at"] = row["created_at"].isoformat()
        name = f"{row['scenario_id']}_o{row['ordering']}_s{row['seed']}.json"
        (folder / name).write_text(json.dumps(row), encoding="utf-8")
    return frame.height / (time.perf_counter() - t0)


def paper(root: Path, faces: int, variants: list[str], cap_s: float) -> dict[str, Any]:
    """Seconds in the write path per variant at paper scale (a variant stops after ``cap_s``
    seconds: rows written then); (c)'s verification."""
    rows, total, n_images = paper_rows(faces)
    out: dict[str, Any] = {"rows": total, "images": n_images}
    writers = {
        "a": ("pk", write_tables, ROW_GROUP_ROWS),
        "b_hash": ("hash", keyed(HASH_KEY[1]), ROW_GROUP_ROWS),
        "c": ("none", write_tables, ROW_GROUP_ROWS),
        "c_unaligned": ("none", write_tables, 1),
    }
    for name in variants:
        print(f"  paper {name} ...", file=sys.stderr)
        variant, write, align = writers[name]
        path = root / f"paper_{name}.duckdb"
        con = new_study(path, variant)
        out[name], out[f"{name}_rows"], _, out[f"{name}_ckpt"] = runner_default(
            con, rows, total, write, cap_s, align
        )
        print(f"    {out[f'{name}_rows']:,} rows in {out[name]:.1f} s", file=sys.stderr)
        if name == "c":
            out["c_check_s"] = timed(partial(check_unique_keys, con))
        con.close()
        out[f"{name}_mb"] = megabytes(path)
        path.unlink()
        path.with_suffix(".duckdb.wal").unlink(missing_ok=True)
    return out


def markdown(r: dict[str, Any], command: str) -> str:
    st, pp = r["storage"], r.get("paper")
    js = st["json"]

    def row(label: str, rate: float, bold: bool = False, mb: float | None = None) -> str:
        ratio = f"{rate / js:,.0f}x"
        size = f"{mb:.1f}" if mb is not None else ""
        return f"| {label} | {rate:,.0f} | {f'**{ratio}**' if bold else ratio} | {size} |"

    def shown(sizes: list[int]) -> str:
        return ", ".join(f"{s:,}" for s in sizes)

    ph = st["phases"]
    lines = [
        "## Ingestion: judgment rows into the study database (`bench_ingest.py`)",
        "",
        f"Command (from the repository root, {r['date']}): `{command}`",
        "",
        f"{st['rows']:,} judgment rows, the same frame for every DuckDB row, each through the runner's",
        "default path: compiled checks, one transaction per batch, batches sized by time and rounded",
        f"down to whole DuckDB row groups of {ROW_GROUP_ROWS:,} rows ({shown(st['c_sizes'])}; not rounded:",
        f"{shown(st['c_unaligned_sizes'])}); seconds include the `CHECKPOINT` after the last batch.",
        f"{r['machine']}; load average {r['load'][0]:.2f} before, {r['load'][1]:.2f} after",
        "(the machine is shared); one run's timings.",
        "",
        "| how the key is kept unique | rows / s | vs JSON | file MB |",
        "|---|---:|---:|---:|",
        row(
            "(a) primary key on (model_id, image_id, scenario_id, ordering, seed) (schema version 3)",
            st["a"],
            mb=st["a_mb"],
        ),
        row(
            "(b) one `UBIGINT` key column, `hash()` of the five, primary key on it",
            st["b_hash"],
            mb=st["b_hash_mb"],
        ),
        row(
            "(b) one `UHUGEINT` key column, `md5_number` of the five, primary key on it",
            st["b_md5"],
            mb=st["b_md5_mb"],
        ),
        row(
            "**(c) no index: unique by construction, verified by analyze/merge (schema version 4, now)**",
            st["c"],
            bold=True,
            mb=st["c_mb"],
        ),
        row(
            "(c), batches not rounded to whole row groups (the sizer before)",
            st["c_unaligned"],
            mb=st["c_unaligned_mb"],
        ),
        row(
            f"(c), all {st['rows']:,} rows in one batch (no time bound: the most DuckDB takes in)",
            st["c_one"],
            mb=st["c_one_mb"],
        ),
        row(
            "(d) as (c), DuckDB's appender (`con.append`) instead of `INSERT ... SELECT`",
            st["d_append"],
            mb=st["d_append_mb"],
        ),
        f"| one JSON file per judgment (the release), {st['json_rows']:,} files, the faster of two passes "
        f"({' and '.join(f'{p:,.0f}' for p in st['json_passes'])} files/s, before and after the rows above)"
        f" | {js:,.0f} | 1x | |",
        "",
        "Where (c)'s time goes (the same path step by step, another run of the stream): checks",
        f"{ph['check']:.3f} s, Arrow + `INSERT` {ph['insert']:.3f} s, `COMMIT` {ph['commit']:.3f} s,",
        f"final `CHECKPOINT` {ph['checkpoint']:.3f} s; by batch (rows: ms, rows/s): {by_batch(ph)}.",
        "(c)'s verification (`check_unique_keys`) on these",
        f"rows: {st['c_check_s']:.3f} s; (d) a `UNIQUE` index built in one pass after loading them:",
        f"{st['d_index_s']:.2f} s.",
    ]
    if pp:
        total = pp["rows"]
        lines += [
            "",
            f"Paper scale: {total:,} judgment rows (6 models x {pp['images']:,} images x 25 scenarios",
            "x 4 orderings x 3 seeds, the simulated study's image ids) written batch by batch as a run",
            "writes them; seconds in the write path, the final checkpoint included:",
            "",
            "| how the key is kept unique | s | of which final checkpoint | rows / s | vs JSON | file MB |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        labels = {
            "a": "(a) primary key on the five columns",
            "b_hash": "(b) `hash()` key column, primary key",
            "c": "**(c) no index (now)**",
            "c_unaligned": "(c), batches not rounded to whole row groups (before)",
        }
        for name, label in labels.items():
            if name not in pp:
                continue
            done, seconds = pp[f"{name}_rows"], pp[name]
            what = f"{seconds:.1f}" if done == total else f"stopped at {seconds:.0f} s, {done:,} rows"
            lines.append(
                f"| {label} | {what} | {pp[f'{name}_ckpt']:.2f} | {done / seconds:,.0f} "
                f"| {done / seconds / js:,.0f}x | {pp[f'{name}_mb']:.0f} |"
            )
        if "c_check_s" in pp:
            lines += [
                "",
                f"(c)'s verification of the paper-scale table: {pp['c_check_s']:.2f} s (the first",
                "`analyze` after a write; it is recorded with the row count, so an unchanged table is not",
                "checked again).",
            ]
    lines += ["", *targets(r), "", *CHOICE]
    return "\n".join(lines)


def by_batch(phases: dict[str, float]) -> str:
    batches = [(int(k.split()[1]), v) for k, v in phases.items() if k.startswith("batch ")]
    return "; ".join(f"{n:,}: {v * 1e3:.0f} ms, {n / v / 1e6:.2f} M" for n, v in batches)


def targets(r: dict[str, Any]) -> list[str]:
    """The issue's two targets, judged on this run, and what bounds the short stream."""
    st, pp = r["storage"], r.get("paper") or {}
    js, ratio = st["json"], st["c"] / st["json"]
    out = [
        f"Targets on this run: >= 100x JSON at the runner's default: {ratio:.0f}x on the",
        f"{st['rows']:,}-row stream ({'**met**' if ratio >= 100 else '**not met**'})",
    ]
    if pp and pp.get("c_rows") == pp["rows"]:
        paper_ratio = pp["rows"] / pp["c"] / js
        verdict = "**met**" if paper_ratio >= 100 else "**not met**"
        out[-1] += f", {paper_ratio:.0f}x over the paper-scale stream ({verdict});"
        verdict = "**met**" if pp["c"] < 20 else "**not met**"
        out.append(f"paper-scale store < 20 s: {pp['c']:.1f} s ({verdict}).")
    else:
        out[-1] += "."
    batches = [(int(k.split()[1]), v) for k, v in st["phases"].items() if k.startswith("batch ")]
    small = [(n, v) for n, v in batches if n < ROW_GROUP_ROWS]
    full = [(n, v) for n, v in batches if n >= 2 * ROW_GROUP_ROWS]
    if ratio < 100 and small and full:
        n_small, s_small = sum(n for n, _ in small), sum(v for _, v in small)
        n_full, s_full = sum(n for n, _ in full), sum(v for _, v in full)
        out += [
            "",
            f"What bounds the {st['rows']:,}-row stream: {n_small:,} of its rows come in batches smaller",
            "than one row group (the time-bounded ramp from 500 rows, and the last batch), which DuckDB",
            "logs to its write-ahead log and compresses again at the checkpoint:",
            f"{n_small / s_small / 1e6:.2f} M rows/s there, against {n_full / s_full / 1e6:.2f} M rows/s in",
            "batches of two row groups. Even all the rows in one batch (no time bound) reach",
            f"{st['c_one'] / 1e6:.2f} M rows/s ({st['c_one'] / js:.0f}x); 100x needs",
            f"{100 * js / 1e6:.2f} M rows/s against this run's JSON writer.",
        ]
    return out


#: Why (c), and what the figures mean (no figures of a particular run).
CHOICE = (
    "**Chosen: (c).** The primary key's ART index over three VARCHARs is what limits (a); one",
    "hashed key column (b) is no cheaper: its keys arrive in random order, so the index loses the",
    "locality the (model, image, ...) order gives (a), and falls further behind as it grows;",
    "DuckDB's `hash()` is also not stable across versions (a stored key would break on upgrade) and",
    "the stable `md5_number` costs more to compute. A UNIQUE index built once after loading (d)",
    "cannot guard a write and costs more than (c)'s whole verification; the appender takes",
    'pandas frames only and loses to `INSERT ... SELECT` from Arrow. (c) keeps "no judgment lost',
    'or stored twice" provable: a batch is one transaction (a kill loses it, the next run plans it',
    "again); every writer writes only keys not stored when it planned, while it holds DuckDB's file",
    "lock; a batch repeating a key is refused by its schema; merge inserts each key once; and",
    "`analyze`/`merge` refuse a table that repeats a key, in one line naming it",
    "(`store/keys.py`: rows grouped by `hash(key)`, then the exact `GROUP BY` key only when a hash is",
    "shared, so a 64-bit hash collision costs time, never a wrong answer).",
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=500_000)
    ap.add_argument("--json-rows", type=int, default=50_000, help="of those, rows written as JSON files")
    ap.add_argument("--paper-faces", type=int, default=500, help="faces of the paper-scale store (0: skip)")
    ap.add_argument("--paper", default="c,a,b_hash", help="variants stored at paper scale")
    ap.add_argument(
        "--paper-cap", type=float, default=120.0, help="seconds of writing per paper-scale variant"
    )
    ap.add_argument("--markdown", type=Path, help="write the results into this file's section")
    ap.add_argument("--dir", type=Path, help="where the databases and JSON files go (default: the temp dir)")
    args = ap.parse_args(argv)
    import platform

    result: dict[str, Any] = {
        "date": dt.date.today().isoformat(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores visible, DuckDB {duckdb.__version__}",
    }
    load_before = os.getloadavg()[0]
    root = Path(tempfile.mkdtemp(prefix="bench_ingest_", dir=args.dir))
    try:
        print("storage ...", file=sys.stderr)
        result["storage"] = storage(root, args.rows, args.json_rows)
        if args.paper_faces:
            result["paper"] = paper(root, args.paper_faces, args.paper.split(","), args.paper_cap)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    result["load"] = (load_before, os.getloadavg()[0])
    command = ".venv/bin/python benchmarks/bench_ingest.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    section = markdown(result, command.strip())
    print(section)
    if args.markdown:
        replace_section(args.markdown, f"{START}\n{section}\n{END}\n", START, END)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
