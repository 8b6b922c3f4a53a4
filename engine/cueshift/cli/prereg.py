"""``cueshift prereg``: freeze a study's analysis plan (docs/prereg.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cueshift.cli._common import StudyOption, console
from cueshift.cli._models_option import ModelsOption


def prereg(
    study: StudyOption = "default",
    out: Annotated[Path, typer.Option(help="The plan file to write (canonical TOML).")] = Path("plan.toml"),
    resamples: Annotated[int | None, typer.Option(help="As `cueshift analyze --resamples`.")] = None,
    seed: Annotated[int | None, typer.Option(help="As `cueshift analyze --seed`.")] = None,
    test: Annotated[str | None, typer.Option(help="As `cueshift analyze --test`.")] = None,
    ci: Annotated[str | None, typer.Option(help="As `cueshift analyze --ci`.")] = None,
    phi: Annotated[str | None, typer.Option(help="As `cueshift analyze --phi`.")] = None,
    min_identity: Annotated[float | None, typer.Option(help="As `cueshift analyze --min-identity`.")] = None,
    models: ModelsOption = None,
    compat: Annotated[str | None, typer.Option(help="As `cueshift analyze --compat`.")] = None,
    generalise: Annotated[str | None, typer.Option(help="As `cueshift analyze --generalise`.")] = None,
    audit: Annotated[str | None, typer.Option(help="As `cueshift analyze --audit`.")] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing plan file.")] = False,
) -> None:
    """Freeze the analysis plan: design, study (scenarios, attributes, parser, seeds, models, smallest
    effects), declared statistics and correction families, these options, alpha, and the SHA-256 of the
    study and image set, under the plan's own SHA-256. `cueshift analyze --prereg FILE` runs exactly it.
    """
    from cueshift.api import prereg as freeze

    digest = freeze(
        study, out, resamples=resamples, seed=seed, test=test, ci=ci, phi=phi, min_identity=min_identity,
        models=models, compat=compat, generalise=generalise, audit=audit, force=force,
    )  # fmt: skip
    console.print(f"{out}: plan frozen, SHA-256 {digest}", markup=False, highlight=False, soft_wrap=True)
