"""Dump every table and view of the embedded studies, and the CLI's output, for before/after checks.

A behaviour-preserving change (a move, a split, a rename) must leave every result table and every
line the command line prints as it was::

    python benchmarks/dump_tables.py dump /tmp/before      # on the old tree
    python benchmarks/dump_tables.py dump /tmp/after       # on the new tree (cases: dump DIR default ...)
    python benchmarks/dump_tables.py compare /tmp/before /tmp/after

Each study is inferred and analyzed into its own database; every table and view is written sorted by
all its columns (volatile columns — times, run ids, latencies — dropped) as parquet, and the CLI's
stdout with durations, rates and paths masked.
"""

from __future__ import annotations

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
    done = subprocess.run([str(cueshift), *args], capture_output=True, text=True, check=False)
    text = f"exit {done.returncode}\n{done.stdout}{done.stderr}"
    for pattern, mask in MASKS:
        text = pattern.sub(mask, text)
    return text


def dump(out: Path, only: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    # the tiny transformers study loads a checkpoint built in code (studies/tiny-transformers.toml)
    subprocess.run([sys.executable, "-m", "cueshift.inference.stand_ins.tiny", "llava_next",
                    ".cueshift-cache/tiny-llava_next"], check=True, capture_output=True)
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
            frame = con.sql(f"SELECT * FROM \"{name}\"").pl()
            keep = [c for c in frame.columns if not VOLATILE.search(c)]
            frame = frame.select(keep)
            sortable = [c for c in keep if not isinstance(frame.schema[c], (pl.List, pl.Struct, pl.Array))]
            if sortable:
                frame = frame.sort(sortable, nulls_last=True)
            frame.write_parquet(out / f"{case}.{name}.parquet")
        con.close()
        print(f"{case}: {len(names)} tables", flush=True)


def compare(before: Path, after: Path) -> int:
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
            print(f"differs: {name}")
            differ += 1
    print(f"{len(old & new)} files compared, {differ} differ")
    return 1 if differ else 0


if __name__ == "__main__":
    if sys.argv[1] == "dump":
        dump(Path(sys.argv[2]), sys.argv[3:])
    else:
        sys.exit(compare(Path(sys.argv[2]), Path(sys.argv[3])))
