"""Benchmark of ``cueshift multiverse`` on the default study: the embedded default study judged
once (``cueshift infer``, two simulated judges, 1.86 M answers), then the whole command with the
default ``[multiverse]`` choices (41 specifications where no scores and no edit audit are stored:
parsing 2 × invalid answers 2 × generalise 2 × orderings 5, and the release's own path), 200
face-level bootstrap resamples per specification, timed in a fresh process; the machine's load
average before the run is printed beside it (the numbers depend on what else runs).

Usage::

    .venv/bin/python benchmarks/bench_multiverse.py [--resamples 200] [--db runs/default.duckdb]

Without ``--db`` the default study is judged into a temporary folder first (not timed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cli(*args: str, cwd: Path) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "cueshift.cli", *args], cwd=cwd, capture_output=True, text=True, check=True
    )
    return time.perf_counter() - start, done.stdout + done.stderr


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--db", type=Path, default=None, help="a judged default-study database")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        cwd = Path(folder)
        db = args.db.resolve() if args.db else cwd / "runs" / "default.duckdb"
        if args.db is None:
            seconds, _ = _cli("infer", "--no-progress", cwd=cwd)
            print(f"infer (not timed below): {seconds:.1f} s")
        load = os.getloadavg()[0]
        seconds, output = _cli(
            "multiverse", "--db", str(db), "--resamples", str(args.resamples), "--no-progress", cwd=cwd
        )
        headline = next(line for line in output.splitlines() if "specifications" in line)
        n_specs = int(headline.split()[0])
        print(f"load average before: {load:.2f} on {os.cpu_count()} cores")
        print(headline)
        print(
            f"cueshift multiverse: {seconds:.1f} s for {n_specs} specifications "
            f"({seconds / n_specs:.2f} s each, {args.resamples} resamples)"
        )


if __name__ == "__main__":
    main()
