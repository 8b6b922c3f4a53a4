"""Side by side: ``cueshift analyze --compat release`` against the StylisticBias release's own
evaluation scripts, on the same clean answers, cell by cell.

The release has no licence file, so its code is not copied into this repository: give the path of
a checkout (``git clone https://github.com/timo-cavelius/StylisticBias``; the figures in
BENCHMARKS.md name the commit). The script

1. writes a SYNTHETIC release tree in the release's own layout (``output/final_dataset`` and
   ``output/judgements/<model>/<face>/<img>/<img>_scenario<i>_order<o>_seed<s>.json``, one answer
   per prompt ordering, every answer a clean ``(a)`` / ``(b)`` with ``chosen_option`` the
   descriptor the release's ``parse_choice`` reads from it), faces unevenly spread over the
   variations so that some cells have fewer than 3 faces and some none;
2. runs the release's scripts on it, unchanged, imported from the checkout:
   ``evaluation/evaluate_mllm_outputs.py`` (``evaluate_model`` per model: ``paired_deltas.csv`` and
   ``paired_delta_statistics.json``), ``evaluation/compare_model_evaluations.py`` (zero and large
   shares) and ``evaluation/check_significance_independent.py`` (Tables 3 and 11);
3. imports the same tree with ``cueshift import judgments`` and runs ``cueshift analyze --compat
   release`` (a subprocess: ``--cueshift-path`` runs another checkout's engine, e.g. the one before
   the compat work, for a before/after);
4. compares every cell both compute — Table 3's 40 category × dimension cells (mean, p, BH p, faces),
   Table 11's variation value × group cells (the same), Table 5 per model (SBS, Cohen's d, zero
   share, large share, Δ rows) — and prints matched/total and each miss by table and column.

Intervals are not compared (both are resampled, with different draws). The release writes Tables 3
and 11 rounded (means to 5 decimals, p-values to 7 significant digits): a cell matches when the two
agree to that rounding.

Usage::

    .venv/bin/python benchmarks/compat_side_by_side.py --release PATH [--faces 36] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import duckdb
from side_by_side_data import MODELS, write_tree
from side_by_side_release import parse_choice, run_release

from cueshift.study.variations import FEATURES

ENGINE = Path(__file__).resolve().parents[1] / "engine"
TABLE3_LABEL = {"age": "Age", "gender": "Gender", "ethnicity": "Ethn.", "body_type": "Body"}
#: The release's spelling of a Table 3 category where it differs from cueshift's.
RELEASE_CATEGORY = {"Skin irregularities": "Skin irreg."}
#: cueshift's variation category of each release feature key (Table 11's ``feature:value``).
CATEGORY_OF = {f.feature_key: f.category for f in FEATURES}


def run_cueshift(
    root: Path, work: Path, engine: Path, resamples: int, seeds: int
) -> duckdb.DuckDBPyConnection:
    """Import ``root``'s judgments into a new study and analyze it with ``--compat release``."""
    study = work / "study.toml"
    models = "".join(f'[[models]]\nmodel_id = "{m}"\nbackend = "release-import"\n' for m in MODELS)
    study.write_text(
        f'name = "side-by-side"\ndatabase = "{work / "study.duckdb"}"\nseeds = {list(range(seeds))}\n'
        f'[image_set]\nkind = "stylisticbias"\nroot = "{root}"\n{models}'
    )
    env = {**os.environ, "PYTHONPATH": str(engine)}
    cli = [sys.executable, "-c", "from cueshift.cli import main; main()"]
    for args in (
        ["import", "judgments", str(root), "--study", str(study)],
        ["analyze", "--study", str(study), "--compat", "release", "--resamples", str(resamples)],
    ):
        done = subprocess.run([*cli, *args], env=env, capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"cueshift {args[0]} failed:\n{done.stdout}\n{done.stderr}")
    return duckdb.connect(str(work / "study.duckdb"), read_only=True)


def _rows(con: duckdb.DuckDBPyConnection, table: str) -> list[dict[str, object]]:
    cursor = con.execute(f"SELECT * FROM {table}")
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _num(value: object) -> float | None:
    if value is None or value == "":
        return None
    number = float(value)  # type: ignore[arg-type]
    return None if number != number else number


def _same(release: float | None, ours: float | None, kind: str) -> bool:
    if release is None or ours is None:
        return release is None and ours is None
    if kind == "mean":  # written rounded to 5 decimals
        return abs(round(ours, 5) - release) <= 1e-9
    if kind == "p":  # written with 7 significant digits
        return abs(ours - release) <= 5e-7 * max(abs(release), 1e-300) + 1e-300
    return abs(ours - release) <= 1e-9 * max(1.0, abs(release))


#: Table 5's columns: the release's (``paired_delta_statistics.json``, the shares of
#: ``compare_model_evaluations``) and cueshift's.
TABLE5_COLUMNS = (
    ("mean_delta", "estimate"),
    ("cohens_d", "cohens_d"),
    ("zero_prop", "zero_share"),
    ("abs_ge_0_25", "large_share"),
    ("n_pairs", "n_obs"),
)
Cell = tuple[str, str, str, float | None, float | None, bool]


ARTEFACT = "floating-point artefact: matches the release with its float noise rounded away"


def reason(table: str, column: str, ours: float | None, n_faces: float | None, matches_rounded: bool) -> str:
    """Why a cell misses, where the reason is known (docs/importing.md)."""
    if matches_rounded:
        return ARTEFACT
    if table == "table3" and column == "p_adj" and ours is None and not n_faces:
        return (
            "cell without faces: the release writes its row (p_adj 1);"
            " an engine before docs/decisions.md D44 enters it into BH as p = 1 and writes no row"
        )
    return "not explained"


