"""What the importers print: counts, what was left out and why, and the labelled reliabilities."""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl
from rich.console import Console
from rich.markup import escape
from rich.table import Table

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
        f"OMI: {result.n_images:,} images, {ratings.n_read:,} ratings read, {long.height:,} kept "
        f"({long['attribute'].n_unique()} attributes, {long['stimulus'].n_unique():,} stimuli, "
        f"{min(cells)}-{max(cells)} ratings per stimulus x attribute)",
        markup=False,
        soft_wrap=True,
    )
    types = ", ".join(f"{t or '<empty>'} ({n:,})" for t, n in ratings.type_counts.items())
    console.print(
        f"rating_type: {types}; kept: {', '.join(ratings.types_kept)}", markup=False, soft_wrap=True
    )
    if ratings.out_of_set:
        n = sum(ratings.out_of_set.values())
        console.print(
            f"left out: {n:,} ratings of {len(ratings.out_of_set):,} stimuli without an image "
            f"({_examples(list(ratings.out_of_set))})",
            markup=False,
            soft_wrap=True,
        )
    if ratings.unrated_images:
        console.print(
            f"images without ratings: {len(ratings.unrated_images):,} "
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
    table = Table(title="Split-half reliability of the pseudo-raters (Pearson, random halves)")
    table.add_column("attribute")
    table.add_column("split-half r (uncorrected)", justify="right")
    table.add_column("Spearman-Brown 2r/(1+r)", justify="right")
    table.add_column("raters", justify="right")
    table.add_column("splits", justify="right")
    for row in result.split_half.iter_rows(named=True):
        table.add_row(
            escape(row["attribute"]),
            f"{row['raw_r']:.3f}",
            f"{row['spearman_brown']:.3f}",
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
        f"{result.n_files:,} judgment files of {len(result.models)} model(s) read in {result.seconds:.1f} s "
        f"({result.n_files / max(result.seconds, 1e-9):,.0f} files/s): {result.n_written:,} judgments "
        f"written, {result.n_already_stored:,} already stored -> {result.database}",
        markup=False,
        soft_wrap=True,
    )
    if result.croissant:
        console.print(f"release: {result.croissant}", markup=False, soft_wrap=True)
    table = Table(title="Our strict parser vs the release's chosen_option (per judgment)")
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
        table.add_row(escape(row["model_id"]), *(f"{row[c]:,}" for c in columns))
    console.print(table)
    echoed = ", ".join(
        f"{row['model_id']} {row['echo_stripped']:,}" for row in result.agreement.iter_rows(named=True)
    )
    console.print(
        f"answers echoing the prompt sent, cut to the answer before parsing: {echoed}",
        markup=False,
        soft_wrap=True,
    )
