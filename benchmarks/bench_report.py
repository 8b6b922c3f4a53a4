"""Time the RQ1-RQ3 report render (HTML + PDF, no Quarto) on a paper-scale simulated study.

Usage (repo root)::

    .venv/bin/python benchmarks/bench_analysis.py --db /tmp/paper.duckdb    # builds + analyses the study
    .venv/bin/python benchmarks/bench_report.py --db /tmp/paper.duckdb --out BENCHMARKS.md

The section between the ``bench_report`` markers of ``--out`` is replaced with the numbers.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import duckdb

from cueshift.designs.stylisticbias.report import CATALOG
from cueshift.render import render_report

START, END = "<!-- bench_report:start -->", "<!-- bench_report:end -->"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--db", type=Path, required=True, help="an analysed study database")
    parser.add_argument("--out", type=Path, default=None, help="markdown file whose bench section to replace")
    args = parser.parse_args()

    with duckdb.connect(str(args.db), read_only=True) as con:
        (n_judgments,) = con.execute("SELECT count(*) FROM judgment").fetchone()  # type: ignore[misc]
        (n_models,) = con.execute("SELECT count(DISTINCT model_id) FROM judgment").fetchone()  # type: ignore[misc]
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out_dir:
        result = render_report(args.db, document=CATALOG.document_path, out_dir=out_dir, engine="jupyter")
        sizes = {fmt: Path(path).stat().st_size for fmt, path in result.outputs.items()}
    seconds = time.perf_counter() - started
    section = "\n".join(
        [
            START,
            "## Report rendering (`benchmarks/bench_report.py`)",
            "",
            "Command (repo root): `.venv/bin/python benchmarks/bench_analysis.py --db /tmp/paper.duckdb` "
            "then `.venv/bin/python benchmarks/bench_report.py --db /tmp/paper.duckdb --out BENCHMARKS.md`",
            "",
            f"Paper-scale simulated study: {n_models} models, {n_judgments:,} judgments. "
            f"`reports/study.qmd` rendered to HTML and PDF without Quarto ({result.engine}): "
            f"**{seconds:.1f} s** wall (target < 120 s); "
            + ", ".join(f"{fmt} {size / 1e6:.1f} MB" for fmt, size in sizes.items())
            + ".",
            END,
        ]
    )
    print(section)
    if args.out is not None:
        text = args.out.read_text(encoding="utf-8") if args.out.exists() else "# Benchmarks\n"
        if START in text:
            text = text[: text.index(START)] + section + text[text.index(END) + len(END) :]
        else:
            text = text.rstrip() + "\n\n" + section + "\n"
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
