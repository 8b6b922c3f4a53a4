"""What the importers print: counts, what was left out and why, and the labelled reliabilities."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl
from rich.console import Console
from rich.markup import escape

from cueshift._console import FitTable
from cueshift.designs.imported_judges import IMPORT_BACKEND
from cueshift.render import fmt_integer, fmt_num

if TYPE_CHECKING:
    from cueshift.imports.judgments import JudgmentImport
    from cueshift.imports.omi import OmiImport


def _examples(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f", … (+{len(items) - limit} more)" if len(items) > limit else "")


def print_omi_summary(result: OmiImport, console: Console) -> None:
    """Images, ratings kept and left out, pseudo-raters, and the split-half reliability per attribute."""
    ratings = result.ratings
    long = ratings.long
    cells = long.group_by("stimulus", "attribute").len()["len"].cast(pl.Int64).to_list()
    console.print(
        f"OMI: {fmt_integer(result.n_images)} images, {fmt_integer(ratings.n_read)} ratings read, "
        f"{fmt_integer(long.height)} kept "
        f"({long['attribute'].n_unique()} attributes, {fmt_integer(long['stimulus'].n_unique())} stimuli, "
        f"{min(cells)}-{max(cells)} ratings per stimulus x attribute)",
        markup=False,
        soft_wrap=True,
    )
    types = ", ".join(f"{t or '<empty>'} ({fmt_integer(n)})" for t, n in ratings.type_counts.items())
    console.print(
        f"rating_type: {types}; kept: {', '.join(ratings.types_kept)}", markup=False, soft_wrap=True
    )
    if ratings.out_of_set:
        n = sum(ratings.out_of_set.values())
        console.print(
            f"left out: {fmt_integer(n)} ratings of {fmt_integer(len(ratings.out_of_set))} stimuli "
            "without an image "
            f"({_examples(list(ratings.out_of_set))})",
            markup=False,
            soft_wrap=True,
        )
    if ratings.unrated_images:
        console.print(
            f"images without ratings: {fmt_integer(len(ratings.unrated_images))} "
            f"({_examples(list(ratings.unrated_images))})",
            markup=False,
            soft_wrap=True,
        )
    if result.reliability_converted:
        console.print(
            f"{result.reliability_file}: the published reliabilities were on a 0-100 scale; "
            "divided by 100 (correlations lie in -1..1)",
            markup=False,
            soft_wrap=True,
        )
    table = FitTable(title="Split-half reliability of the pseudo-raters (Pearson, random halves)")
    table.add_column("attribute")
    table.add_column("split-half r (uncorrected)", justify="right")
    table.add_column("Spearman-Brown 2r/(1+r)", justify="right")
    table.add_column("raters", justify="right")
    table.add_column("splits", justify="right")
    for row in result.split_half.iter_rows(named=True):
        table.add_row(
            escape(row["attribute"]),
            fmt_num(row["raw_r"]),
            fmt_num(row["spearman_brown"]),
            str(row["n_raters"]),
            str(row["n_splits"]),
        )
    console.print(table)
    console.print(
        f"study -> {result.study_file}\nnext: cueshift infer --study {result.study_file}",
        markup=False,
        soft_wrap=True,
    )


def print_judgment_summary(result: JudgmentImport, console: Console) -> None:
    """Files read, judgments written and already stored, and where our parser and the release's disagree."""
    console.print(
        f"{fmt_integer(result.n_files)} judgment files of {len(result.models)} model(s) read in "
        f"{result.seconds:.1f} s ({result.n_files / max(result.seconds, 1e-9):,.0f} files/s): "
        f"{fmt_integer(result.n_written)} judgments "
        f"written, {fmt_integer(result.n_already_stored)} already stored -> {result.database}",
        markup=False,
        soft_wrap=True,
    )
    if result.croissant:
        console.print(f"release: {result.croissant}", markup=False, soft_wrap=True)
    if not result.study_lists_models:
        tables = " ".join(f'[[models]] model_id = "{m}" backend = "{IMPORT_BACKEND}"' for m in result.models)
        console.print(
            "note: the study file lists no [[models]]; for analyze and report to read these "
            f"judgments add {tables}",
            markup=False,
            soft_wrap=True,
        )
    table = FitTable(title="Our strict parser vs the release's chosen_option (per judgment)")
    columns = {
        "n": "judgments",
        "agree": "same reading",
        "disagree": "disagree",
        "we_invalid_release_letter": "we: invalid, release: a letter",
        "letters_differ": "opposite letters",
        "we_letter_release_none": "we: a letter, release: none",
    }
    table.add_column("model")
    for title in columns.values():
        table.add_column(title, justify="right")
    for row in result.agreement.iter_rows(named=True):
        table.add_row(escape(row["model_id"]), *(fmt_integer(row[c]) for c in columns))
    console.print(table)
    echoed = ", ".join(
        f"{row['model_id']} {fmt_integer(row['echo_stripped'])}"
        for row in result.agreement.iter_rows(named=True)
    )
    console.print(
        f"answers echoing the prompt sent, cut to the answer before parsing: {echoed}",
        markup=False,
        soft_wrap=True,
    )
