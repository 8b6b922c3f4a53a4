"""``cueshift multiverse``: the headline claims over every path of the study's ``[multiverse]``
choices (``result_multiverse``, ``result_multiverse_summary``, ``result_multiverse_joint``)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from cueshift._console import FitTable
from cueshift.cli._common import DbOption, StudyOption, console, err_console
from cueshift.cli._models_option import ModelsOption

if TYPE_CHECKING:
    import polars as pl

#: Claims listed on the console, those holding in the fewest specifications first.
SHOWN = 15


def multiverse(
    study: StudyOption = "default",
    db: DbOption = None,
    resamples: Annotated[
        int | None,
        typer.Option(
            help="Face-level bootstrap resamples per specification (default \\[multiverse] resamples, 200)."
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Seed of the bootstrap and permutations (default 0).")
    ] = None,
    models: ModelsOption = None,
    progress: Annotated[bool, typer.Option(help="Show progress.")] = True,
) -> None:
    """Run the headline analyses (SBS per model and attribute, the top VS dimension) on every
    combination of the study's \\[multiverse] choices, from the stored judgments (no inference).

    Writes result_multiverse (one row per specification x claim), result_multiverse_summary (per
    claim: the share of specifications in which it holds and the choice that moves it most) and
    result_multiverse_joint (the joint test of each model's SBS, and of each of its attributes', over the
    specifications).
    """
    from cueshift.designs import load_study

    spec = load_study(study)  # a bad study file is one line before the store and statistics load (D93)
    from cueshift.execution.interrupts import stop_on_sigterm
    from cueshift.execution.multiverse_run import multiverse_study
    from cueshift.store.model_subset import parse_models

    stop_on_sigterm()
    path = Path(db or spec.database_path)
    show = progress and sys.stderr.isatty()

    def report(done: int, total: int) -> None:
        if show:
            err_console.print(f"specification {done}/{total}", markup=False, highlight=False)

    target, result = multiverse_study(
        path, spec, models=parse_models(models), resamples=resamples, seed=seed, progress=report, note=_note
    )
    _print_summary(result.summary, result.claims["specification"].n_unique(), target)
    _print_joint(result.joint, result.alpha)


def _note(line: str) -> None:
    err_console.print(line, markup=False, highlight=False, soft_wrap=True)


def _print_summary(summary: pl.DataFrame, n_specifications: int, target: Path) -> None:
    import polars as pl

    everywhere = summary.filter(pl.col("share_holds") == 1.0).height
    console.print(
        f"{n_specifications} specifications, {summary.height} claims: {everywhere} hold in every one "
        f"-> {target} (result_multiverse, result_multiverse_summary, result_multiverse_joint)",
        markup=False,
        soft_wrap=True,
    )
    released = summary.filter(pl.col("holds_release").is_not_null())
    if released.height:
        console.print(
            f"on the release's path (--compat release): {int(released['holds_release'].sum())} of "
            f"{released.height} claims hold",
            markup=False,
            soft_wrap=True,
        )
    fragile = summary.filter(pl.col("share_holds") < 1.0).sort("share_holds", "claim").head(SHOWN)
    if fragile.height == 0:
        return
    table = FitTable(title="claims that do not hold on every path (fewest first)")
    for column in ("claim", "holds", "moved most by", "release path"):
        table.add_column(column)
    rows = fragile.select("claim", "share_holds", "moved_most", "holds_release", "release_verdict")
    for claim, share, moved, held, verdict in rows.iter_rows():
        on_release = "" if held is None else ("holds" if held else f"differs ({verdict})")
        table.add_row(claim, f"{share:.0%}", moved or "", on_release)
    console.print(table)


def _print_joint(joint: pl.DataFrame, alpha: float) -> None:
    """One line per model: the joint test's p-values (median, count significant, Stouffer's Z) and
    how many of its attributes' Stouffer Z are jointly significant (BH-adjusted p < α)."""
    if joint.height == 0:
        return
    console.print(
        "joint test over cueshift's paths, p of (median SBS, paths significant in its sign, Stouffer Z):",
        markup=False,
        soft_wrap=True,
    )
    models = joint.filter(kind="sbs_model")
    attributes = joint.filter(kind="sbs_attribute", statistic="stouffer")
    for (model,), rows in models.group_by("model_id", maintain_order=True):
        p = dict(zip(rows["statistic"], rows["p"], strict=True))
        median = rows.filter(statistic="median")["observed"].item()
        own = attributes.filter(model_id=model)["p_adj"]
        console.print(
            f"  {model}: median {median:+.3f} (p {p['median']:.3f}), "
            f"{int(rows.filter(statistic='n_significant')['observed'].item())} of "
            f"{rows['n_specifications'][0]} significant (p {p['n_significant']:.3f}), "
            f"Z {rows.filter(statistic='stouffer')['observed'].item():.2f} (p {p['stouffer']:.3f}); "
            f"attributes with Z's p_adj < {alpha:g}: {int((own < alpha).sum())} of {own.len()}",
            markup=False,
            soft_wrap=True,
        )


__all__ = ["multiverse"]
