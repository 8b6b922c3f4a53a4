"""Benchmark of the command line's start-up (D86): two source trees side by side, in one run.

Each call is a fresh ``cueshift`` process (what the console script runs, with the tree's
``engine`` first on ``PYTHONPATH``), so the time is everything a user waits for: the interpreter,
the imports of building the app, the command itself. The calls:

* ``cueshift --help``;
* ``cueshift analyze --help``;
* ``cueshift analyze --study missing.toml``: a one-line error (exit 2) before anything is read.

Every repetition runs each call on both trees, the trees' order alternating, so a change in the
machine's load falls on both. Both trees must print the same (stdout, stderr and exit code), which
is checked. Per call and tree: the median, fastest and slowest wall seconds and the median CPU
seconds (user + system) of the process.

Usage::

    git worktree add /tmp/wt-d86 <the revision before>
    .venv/bin/python benchmarks/bench_cli_startup.py --before /tmp/wt-d86 [--after .] [--n 15] \\
        [--only-error] [--error-of sql] [--markdown BENCHMARKS.md]

With ``--markdown`` the section between the ``bench_cli_startup`` markers of that file is replaced.
``--only-error`` times the one-line error alone (D90: reading the study file no longer loads the
data libraries); it does not go with ``--markdown``. ``--error-of COMMAND`` (repeatable; D93) times
that command's one-line error, ``cueshift COMMAND [its required arguments] --study missing.toml``,
instead of ``analyze``'s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench_markdown import replace_section

START, END = "<!-- bench_cli_startup:start -->", "<!-- bench_cli_startup:end -->"

#: What ``.venv/bin/cueshift`` runs.
CONSOLE_SCRIPT = "import sys; sys.argv[0] = 'cueshift'; from cueshift.cli import main; sys.exit(main())"

CALLS: tuple[tuple[str, ...], ...] = (
    ("--help",),
    ("analyze", "--help"),
    ("analyze", "--study", "missing.toml"),
)

#: The arguments a command requires besides ``--study`` (``--error-of``).
REQUIRED: dict[str, tuple[str, ...]] = {"sql": ("SELECT 1",), "export": ("--out", "exported")}


@dataclass
class Timings:
    """One call on one tree: wall and CPU seconds of each repetition, and what it printed."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    printed: tuple[int, str, str] | None = None


def run_once(tree: Path, args: tuple[str, ...], timings: Timings) -> None:
    """Run ``cueshift <args>`` from ``tree`` in a fresh process; add its wall and CPU seconds."""
    env = {**os.environ, "PYTHONPATH": str(tree / "engine"), "COLUMNS": "120", "OMP_NUM_THREADS": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", CONSOLE_SCRIPT, *args], capture_output=True, text=True, env=env, timeout=300
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    printed = (done.returncode, done.stdout, done.stderr)
    if timings.printed is not None and printed != timings.printed:
        raise SystemExit(f"cueshift {' '.join(args)} ({tree}): printed something else than before")
    timings.printed = printed
    timings.wall.append(wall)
    timings.cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)


def measure(
    trees: dict[str, Path], n: int, calls: tuple[tuple[str, ...], ...] = CALLS
) -> dict[tuple[str, ...], dict[str, Timings]]:
    """``n`` repetitions of every call on every tree, interleaved, the trees' order alternating."""
    found = {args: {name: Timings() for name in trees} for args in calls}
    for repetition in range(n):
        names = list(trees) if repetition % 2 == 0 else list(reversed(trees))
        for args in calls:
            for name in names:
                run_once(trees[name], args, found[args][name])
    for args, by_tree in found.items():
        outputs = {timings.printed for timings in by_tree.values()}
        if len(outputs) != 1:
            raise SystemExit(f"cueshift {' '.join(args)}: the trees print different things")
    return found


def table(found: dict[tuple[str, ...], dict[str, Timings]]) -> str:
    """The markdown table: per call and tree, wall seconds (median, fastest, slowest) and median CPU."""
    lines = [
        "| call | tree | wall s, median | fastest | slowest | CPU s, median | before / after (median wall) |",
        "|---|---|---|---|---|---|---|",
    ]
    for args, by_tree in found.items():
        medians = {name: statistics.median(t.wall) for name, t in by_tree.items()}
        for name, timings in by_tree.items():
            ratio = f"{medians['before'] / medians['after']:.1f}x" if name == "after" else ""
            lines.append(
                f"| `cueshift {' '.join(args)}` | {name} | {medians[name]:.2f} | {min(timings.wall):.2f} "
                f"| {max(timings.wall):.2f} | {statistics.median(timings.cpu):.2f} | {ratio} |"
            )
    return "\n".join(lines)


def section(table_text: str, trees: dict[str, Path], n: int) -> str:
    """The BENCHMARKS.md section of this run."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"""{START}
## Command-line start-up: `--help` and a one-line error (`benchmarks/bench_cli_startup.py`, D86)

Command (from the repository root, {dt.date.today().isoformat()}, {os.cpu_count()} CPUs visible,
load average {load} at the end, Python {platform.python_version()}):

```bash
git worktree add {trees["before"]} <the revision before D86>
.venv/bin/python benchmarks/bench_cli_startup.py --before {trees["before"]} --n {n} --markdown BENCHMARKS.md
```

Each call a fresh process running what `.venv/bin/cueshift` runs, with the tree's `engine` first
on `PYTHONPATH`; {n} repetitions, each call on both trees in turn (the order alternating), both
printing the same (checked). Before, building the app imported `cueshift.render` (for `report`'s
options) and with it the store, pandera, pandas, polars, DuckDB and hypothesis; after, building it
and every `--help` import none of them (`tests/cli/test_startup.py`). The one-line error loaded
them until D90: its message comes from `cueshift.designs.load_study`, which validates the study
against every design's model, and the designs' modules loaded their machinery; since D90 they
import it when used (`tests/study/test_load_is_light.py`). On a loaded machine the wall seconds
spread; the CPU seconds of the process are the steadier figure.

{table_text}
{END}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="The tree before (a git worktree).")
    parser.add_argument("--after", type=Path, default=Path("."), help="The tree after (default: here).")
    parser.add_argument("--n", type=int, default=15, help="Repetitions of each call on each tree.")
    parser.add_argument("--markdown", type=Path, help="Replace this file's bench_cli_startup section.")
    parser.add_argument("--only-error", action="store_true", help="Time the one-line error alone (D90).")
    parser.add_argument(
        "--error-of",
        action="append",
        metavar="COMMAND",
        help="Time this command's one-line error with --study missing.toml (repeatable; D93).",
    )
    options = parser.parse_args()
    if (options.only_error or options.error_of) and options.markdown is not None:
        parser.error("--only-error, --error-of: the section of --markdown needs every call")
    trees = {"before": options.before.resolve(), "after": options.after.resolve()}
    calls = CALLS[-1:] if options.only_error else CALLS
    if options.error_of:
        calls = tuple((c, *REQUIRED.get(c, ()), "--study", "missing.toml") for c in options.error_of)
    found = measure(trees, options.n, calls)
    text = table(found)
    print(text)
    if options.markdown is not None:
        replace_section(
            options.markdown, section(text, {**trees, "before": options.before}, options.n), START, END
        )


if __name__ == "__main__":
    main()
