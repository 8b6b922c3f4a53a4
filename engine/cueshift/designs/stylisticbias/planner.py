"""The plan of a StylisticBias study (seed 000): every test's power, MDE, half-width and faces
needed at the planned size (analytic and simulated), the trade-offs against seeds, orderings,
scenarios and score mode, the power curve, and the cost per model."""

from __future__ import annotations

import polars as pl

from cueshift.designs.registry import study_scenarios
from cueshift.power.components import PlanInputs
from cueshift.power.cost import cost_frame, cost_rows, planned_question_tokens
from cueshift.power.curve import FIGURE_SKIPPED, curve_figure, figure_available, power_curve
from cueshift.power.families import analytic_frame
from cueshift.power.judge import judge_inputs
from cueshift.power.model import study_model
from cueshift.power.pilot import open_pilot
from cueshift.power.pilot_inputs import pilot_inputs
from cueshift.power.protocol import Protocol, model_mode, protocol_from_frames, study_images
from cueshift.power.request import DesignPlanner, PlanRequest, PlanResult
from cueshift.power.simulate import simulated_power
from cueshift.power.throughput import seconds_per_prompt
from cueshift.study.config import ModelConfig, Study
from cueshift.study.variations import PLACEBO_VALUES

DESIGN_NAME = "stylisticbias"


def tradeoffs(protocol: Protocol) -> list[tuple[str, Protocol]]:
    """Protocol variants a reader weighs: fewer seeds, two orderings, half or double the
    scenarios, score mode (or sampling, for a scored study)."""
    out: list[tuple[str, Protocol]] = []
    sampled = any(m == "sampling" for m in protocol.modes.values())
    if sampled:
        out += [(f"seeds={k}", protocol.with_design(seeds=k)) for k in range(1, protocol.seeds)]
        out.append(("score mode", protocol.with_design(mode="score")))
    else:
        out.append(("sampling, 3 seeds", protocol.with_design(mode="sampling", seeds=3)))
    if protocol.orderings > 2:
        out.append(("orderings=2", protocol.with_design(orderings=2)))
    if protocol.scenarios >= 4:
        out.append(
            (f"scenarios={protocol.scenarios // 2}", protocol.with_design(scenarios=protocol.scenarios // 2))
        )
    out.append(
        (f"scenarios={2 * protocol.scenarios}", protocol.with_design(scenarios=2 * protocol.scenarios))
    )
    return out


def power_table(protocol: Protocol, inputs: PlanInputs, request: PlanRequest) -> pl.DataFrame:
    """Analytic rows of every test at the planned protocol (with simulated power joined) and of
    the per-attribute test under each trade-off."""
    sm = study_model(protocol, inputs)
    planned = analytic_frame(sm, request.targets)
    if request.simulations:
        sim = simulated_power(
            sm,
            request.simulated(),
            q=request.targets.q,
            progress=request.progress,
            task=f"simulated studies at {protocol.n_faces} faces",
        )
        planned = planned.join(sim, on=["test", "family", "target"], how="left")
    parts = [planned.with_columns(pl.lit("planned").alias("protocol"))]
    for label, variant in tradeoffs(protocol):
        rows = analytic_frame(study_model(variant, inputs), request.targets, tests=("sbs_attribute",))
        parts.append(rows.with_columns(pl.lit(label).alias("protocol")))
    return pl.concat(parts, how="diagonal_relaxed")


def plan_stylisticbias(request: PlanRequest) -> PlanResult:
    """The whole plan of a StylisticBias study (module docstring)."""
    study = request.study
    face, image = study_images(study)
    protocol = protocol_from_frames(
        face,
        image,
        scenarios=len(study_scenarios(study)),
        orderings=len(study.prompt.orderings),
        seeds=len(study.seeds),
        modes={m.model_id: model_mode(m) for m in study.models},
    )
    if request.faces is not None:
        protocol = protocol.with_faces(request.faces)
    notes: list[str] = []
    drawable = figure_available()  # before any work: a missing extra skips the figure, not the plan
    if request.curve_simulations and not drawable:
        notes.append(FIGURE_SKIPPED)
    seconds: dict[str, float] = {}
    if request.pilot is not None:
        pilot = open_pilot(request.pilot, DESIGN_NAME)
        try:
            inputs, components, notes = pilot_inputs(pilot)
            seconds = dict(pilot.seconds_per_answer)
        finally:
            pilot.close()
        missing = [m for m in protocol.models if m not in inputs.models]
        if missing:
            notes.append(f"not in the pilot, planned with the pilot models' mean: {', '.join(missing)}")
    else:
        inputs, components = judge_inputs(study, face, image, scenarios=study_scenarios(study))
        notes.append("no pilot: variance components and effects are the simulated judge's (docs/plan.md)")
    power = power_table(protocol, inputs, request)
    curve = pl.DataFrame()
    figure = None
    if request.curve_simulations:
        curve = power_curve(
            protocol, inputs, request.targets, request.simulated(curve=True), progress=request.progress
        )
        if drawable:
            figure = curve_figure(curve, protocol.n_faces, request.targets.power)
    question = planned_question_tokens(
        request.cost, study.prompt.template, study_scenarios(study), list(study.prompt.orderings)
    )
    variation_images = int(protocol.value_faces().sum())
    placebo_images, placebo_note = placebo_cost(study, protocol.n_faces)
    notes.append(placebo_note)
    rows = []
    for model_id in protocol.models:
        per_prompt, where = _throughput(request, seconds, model_id, protocol.modes[model_id])
        rows.append(
            cost_rows(
                model_id=model_id,
                mode=protocol.modes[model_id],
                faces=protocol.n_faces,
                variation_images=variation_images,
                scenarios=protocol.scenarios,
                orderings=protocol.orderings,
                seeds=protocol.seeds,
                settings=request.cost,
                question=question,
                seconds_per_prompt=per_prompt,
                throughput_source=where,
                placebo_images=placebo_images,
            )
        )
    return PlanResult(
        design=DESIGN_NAME,
        source=inputs.source,
        power=power,
        components=components,
        cost=cost_frame(rows),
        curve=curve,
        figure=figure,
        notes=tuple(notes),
    )


def placebo_cost(study: Study, faces: int) -> tuple[int, str]:
    """Noise-floor placebo images the study judges (two per base face, unless ``[image_set]
    placebos = false``) and the plan's note saying whether the cost includes them."""
    if not study.image_set.placebos:
        return 0, "cost: no noise-floor placebos ([image_set] placebos = false)"
    count = len(PLACEBO_VALUES) * faces
    return count, (
        f"cost includes the noise-floor placebos: {count:,} images ({len(PLACEBO_VALUES)} per base "
        "face: an identical copy and a lossless re-encode); [image_set] placebos = false adds none"
    )


def _throughput(
    request: PlanRequest, seconds: dict[str, float], model_id: str, mode: str
) -> tuple[float | None, str]:
    """--throughput, the pilot's latencies, else the measured table (:mod:`.throughput`)."""
    known = {m.model_id: m for m in request.study.models}
    model = known.get(model_id, ModelConfig(model_id=model_id))
    return seconds_per_prompt(request.cost.throughput, model, mode, seconds)


#: ``cueshift plan``'s view of the design: tests counted in faces; the default target effect is
#: an |SBS| of 0.02 (the paper's attributes span 0.005-0.17).
PLANNER = DesignPlanner(unit="faces", target_effect=0.02, plan=plan_stylisticbias, curve=True)

__all__ = ["DESIGN_NAME", "PLANNER", "placebo_cost", "plan_stylisticbias", "power_table", "tradeoffs"]
