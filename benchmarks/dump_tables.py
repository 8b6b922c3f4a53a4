"""Dump every table and view of the embedded studies, and the CLI's output, for before/after checks.

A behaviour-preserving change (a move, a split, a rename) must leave every result table and every
line the command line prints as it was::

    python benchmarks/dump_tables.py dump /tmp/before      # on the old tree
    python benchmarks/dump_tables.py dump /tmp/after       # on the new tree (cases: dump DIR default ...)
    python benchmarks/dump_tables.py compare /tmp/before /tmp/after
    python benchmarks/dump_tables.py compare /tmp/before /tmp/after 1e-6   # floats 1e-6 apart: equal

Each study is inferred and analyzed into its own database; every table and view is written sorted by
all its columns (volatile columns — times, run ids, latencies — dropped) as parquet, and the CLI's
stdout with durations, rates and paths masked.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl

CASES: dict[str, tuple[str, list[str]]] = {
    "default": ("default", []),
    "default-expected": ("default", ["--resamples", "300", "--seed", "7", "--test", "permutation"]),
    "paired": ("studies/paired-001.toml", []),
    "pairwise": ("studies/pairwise-002.toml", []),
    "probe": ("studies/probe-004.toml", []),
    "tiny-clip": ("studies/tiny-clip.toml", []),
    "tiny-transformers": ("studies/tiny-transformers.toml", []),
}
VOLATILE = re.compile(r"(_at$|run_id|latency|duration|seconds|elapsed|path|db_)")
MASKS = [
    (re.compile(r"\d+(\.\d+)? ?(s|ms|min)\b"), "<time>"),
    (re.compile(r"[\d,]+(\.\d+)? ?(it)?/s\b"), "<rate>"),
    (re.compile(r"/\S+\.duckdb"), "<db>"),
    (re.compile(r"/tmp/\S+"), "<path>"),
]


def _cli(*args: str) -> str:
    cueshift = Path(sys.executable).with_name("cueshift")
    # wide lines: where the console wraps must not depend on the length of the dump's folder
    env = {**os.environ, "COLUMNS": "400"}
    done = subprocess.run([str(cueshift), *args], capture_output=True, text=True, check=False, env=env)
    text = f"exit {done.returncode}\n{done.stdout}{done.stderr}"
    for pattern, mask in MASKS:
        text = pattern.sub(mask, text)
    return text


def dump(out: Path, only: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # the tiny transformers study loads a checkpoint built in code (studies/tiny-transformers.toml)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "cueshift.inference.stand_ins.tiny",
            "llava_next",
            ".cueshift-cache/tiny-llava_next",
        ],
        check=True,
        capture_output=True,
    )
    for case, (study, options) in CASES.items():
        if only and case not in only:
            continue
        db = out / f"{case}.duckdb"
        db.unlink(missing_ok=True)
        text = _cli("infer", "--study", study, "--db", str(db))
        text += _cli("analyze", "--study", study, "--db", str(db), *options)
        (out / f"{case}.console.txt").write_text(text, encoding="utf-8")
        con = duckdb.connect(str(db), read_only=True)
        names = [r[0] for r in con.execute("SELECT table_name FROM information_schema.tables").fetchall()]
        for name in sorted(names):
            frame = con.sql(f'SELECT * FROM "{name}"').pl()
            keep = [c for c in frame.columns if not VOLATILE.search(c)]
            frame = frame.select(keep)
            sortable = [c for c in keep if not isinstance(frame.schema[c], (pl.List, pl.Struct, pl.Array))]
            if sortable:
                frame = frame.sort(sortable, nulls_last=True)
            frame.write_parquet(out / f"{case}.{name}.parquet")
        con.close()
        print(f"{case}: {len(names)} tables", flush=True)


def _float_gap(a: pl.DataFrame, b: pl.DataFrame) -> tuple[float, str] | None:
    """The largest absolute difference of two frames that differ only in float columns (floats in
    lists too), with its column; None where anything else differs."""
    if a.schema != b.schema or a.shape != b.shape:
        return None
    gap, where = 0.0, ""
    for name, dtype in a.schema.items():
        x, y = a[name], b[name]
        if isinstance(dtype, (pl.List, pl.Array)) and dtype.inner.is_float():
            if not x.list.len().equals(y.list.len()):
                return None
            x, y = x.explode(), y.explode()
        if x.dtype.is_float():
            if not x.is_null().equals(y.is_null()):
                return None
            largest = float((x - y).abs().max() or 0.0)
            if largest > gap:
                gap, where = largest, name
        elif not x.equals(y, null_equal=True):
            return None
    return gap, where


def compare(before: Path, after: Path, atol: float = 0.0) -> int:
    """Every dumped file of ``before`` against ``after``: equal, or (parquet) differing only in
    floats — counted equal at most ``atol`` apart, and its largest gap printed either way."""
    differ = 0
    old = {p.name for p in before.glob("*.parquet")} | {p.name for p in before.glob("*.txt")}
    new = {p.name for p in after.glob("*.parquet")} | {p.name for p in after.glob("*.txt")}
    for name in sorted(old ^ new):
        print(f"only in {'before' if name in old else 'after'}: {name}")
        differ += 1
    for name in sorted(old & new):
        if name.endswith(".txt"):
            same = (before / name).read_text() == (after / name).read_text()
        else:
            a, b = pl.read_parquet(before / name), pl.read_parquet(after / name)
            same = a.schema == b.schema and a.equals(b, null_equal=True)
        if not same:
            gap = None if name.endswith(".txt") else _float_gap(a, b)
            if gap is not None and gap[0] <= atol:
                print(f"floats within {atol:g}: {name} (max |difference| {gap[0]:.3g} in {gap[1]})")
                continue
            detail = f" (floats only: max |difference| {gap[0]:.3g} in {gap[1]})" if gap else ""
            print(f"differs: {name}{detail}")
            differ += 1
    print(f"{len(old & new)} files compared, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(Path(sys.argv[2]), sys.argv[3:])
    else:  # compare BEFORE AFTER [ATOL]
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3]), float(sys.argv[4]) if sys.argv[4:] else 0.0))
