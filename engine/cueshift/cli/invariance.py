"""``cueshift check-invariance``: do the stored answers depend on batching? A stratified sample of
stored judgments asked again one at a time, as the run batched them, and in score mode
(``result_invariance``; docs/invariance.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cueshift._console import FitTable
from cueshift.cli._common import DbOption, StudyOption, console, err_console
from cueshift.cli._models_option import ModelsOption


def check_invariance(
    study: StudyOption = "default",
    db: DbOption = None,
    sample: Annotated[
        int, typer.Option(help="Judgments re-asked per model, balanced over scenario category x ordering.")
    ] = 200,
    seed: Annotated[int, typer.Option(help="Seed of the sample.")] = 0,
    bound: Annotated[
        float, typer.Option(help="Flag a model whose share of identical answers is below this.")
    ] = 0.99,
    models: ModelsOption = None,
) -> None:
    """Ask a stratified sample of stored judgments again: one at a time, in the run's batches, and
    (generate runs of the transformers backend) in score mode; per model the share of identical
    answers, Cohen's kappa and the phi difference with its interval, into result_invariance.
    A model whose answers differ beyond --bound is flagged here and by `cueshift status`.
    """
    from cueshift.designs import load_study

    spec = load_study(study)  # a bad study file is one line before the store and statistics load (D93)
    from cueshift.execution.interrupts import stop_on_sigterm
    from cueshift.execution.invariance import check_invariance_study
    from cueshift.render import ci_label
    from cueshift.schemas.invariance import INVARIANCE_LEVEL
    from cueshift.store.model_subset import parse_models

    stop_on_sigterm()
    path = Path(db or spec.database_path)
    target, frame = check_invariance_study(
        path, spec, models=parse_models(models), sample=sample, seed=seed, bound=bound, note=_note
    )
    table = FitTable(title=f"answers re-asked -> {target} (result_invariance)")
    interval = f"phi diff [{ci_label(INVARIANCE_LEVEL)}]"
    for column in ("model", "compared with", "identical", "kappa", "phi stored", interval, "flag"):
        table.add_column(column)
    for r in frame.iter_rows(named=True):
        low, high = r["phi_diff_ci_low"], r["phi_diff_ci_high"]
        ci = "" if low is None else f" [{low:+.3f}, {high:+.3f}]"
        table.add_row(
            r["model_id"],
            r["comparison"].replace("_", " "),
            f"{r['n_identical']}/{r['n']} ({r['share_identical']:.1%})",
            "-" if r["kappa"] is None else f"{r['kappa']:.3f}",
            f"{r['phi_stored']:.3f}",
            f"{r['phi_diff']:+.3f}{ci}",
            "FLAG" if r["flagged"] else ("" if r["checked"] else "(not checked)"),
        )
    console.print(table)
    for r in frame.filter("flagged").iter_rows(named=True):
        console.print(
            f"FLAG model {r['model_id']}: {r['share_identical']:.1%} of answers identical "
            f"{r['comparison'].replace('_', ' ')} (< {r['bound']:.0%}): its answers depend on batching",
            markup=False,
            soft_wrap=True,
        )


def _note(line: str) -> None:
    err_console.print(line, markup=False, highlight=False, soft_wrap=True)


__all__ = ["check_invariance"]