def compare(release: dict[str, Any], con: duckdb.DuckDBPyConnection) -> list[Cell]:
    """Every compared cell: (table, key, column, release value, cueshift value, matched)."""
    cells: list[Cell] = []
    columns = (("mean", "estimate", "mean"), ("p_raw", "p", "p"), ("p_adj_bh", "p_adj", "p"),
               ("n_faces", "n", "exact"))  # fmt: skip
    t3 = {}
    for r in _rows(con, "result_release_table3"):
        if r["group"] == "(mean of groups)":
            category = RELEASE_CATEGORY.get(str(r["variation_category"]), r["variation_category"])
            t3[(category, TABLE3_LABEL.get(str(r["dimension"]), r["dimension"]))] = r
    for row in release["table3"]:
        ours = t3.get((row["category"], row["demographic"]))
        row = {**row, "mean": row["mean_delta_unweighted"]}
        for theirs, mine, kind in columns:
            value = None if ours is None else _num(ours[mine])
            if mine == "n" and ours is None:
                value = 0.0
            key = f"{row['category']} x {row['demographic']}"
            cells.append(
                ("table3", key, mine, _num(row[theirs]), value, _same(_num(row[theirs]), value, kind))
            )
    t11 = {(f"{r['variation_category']}:{r['variation_value']}", str(r["group"])): r
           for r in _rows(con, "result_release_table11")}  # fmt: skip
    for row in release["table11"]:
        group = row["demographic_value"]
        feature, label = row["variation"].split(":", 1)
        ours = t11.get((f"{CATEGORY_OF.get(feature, feature)}:{label}", group))
        row = {**row, "mean": row["mean_delta"]}
        for theirs, mine, kind in columns:
            value = None if ours is None else _num(ours[mine])
            key = f"{row['variation']} x {group}"
            cells.append(
                ("table11", key, mine, _num(row[theirs]), value, _same(_num(row[theirs]), value, kind))
            )
    vs = {(r["model_id"], r["dimension"]): r for r in _rows(con, "result_release_table2_vs")}
    for model, rows in release["table2_vs"].items():
        for row in rows:
            ours = vs.get((model, row["category_type"]), {})
            want = _num(row["variation_strength"])
            for column in ("plugin_estimate", "n"):
                value = _num(ours.get(column))
                if column == "n":  # scenarios with 2+ groups
                    want = _num(row["n_scenarios"])
                cells.append(("table2_vs", f"{model} x {row['category_type']}", column, want, value,
                              _same(want, value, "exact")))  # fmt: skip
    t5 = {r["model_id"]: r for r in _rows(con, "result_release_table5")}
    for model, stats in release["table5"].items():
        ours = t5.get(model, {})
        for theirs, mine in TABLE5_COLUMNS:
            value, want = _num(ours.get(mine)), _num(stats[theirs])
            cells.append(("table5", model, mine, want, value, _same(want, value, "exact")))
    return cells


def summarize(cells: list[Cell], rounded: dict[tuple[str, str, str], bool], misses: Path | None) -> None:
    """Print matched/total, per table and column, the misses by reason and each miss."""
    matched = sum(c[5] for c in cells)
    artefacts = sum(not c[5] and rounded.get((c[0], c[1], c[2]), False) for c in cells)
    print(f"matched {matched} of {len(cells)} cells", end="; ")
    print(f"{artefacts} more once the release's float noise is rounded away")
    faces = {(c[0], c[1]): c[3] for c in cells if c[2] == "n"}
    reasons: dict[str, int] = {}
    rows = []
    for table, key, column, want, got, ok in cells:
        if not ok:
            why = reason(
                table, column, got, faces.get((table, key)), rounded.get((table, key, column), False)
            )
            reasons[f"{table} {column}: {why}"] = reasons.get(f"{table} {column}: {why}", 0) + 1
            rows.append((table, key, column, want, got, why))
    for table, column in sorted({(c[0], c[2]) for c in cells}):
        these = [c for c in cells if c[0] == table and c[2] == column]
        print(f"  {table:9s} {column:15s} {sum(c[5] for c in these):4d} of {len(these):4d} match")
    for why, count in sorted(reasons.items()):
        print(f"  {count:4d} missed: {why}")
    for table, key, column, want, got, why in rows:
        print(f"  miss {table} [{key}] {column}: release {want} cueshift {got} ({why})")
    if misses:
        with misses.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["table", "key", "column", "release", "cueshift", "reason"])
            writer.writerows(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--release", type=Path, required=True, help="a checkout of the release")
    parser.add_argument("--faces", type=int, default=36)
    parser.add_argument("--resamples", type=int, default=200)
    parser.add_argument("--seeds", type=int, default=1, help="answers per prompt ordering")
    parser.add_argument("--messy", type=float, default=0.0, help="share of messy answers (0-1)")
    parser.add_argument("--cueshift-path", type=Path, default=ENGINE, help="engine/ folder to run")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it")
    parser.add_argument("--misses", type=Path, help="write every miss to this CSV")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        root = work / "release-tree"
        read = parse_choice(args.release.resolve()) if args.messy else None
        n_files = write_tree(root, args.faces, seeds=args.seeds, messy=args.messy, read=read)
        release = run_release(args.release.resolve(), root, work / "release-eval")
        con = run_cueshift(root, work, args.cueshift_path.resolve(), args.resamples, args.seeds)
        cells = compare(release, con)
        rounded = {(c[0], c[1], c[2]): c[5] for c in compare(release["rounded"], con)}
    print(f"{n_files} answer files, {len(MODELS)} models, {args.faces} faces", end=", ")
    print(f"{args.seeds} seed(s), messy share {args.messy}")
    summarize(cells, rounded, args.misses)


if __name__ == "__main__":
    main()
