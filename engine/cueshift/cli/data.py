"""``cueshift import``: data users already have (docs/importing.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from cueshift.cli._common import DbOption

import_app = typer.Typer(
    no_args_is_help=True,
    help="Import data users already have: the One Million Impressions ratings, release-code judgments.",
)


def import_omi_command(
    folder: Annotated[Path, typer.Argument(help="OMI folder: images/<n>.jpg and attribute_ratings.csv.")],
    out: Annotated[Path, typer.Option(help="Folder for the study file and the ratings it reads.")] = Path(
        "omi-study"
    ),
    name: Annotated[str, typer.Option(help="Study name (and database file stem).")] = "omi",
    model: Annotated[
        list[str] | None,
        typer.Option(help="Model ID=BACKEND[:CHECKPOINT], repeatable (default: a CLIP ViT-B/32)."),
    ] = None,
    rating_type: Annotated[
        list[str] | None,
        typer.Option(help="rating_type values to keep, repeatable; 'all' pools them (needed when mixed)."),
    ] = None,
    reliability: Annotated[
        Path | None,
        typer.Option(
            help="Published reliabilities: the published IRR file as it is (CSV attribute,human_irr, "
            "0-100), or CSV attribute,reliability (-1..1 or 0-100)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the pseudo-rater order.")] = 0,
    force: Annotated[bool, typer.Option(help="Replace study files already in --out.")] = False,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Build a probe study (seed 004) from the One Million Impressions layout (nothing written if bad)."""
    from cueshift.api import import_omi

    import_omi(
        folder,
        out,
        name=name,
        models=model,
        rating_types=rating_type,
        reliability=reliability,
        seed=seed,
        force=force,
        progress=progress and sys.stderr.isatty(),
        quiet=False,
    )


def import_judgments_command(
    folder: Annotated[
        Path, typer.Argument(help="Release checkout, its output/ folder or output/judgements/.")
    ],
    study: Annotated[
        str,
        typer.Option(
            "--study", "-s", help="Study file (TOML) whose image set holds the judged images (required)."
        ),
    ] = "default",
    db: DbOption = None,
    workers: Annotated[
        int | None, typer.Option(help="Processes reading the files (default: the CPU count).")
    ] = None,
    progress: Annotated[bool, typer.Option(help="Show progress bars.")] = True,
) -> None:
    """Load judgments made with the StylisticBias release code into the study database (idempotent)."""
    from cueshift.api import import_judgments

    import_judgments(
        folder, study, db=db, workers=workers, progress=progress and sys.stderr.isatty(), quiet=False
    )
