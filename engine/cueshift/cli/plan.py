"""``cueshift plan``: power, minimum detectable effects and cost before a run (docs/plan.md); the
command line of :func:`cueshift.api.plan_study`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from cueshift.cli._common import StudyOption


def plan_command(
    study: StudyOption = "default",
    pilot: Annotated[
        Path | None, typer.Option(help="Pilot study database of the same design (default: the defaults).")
    ] = None,
    target_effect: Annotated[
        float | None,
        typer.Option(help="Effect to detect (|SBS| 0.02, score gap 0.05, win share 0.6, CI half-width 0.1)."),
    ] = None,
    power: Annotated[float, typer.Option(help="Target power.")] = 0.8,
    alpha: Annotated[
        float | None,
        typer.Option(
            help="FDR level of BH per family (single tests: alpha); default: the design's own "
            "(paired: \\[paired] alpha), else 0.05."
        ),
    ] = None,
    faces: Annotated[
        int | None, typer.Option(help="Plan for this many faces (individuals, images; trials for pairwise).")
    ] = None,
    simulations: Annotated[int, typer.Option(help="Simulated studies at the planned size (0: none).")] = 200,
    curve_simulations: Annotated[
        int | None,
        typer.Option(
            help="Simulated studies per power-curve point (default 200; stylisticbias only: the other "
            "designs draw no power curve and refuse a positive count)."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed of the simulations.")] = 0,
    image_tokens: Annotated[int, typer.Option(help="Prefill tokens of one image.")] = 576,
    question_tokens: Annotated[
        float | None, typer.Option(help="Prefill tokens of one question (default: from the prompt text).")
    ] = None,
    answer_tokens: Annotated[int, typer.Option(help="Tokens of one sampled answer.")] = 4,
    throughput: Annotated[
        float | None,
        typer.Option(
            help="Prompts per second per model (default: the pilot's latencies, else the rate measured "
            "for the model's size in cueshift/power/throughput.csv)."
        ),
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Output folder (default: runs/<study>-plan/).")] = None,
    progress: Annotated[
        bool, typer.Option(help="Show progress bars on stderr (a terminal only) and the compile note.")
    ] = True,
) -> None:
    """Plan a study before running it: power, minimum detectable effects, half-widths, units and cost."""
    from cueshift.api import plan_study

    plan_study(
        study,
        pilot=pilot,
        target_effect=target_effect,
        power=power,
        alpha=alpha,
        faces=faces,
        simulations=simulations,
        curve_simulations=curve_simulations,
        seed=seed,
        image_tokens=image_tokens,
        question_tokens=question_tokens,
        answer_tokens=answer_tokens,
        throughput=throughput,
        out=out,
        progress=progress,
        quiet=False,
    )
