"""``cueshift plan`` as a function, :func:`plan_study`: power, minimum detectable effects and cost
before a run, as tidy frames (docs/plan.md), with the command's checks, files and one-line errors.

Not ``plan``: the subpackage :mod:`cueshift.plan`, once imported, would shadow ``cs.plan``
(docs/decisions.md D28, D78)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from cueshift.api._locate import DEFAULT, load_spec, one_line_errors
from cueshift.api._plan_result import Plan, empty_plan_table, write_build_cost


@one_line_errors
def plan_study(
    study: str | Path = DEFAULT,
    *,
    pilot: str | Path | None = None,
    target_effect: float | None = None,
    power: float = 0.8,
    alpha: float | None = None,
    faces: int | None = None,
    simulations: int = 200,
    curve_simulations: int | None = None,
    seed: int = 0,
    image_tokens: int = 576,
    question_tokens: float | None = None,
    answer_tokens: int = 4,
    throughput: float | None = None,
    out: str | Path | None = None,
    progress: bool = False,
    quiet: bool = True,
) -> Plan:
    """Plan a study before running it, as ``cueshift plan``: power, MDEs, half-widths, units, cost.

    Parameters
    ----------
    study
        A study file (``.toml``) or ``"default"``.
    pilot
        A pilot study database of the same design (default: the design's defaults).
    target_effect, power, alpha
        The effect to detect (default: the design's, e.g. |SBS| 0.02), the target power, the FDR
        level of BH per family (default: the design's own, else 0.05).
    faces
        Plan for this many units (faces, individuals, images; trials for pairwise).
    simulations, curve_simulations, seed
        Simulated studies at the planned size (0: none) and per power-curve point (default 200
        where the design draws a curve), and their seed.
    image_tokens, question_tokens, answer_tokens, throughput
        The cost model: prefill tokens of an image and a question, tokens of an answer, prompts
        per second per model (default: the pilot's latencies, else the measured rate).
    out
        Folder the plan is written to (default: ``runs/<study name>-plan/``, as the command).
    progress
        Progress bars and the kernels' compile note on stderr.
    quiet
        Print nothing (False: what the command prints).

    Returns
    -------
    Plan
        The plan's tidy frames, notes, figure and the files written.

    Raises
    ------
    CueshiftError
        A bad study file, pilot or option (the command's line, e.g. ``--curve-simulations`` for a
        design without a curve), checked before anything is written.

    Examples
    --------
    >>> import tempfile
    >>> import cueshift as cs
    >>> planned = cs.plan_study("default", simulations=0, curve_simulations=0, out=tempfile.mkdtemp())
    >>> planned.design, planned.power["protocol"][0], sorted({p.suffix for p in planned.files})
    ('stylisticbias', 'planned', ['.csv', '.md', '.parquet'])
    """
    from cueshift._console import console_for

    spec = load_spec(study)  # a bad study file is one line before the planner loads (D93)
    from cueshift.plan import (
        CostSettings,
        PlanRequest,
        curve_simulations_for,
        plan_alpha,
        plan_progress,
        print_plan,
        targets_for,
        write_plan,
    )
    from cueshift.plan import plan_study as run_planner
    from cueshift.stimuli.cost import cost_lines, generation_cost

    console = console_for(quiet=quiet)
    targets = targets_for(spec.design, target_effect, power, plan_alpha(spec, alpha))
    curves = curve_simulations_for(spec.design, curve_simulations)
    build_cost = generation_cost(spec)  # a bad grid stops here, before the plan
    folder = Path(out) if out is not None else Path("runs") / f"{spec.name}-plan"
    manifest = spec.image_set.manifest
    if build_cost.height and manifest is not None and not Path(str(manifest)).is_file():
        for line in cost_lines(build_cost):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        written = write_build_cost(build_cost, folder)
        console.print(
            "no image set yet: the judgments' power and cost are planned from it; plan again after "
            "`cueshift build` (a --limit build is enough)",
            soft_wrap=True,
        )
        power_, components, cost, curve = (
            empty_plan_table(name) for name in ("plan_power", "plan_components", "plan_cost", "plan_curve")
        )
        return Plan(
            spec.design, "no image set yet", power_, components, cost, curve, build_cost,
            files=[written], planned=False,
        )  # fmt: skip
    request = PlanRequest(
        spec,
        pilot=Path(pilot) if pilot is not None else None,
        targets=targets,
        faces=faces,
        simulations=simulations,
        curve_simulations=curves,
        seed=seed,
        cost=CostSettings(image_tokens, question_tokens, answer_tokens, throughput),
    )
    with plan_progress(console_for(stderr=True), enabled=progress) as shown:
        result = run_planner(replace(request, progress=shown))
    print_plan(result, console)
    files = write_plan(result, folder)
    if build_cost.height:
        for line in cost_lines(build_cost):
            console.print(line, markup=False, highlight=False, soft_wrap=True)
        files.append(write_build_cost(build_cost, folder))
    console.print(f"{len(files)} files -> {folder} (report section: plan.md)", markup=False, soft_wrap=True)
    return Plan(
        result.design, result.source, result.power, result.components, result.cost, result.curve,
        build_cost, result.figure, result.notes, files,
    )  # fmt: skip
