"""Benchmark of `cueshift import judgments`: files/s of the parallel, batched import against the
straightforward one-file-at-a-time loop, side by side.

A SYNTHETIC release tree is written first (``output/final_dataset`` with small PNG faces and
``output/judgements/<model>/<face>/<img>/<img>_scenario<i>_order<o>_seed<s>.json``, 25 scenarios ×
4 orders × 3 seeds per image, ~0.6 kB per file as the release writes them). Then:

* **read + check** — every file read, decoded and checked into columns:
  (a) the straightforward loop (``os.walk``, ``open`` + ``json.load`` + the same checks, one dict per
  file); (b) :func:`cueshift.images.release_judgments.read_judgment_tree` in this process;
  (c) the same with one process per CPU;
* **whole import** — files to rows in the study database:
  (a) the straightforward loop: read one file, parse its answer, ``INSERT`` its two rows in a
  transaction of their own (run on the first ``--naive-files`` files: it is slow);
  (b) ``cueshift import judgments`` (:func:`cueshift.imports.judgments.import_judgments`): parallel
  reads, every file checked before the first write, batched validated writes.

The files were just written, so they are read from the page cache (dropping it needs privileges
the shared machines do not give): the numbers are the CPU cost per file, the floor of a cold read.

Usage::

    .venv/bin/python benchmarks/bench_import.py [--images 100] [--out BENCHMARKS.md]

With ``--out`` the section between the ``bench_import`` markers of that file is replaced.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_markdown import replace_section
from PIL import Image

from cueshift import store
from cueshift.designs.stylisticbias.scenarios import STYLISTICBIAS_25
from cueshift.images.release_judgments import SCHEMA, parse_judgment, read_judgment_tree
from cueshift.imports.judgments import import_judgments
from cueshift.inference.parser import parse_answer
from cueshift.study.scenarios import ORDERING_BY_ID, RELEASED_TEMPLATE

START, END = "<!-- bench_import:start -->", "<!-- bench_import:end -->"
VARIATIONS = (("eyewear", "Sunglasses"), ("tattoos", "Facial tattoo"), ("hair_color", "Blonde"))
ANSWERS = ("(a)", "(b)", "(b)", "(a)", "Answer: (b)", "I think (a) or (b)", "I cannot tell")


def write_tree(root: Path, n_images: int) -> tuple[int, Path]:
    """A release checkout with ``n_images`` images (bases and variations) and their judgment files."""
    final, judgements = root / "output" / "final_dataset", root / "output" / "judgements" / "sim-judge"
    scenarios = STYLISTICBIAS_25
    n_files = 0
    per_face = 1 + len(VARIATIONS)
    for f in range((n_images + per_face - 1) // per_face):
        face = f"face_{f}_20250301_1015{f % 60:02d}_{f:08x}"
        (final / face).mkdir(parents=True)
        base = {"age": "young adult", "gender": "male", "ethnicity": "Asian", "body_type": "thin"}
        stems = [(face, None)] + [
            (f"{face}_face_{k}_20250302_093000_{k:08x}", v) for k, v in enumerate(VARIATIONS)
        ]
        for stem, variation in stems[: n_images - f * per_face]:
            Image.new("RGB", (8, 8), (f % 256, len(stem) % 256, 9)).save(final / face / f"{stem}.png")
            characteristics: dict[str, Any] = (
                base if variation is None else {"base": base, "variation": dict([variation]), "prompt": "p"}
            )
            meta = {"image_path": f"/elsewhere/{stem}.png", "characteristics": characteristics}
            (final / face / f"{stem}_metadata.json").write_text(json.dumps(meta))
            folder = judgements / face / stem
            folder.mkdir(parents=True)
            for i, scenario in enumerate(scenarios):
                for order in range(4):
                    ordering = ORDERING_BY_ID[order + 1]
                    options = ordering.descriptor_by_letter(scenario)
                    for seed in range(3):
                        raw = ANSWERS[(i + order + seed + n_files) % len(ANSWERS)]
                        record = {
                            "face_image_name": f"{stem}.png", "characteristics": characteristics,
                            "order": order, "seed": seed,
                            "prompt": ordering.render(RELEASED_TEMPLATE, scenario),
                            "timestamp": "2025-04-01T12:00:00.000000", "options": options,
                            "chosen_option": "a" if "a" in raw.lower() else "b", "raw_output": raw,
                        }  # fmt: skip
                        name = f"{stem}_scenario{i + 1}_order{order}_seed{seed}.json"
                        (folder / name).write_text(json.dumps(record, indent=2))
                        n_files += 1
    study = root / "study.toml"
    study.write_text(
        f'name = "bench-import"\ndatabase = "{root / "bench.duckdb"}"\nseeds = [0, 1, 2]\n'
        f'[benchmark]\nkind = "stylisticbias"\nroot = "{root}"\n'
        "[variations]\nwhitelist = {}\nrules = []\n"
        '[[models]]\nmodel_id = "sim-judge"\nbackend = "simulated"\n'
    )
    return n_files, study


def naive_read(folder: Path) -> int:
    """The straightforward loop: walk, open, ``json.load``, check, one dict per file."""
    rows = []
    for directory, _, names in sorted(os.walk(folder)):
        parts = Path(directory).relative_to(folder).parts
        for name in sorted(names):
            with open(os.path.join(directory, name), "rb") as handle:
                row = parse_judgment(handle.read(), "/".join((*parts, name)), *parts)
            rows.append(dict(zip(SCHEMA, row, strict=True)))
    return len(rows)


def naive_import(folder: Path, database: Path, limit: int) -> int:
    """One file at a time: read, parse the answer, INSERT its rows in a transaction of their own."""
    scenarios = {s.favorable: s for s in STYLISTICBIAS_25}
    con = store.open_study(database)
    done = 0
    try:
        for directory, _, names in sorted(os.walk(folder)):
            parts = Path(directory).relative_to(folder).parts
            for name in sorted(names):
                if done == limit:
                    return done
                with open(os.path.join(directory, name), "rb") as handle:
                    data = json.load(handle)
                match = re.search(r"_scenario(\d+)_order(\d+)_seed(\d+)\.json$", name)
                assert match is not None
                scenario = scenarios.get(data["options"]["a"]) or scenarios[data["options"]["b"]]
                ordering = int(match[2]) + 1
                mapping = ORDERING_BY_ID[ordering].descriptor_by_letter(scenario)
                letter = parse_answer(data["raw_output"], mapping).letter
                fav = ORDERING_BY_ID[ordering].favorable_letter
                outcome = "invalid" if letter is None else ("favorable" if letter == fav else "unfavorable")
                key = [parts[0], parts[2], scenario.scenario_id, ordering, int(match[3])]
                con.execute("BEGIN TRANSACTION")
                con.execute(
                    "INSERT INTO judgment (model_id, image_id, scenario_id, ordering, seed, response_text, "
                    "outcome, chosen_letter, latency_ms, created_at, run_id) "
                    "VALUES (?,?,?,?,?,?,?,?,0,?,'naive')",
                    [*key, data["raw_output"], outcome, letter, dt.datetime.now()],
                )
                con.execute(
                    "INSERT INTO release_judgment (model_id, image_id, scenario_id, ordering, seed, "
                    "chosen_option, release_letter, source_file, run_id) VALUES (?,?,?,?,?,?,?,?,'naive')",
                    [*key, data["chosen_option"], data["chosen_option"], name],
                )
                con.execute("COMMIT")
                done += 1
    finally:
        con.close()
    return done


def timed(action: Callable[[], int]) -> tuple[int, float]:
    started = time.perf_counter()
    count = action()
    return count, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=100, help="images in the tree (300 files each)")
    parser.add_argument("--naive-files", type=int, default=3000, help="files the naive import loop writes")
    parser.add_argument("--out", type=Path, help="replace the bench_import section of this markdown file")
    args = parser.parse_args()
    workers = os.cpu_count() or 1
    root = Path(tempfile.mkdtemp(prefix="cueshift-bench-import-"))
    try:
        n_files, study = write_tree(root, args.images)
        folder = root / "output" / "judgements"
        size = sum(p.stat().st_size for p in folder.rglob("*.json")) / n_files
        rows: list[tuple[str, int, float]] = []
        rows.append(
            (
                "read + check: straightforward loop (walk, json.load, one dict per file)",
                *timed(lambda: naive_read(folder)),
            )
        )
        rows.append(
            (
                "read + check: `read_judgment_tree`, 1 process",
                *timed(lambda: read_judgment_tree(folder, workers=1).height),
            )
        )
        rows.append(
            (
                f"read + check: `read_judgment_tree`, {workers} processes",
                *timed(lambda: read_judgment_tree(folder, workers=workers).height),
            )
        )
        naive_db = root / "naive.duckdb"
        rows.append(
            (
                "whole import: straightforward loop (a transaction per file)",
                *timed(lambda: naive_import(folder, naive_db, args.naive_files)),
            )
        )
        imported = import_judgments(root, study, workers=workers)
        rows.append(
            (
                f"whole import: `cueshift import judgments` ({workers} processes, batched writes)",
                imported.n_written,
                imported.seconds,
            )
        )
        again = import_judgments(root, study, workers=workers)
        rows.append(("whole import, again (idempotent: nothing new to write)", again.n_files, again.seconds))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    base_read = rows[0][1] / rows[0][2]
    base_import = rows[3][1] / rows[3][2]
    table = ["| step | files | s | files/s | vs loop |", "|---|---:|---:|---:|---:|"]
    for i, (label, count, seconds) in enumerate(rows):
        rate = count / seconds
        base = base_read if i < 3 else base_import
        table.append(f"| {label} | {count:,} | {seconds:.2f} | {rate:,.0f} | {rate / base:.1f}x |")
    lines = [
        START,
        "## Importing release-code runs (`benchmarks/bench_import.py`)",
        "",
        f"Command (from the repository root, {dt.date.today().isoformat()}):",
        "",
        "```bash",
        f".venv/bin/python benchmarks/bench_import.py --images {args.images} --out BENCHMARKS.md",
        "```",
        "",
        f"A synthetic release tree of {n_files:,} judgment files ({args.images} images x 25 scenarios"
        f" x 4 orders x 3 seeds, {size:.0f} bytes each) on {platform.machine()} with {workers} CPUs"
        " visible, read from the page cache (the CPU cost per file; a cold disk adds its own). The whole"
        " import includes loading the study (hashing its images) and the database writes; the"
        f" straightforward import loop ran on its first {args.naive_files:,} files.",
        "",
        *table,
        "",
        END,
    ]
    text = "\n".join(lines)
    print(text)
    if args.out:
        replace_section(args.out, text + "\n", START, END)


if __name__ == "__main__":
    main()
