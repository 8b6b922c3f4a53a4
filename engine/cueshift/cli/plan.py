"""``cueshift plan``: power, minimum detectable effects and cost before a run (docs/plan.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from cueshift.cli._common import StudyOption, console


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
    alpha: Annotated[float, typer.Option(help="FDR level of BH per family (single tests: alpha).")] = 0.05,
    faces: Annotated[
        int | None, typer.Option(help="Plan for this many faces (individuals, images; trials for pairwise).")
    ] = None,
    simulations: Annotated[int, typer.Option(help="Simulated studies at the planned size (0: none).")] = 200,
    curve_simulations: Annotated[int, typer.Option(help="Simulated studies per power-curve point.")] = 200,
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
) -> None:
    """Plan a study before running it: power, minimum detectable effects, half-widths, units and cost."""
    from cueshift.designs import load_study
    from cueshift.plan import CostSettings, PlanRequest, plan_study, print_plan, targets_for, write_plan

    spec = load_study(study)
    request = PlanRequest(
        spec,
        pilot=pilot,
        targets=targets_for(spec.design, target_effect, power, alpha),
        faces=faces,
        simulations=simulations,
        curve_simulations=curve_simulations,
        seed=seed,
        cost=CostSettings(image_tokens, question_tokens, answer_tokens, throughput),
    )
    result = plan_study(request)
    print_plan(result, console)
    folder = out or Path("runs") / f"{spec.name}-plan"
    written = write_plan(result, folder)
    console.print(f"{len(written)} files -> {escape(str(folder))} (report section: plan.md)", soft_wrap=True)
