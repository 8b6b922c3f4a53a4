"""``cueshift plan``: power, minimum detectable effects and cost before a run (docs/plan.md)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from cueshift.cli._common import StudyOption, console, err_console

if TYPE_CHECKING:
    import polars as pl


def _print_build_cost(frame: pl.DataFrame, folder: Path) -> Path:
    """Print the [build] cost lines and write ``plan_build_cost.csv`` under ``folder``; its path."""
    from cueshift.errors import CueshiftError
    from cueshift.stimuli.cost import cost_lines

    for line in cost_lines(frame):
        console.print(line, markup=False, highlight=False, soft_wrap=True)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CueshiftError(f"{folder}: cannot create the folder ({exc.strerror})") from None
    frame.write_csv(folder / "plan_build_cost.csv")
    return folder / "plan_build_cost.csv"


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
    from cueshift.designs import load_study
    from cueshift.plan import (
        CostSettings,
        PlanRequest,
        curve_simulations_for,
        plan_alpha,
        plan_progress,
        plan_study,
        print_plan,
        targets_for,
        write_plan,
    )
    from cueshift.stimuli.cost import generation_cost

    spec = load_study(study)
    # checked before anything is written: an option the design cannot honour is refused in one line
    targets = targets_for(spec.design, target_effect, power, plan_alpha(spec, alpha))
    curves = curve_simulations_for(spec.design, curve_simulations)
    build_cost = generation_cost(spec)  # [build] calls and price; a bad grid stops here, before the plan
    folder = out or Path("runs") / f"{spec.name}-plan"
    manifest = spec.image_set.manifest
    if build_cost.height and manifest is not None and not Path(str(manifest)).is_file():
        _print_build_cost(build_cost, folder)
        console.print(
            "no image set yet: the judgments' power and cost are planned from it; plan again after "
            "`cueshift build` (a --limit build is enough)",
            soft_wrap=True,
        )
        return
    request = PlanRequest(
        spec,
        pilot=pilot,
        targets=targets,
        faces=faces,
        simulations=simulations,
        curve_simulations=curves,
        seed=seed,
        cost=CostSettings(image_tokens, question_tokens, answer_tokens, throughput),
    )
    with plan_progress(err_console, enabled=progress) as shown:
        result = plan_study(replace(request, progress=shown))
    print_plan(result, console)
    written = write_plan(result, folder)
    if build_cost.height:
        written.append(_print_build_cost(build_cost, folder))
    console.print(f"{len(written)} files -> {escape(str(folder))} (report section: plan.md)", soft_wrap=True)
