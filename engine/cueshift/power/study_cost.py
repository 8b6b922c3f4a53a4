"""The cost table of a study whose models each ask every image the same prompts: one row per model
(:func:`~cueshift.power.cost.cost_rows`) with the ``--question-tokens``, ``--image-tokens``,
``--answer-tokens`` and ``--throughput`` the user gave, else the estimates (rendered prompts, the
``--pilot``'s latencies, the measured rate for the model's size in :mod:`cueshift.power.throughput`)."""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from cueshift.power.cost import cost_frame, cost_rows, planned_question_tokens
from cueshift.power.pilot import open_pilot
from cueshift.power.protocol import model_mode
from cueshift.power.request import PlanRequest
from cueshift.power.throughput import seconds_per_prompt
from cueshift.study.scenarios import Scenario


def study_cost(
    request: PlanRequest,
    *,
    faces: int,
    variation_images: int,
    scenarios: int,
    prompts_from: Sequence[Scenario],
) -> pl.DataFrame:
    """The ``plan_cost`` table of ``request.study``: ``faces`` base images and ``variation_images``
    more, each asked ``scenarios`` × orderings × seeds prompts (seeds collapse in score mode); the
    question length is estimated from ``prompts_from`` rendered in the study's template and
    orderings unless ``--question-tokens`` gave it; seconds per prompt from ``--throughput``, else
    the pilot's stored latencies (``--pilot``), else the measured rate of the model's size."""
    study = request.study
    orderings = list(study.prompt.orderings)
    question = planned_question_tokens(request.cost, study.prompt.template, prompts_from, orderings)
    latencies = pilot_latencies(request)
    rows = []
    for model in study.models:
        mode = model_mode(model)
        per_prompt, source = seconds_per_prompt(request.cost.throughput, model, mode, latencies)
        rows.append(
            cost_rows(
                model_id=model.model_id,
                mode=mode,
                faces=faces,
                variation_images=variation_images,
                scenarios=scenarios,
                orderings=len(orderings),
                seeds=len(study.seeds),
                settings=request.cost,
                question=question,
                seconds_per_prompt=per_prompt,
                throughput_source=source,
            )
        )
    return cost_frame(rows)


def pilot_latencies(request: PlanRequest) -> dict[str, float] | None:
    """The pilot's mean seconds per answer by model (``--pilot``; the planner has checked it is a
    pilot of the study's design); ``None`` without a pilot."""
    if request.pilot is None:
        return None
    pilot = open_pilot(request.pilot, request.study.design)
    try:
        return dict(pilot.seconds_per_answer)
    finally:
        pilot.close()


__all__ = ["pilot_latencies", "study_cost"]
