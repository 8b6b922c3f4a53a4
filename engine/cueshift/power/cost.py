r"""What a study costs per model: prompts, forward passes, prefill tokens and GPU-hours.

For :math:`F` faces with :math:`\bar V` evaluated variations each, :math:`S` scenarios,
:math:`M` orderings and :math:`K` seeds (:math:`K = 1` scored):

.. math::

    \text{images} = F(1 + \bar V) + P, \qquad \text{prompts} = \text{images}\cdot S M K ,

with :math:`P = 2F` noise-floor placebo images (an identical copy and a lossless re-encode of every
base, :mod:`cueshift.images.placebos`) when the study includes them (``[image_set] placebos``, the
default of a StylisticBias study), else :math:`P = 0`.

Seed 000: :math:`500 \times 31.45 = 15{,}726` variation images and 500 bases; 15,726 × 300 =
4,717,800 variation prompts per model (the paper's "≈ 4.72 × 10⁶"; six models ≈ 28.3 M), and
16,226 × 300 = 4,867,800 with the base images the shifts need.

A prompt is one forward pass over its prefill when scored; sampled, it is one prefill and
``answer_tokens − 1`` decoding steps. Prefill tokens are :math:`\text{prompts}(T_i + T_q)` when
every prompt carries its image (:math:`T_i` image tokens, :math:`T_q` question tokens), and
:math:`\text{images}\cdot T_i + \text{prompts}\cdot T_q` when the image prefix is encoded once per
image and its key/value cache reused (the transformers backend's ``shared_prefix``). GPU-hours are
:math:`\text{prompts} \times` seconds per prompt :math:`/ 3600`, from a throughput the user gives
or the latencies a pilot stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import polars as pl

from cueshift.study.scenarios import ORDERING_BY_ID, Scenario

#: Image tokens per image when none is given (LLaVA-1.5's 24 × 24 CLIP-L/336 grid; LLaVA-NeXT and
#: Qwen2-VL use more, depending on the resolution: pass ``--image-tokens``).
DEFAULT_IMAGE_TOKENS = 576
#: Tokens of a sampled answer: "(a)" and the end of turn (the protocol allows 16).
DEFAULT_ANSWER_TOKENS = 4
#: Characters per text token of English BPE vocabularies (a rule of thumb; no tokenizer is loaded).
CHARS_PER_TOKEN = 4.0


@dataclass(frozen=True)
class CostSettings:
    """What the cost arithmetic needs beyond the protocol."""

    image_tokens: int = DEFAULT_IMAGE_TOKENS
    question_tokens: float | None = None  # None: estimated from the rendered prompts
    answer_tokens: int = DEFAULT_ANSWER_TOKENS
    throughput: float | None = None  # prompts per second per model (None: the pilot's, if any)


def question_tokens(template: str, scenarios: Sequence[Scenario], orderings: list[int]) -> float:
    """Mean text tokens of the rendered prompts (characters / :data:`CHARS_PER_TOKEN`)."""
    lengths = [len(ORDERING_BY_ID[o].render(template, s)) for s in scenarios for o in orderings] or [
        len(template)
    ]
    return sum(lengths) / len(lengths) / CHARS_PER_TOKEN


def planned_question_tokens(
    settings: CostSettings, template: str, scenarios: Sequence[Scenario], orderings: list[int]
) -> float:
    """``settings.question_tokens`` where the user gave it (``--question-tokens``), else the
    estimate from the rendered prompts (:func:`question_tokens`)."""
    if settings.question_tokens is not None:
        return settings.question_tokens
    return question_tokens(template, scenarios, orderings)


def cost_rows(
    *,
    model_id: str,
    mode: str,
    faces: int,
    variation_images: int,
    scenarios: int,
    orderings: int,
    seeds: int,
    settings: CostSettings,
    question: float,
    seconds_per_prompt: float | None,
    throughput_source: str,
    placebo_images: int = 0,
) -> dict[str, object]:
    """One model's cost (the tidy row of ``plan_cost``); ``placebo_images`` are judged like
    variations but are not among ``variation_images`` (nor ``variation_prompts``)."""
    images = faces + variation_images + placebo_images
    per_image = scenarios * orderings * (1 if mode == "score" else seeds)
    prompts = images * per_image
    passes = prompts if mode == "score" else prompts * settings.answer_tokens
    tokens_full = prompts * (settings.image_tokens + question)
    tokens_shared = images * settings.image_tokens + prompts * question
    hours = None if seconds_per_prompt is None else prompts * seconds_per_prompt / 3600.0
    return {
        "model_id": model_id,
        "mode": mode,
        "units": faces,
        "images": images,
        "variation_images": variation_images,
        "placebo_images": placebo_images,
        "prompts_per_image": per_image,
        "prompts": prompts,
        "variation_prompts": variation_images * per_image,
        "forward_passes": passes,
        "prefill_tokens": float(tokens_full),
        "prefill_tokens_shared_prefix": float(tokens_shared),
        "image_tokens": settings.image_tokens,
        "question_tokens": float(question),
        "seconds_per_prompt": seconds_per_prompt,
        "gpu_hours": hours,
        "throughput_source": throughput_source,
    }


def cost_frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    """The ``plan_cost`` table, with a ``(total)`` row summing the models."""
    frame = pl.DataFrame(rows, infer_schema_length=None).with_columns(
        pl.col("seconds_per_prompt", "gpu_hours").cast(pl.Float64)
    )
    numeric = ["prompts", "variation_prompts", "forward_passes"]
    total = frame.select(
        pl.lit("(total)").alias("model_id"),
        pl.lit("-").alias("mode"),
        pl.col("units").max(),
        pl.col("images").max(),
        pl.col("variation_images").max(),
        pl.col("placebo_images").max(),
        *[pl.col(c).sum() for c in numeric],
        pl.lit(None, dtype=pl.Int64).alias("prompts_per_image"),
        pl.col("prefill_tokens").sum(),
        pl.col("prefill_tokens_shared_prefix").sum(),
        pl.col("image_tokens").max(),
        pl.col("question_tokens").mean(),
        pl.lit(None, dtype=pl.Float64).alias("seconds_per_prompt"),
        (
            pl.col("gpu_hours").sum()
            if frame["gpu_hours"].null_count() == 0
            else pl.lit(None, dtype=pl.Float64)
        ).alias("gpu_hours"),
        pl.lit("-").alias("throughput_source"),
    ).select(frame.columns)
    return pl.concat([frame, total.cast(frame.schema)]) if frame.height > 1 else frame


__all__ = [
    "CHARS_PER_TOKEN",
    "DEFAULT_ANSWER_TOKENS",
    "DEFAULT_IMAGE_TOKENS",
    "CostSettings",
    "cost_frame",
    "cost_rows",
    "planned_question_tokens",
    "question_tokens",
]
