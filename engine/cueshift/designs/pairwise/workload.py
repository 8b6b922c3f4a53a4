"""The work units of the pairwise design (seed 002): two-image trials and 0-10 ratings.

Trials
------
Within each cohort every target-group stimulus is paired with every other-group stimulus
(crossed, e.g. 4 Western-styled × 10 local-styled = 40 pairs, Table 3). With
``swap_repeats`` each pair is asked in both left/right orders (position bias measurable and
cancelled); otherwise its side is drawn deterministically from the pair and seed. Each
answer is parsed strictly (:func:`~cueshift.inference.parser_pairwise.parse_pairwise_answer`); the
``pairwise_trial`` row keeps both image ids (which side each was on), the raw answer and the
winner (NULL when invalid). Both orders of a pair stay in one shard.

Ratings
-------
With ``rate_models`` each model rates every stimulus (``rating_prompt``, parsed by
:func:`~cueshift.inference.parser_pairwise.parse_rating`); human ratings come from ``human_ratings``
(long CSV) or ``[pairwise.synthetic_humans]`` and are stored once. Both land in ``rating``.
"""

from __future__ import annotations

import datetime as dt
import zlib

import polars as pl

from cueshift.designs.forced_choice import image_records
from cueshift.designs.pairwise.section import PairwiseConfig, PairwiseStudy
from cueshift.designs.pairwise.stimuli import human_ratings_frame, stimuli_and_image_set
from cueshift.designs.registry import scenario_sets
from cueshift.designs.work import StoredRows, UnitKind, Workload
from cueshift.errors import ConfigError
from cueshift.images.human_ratings import rating_rows
from cueshift.inference.backends import Backend, BackendAnswers, StudyContext
from cueshift.inference.parser_pairwise import parse_pairwise_answer, parse_rating
from cueshift.study.config import ModelConfig
from cueshift.study.scenarios import Scenario, scenario_frame

TRIAL_KEY: tuple[str, ...] = ("model_id", "left_image_id", "right_image_id", "scenario_id", "seed")
RATING_KEY: tuple[str, ...] = ("rater_id", "image_id", "attribute", "seed")
#: The backend whose simulated judge answers trials and ratings.
SIMULATED_DESIGNS = "simulated-designs"


def question_of(config: PairwiseConfig) -> tuple[str, Scenario]:
    """The scenario set and scenario of ``[pairwise] question``."""
    for set_name, scenarios in scenario_sets().items():
        for scenario in scenarios:
            if scenario.scenario_id == config.question:
                return set_name, scenario
    raise ConfigError(f"[pairwise] question {config.question!r} is in no scenario set")


def plan_pairs(
    stimuli: pl.DataFrame, *, target: str, other: str, swap_repeats: bool, seeds: list[int]
) -> pl.DataFrame:
    """Crossed pairs within each cohort (target × other stimulus), both orders or a hashed side, per seed.

    Returns columns ``left_image_id, right_image_id, cohort, left_group, right_group, seed``.
    """
    a = stimuli.filter(pl.col("stimulus_group") == target).select("cohort", pl.col("image_id").alias("a"))
    b = stimuli.filter(pl.col("stimulus_group") == other).select("cohort", pl.col("image_id").alias("b"))
    pairs = a.join(b, on="cohort").join(pl.DataFrame({"seed": pl.Series(seeds, dtype=pl.Int32)}), how="cross")

    def oriented(left: str, right: str, left_group: str, right_group: str) -> pl.DataFrame:
        return pairs.select(
            pl.col(left).alias("left_image_id"),
            pl.col(right).alias("right_image_id"),
            "cohort",
            pl.lit(left_group).alias("left_group"),
            pl.lit(right_group).alias("right_group"),
            "seed",
        )

    forward = oriented("a", "b", target, other)  # target stimulus on the left
    backward = oriented("b", "a", other, target)
    if swap_repeats:
        planned = pl.concat([forward, backward])
    else:
        flip = pl.Series(
            [
                zlib.crc32(f"{x}|{y}|{s}".encode()) % 2 == 1
                for x, y, s in pairs.select("a", "b", "seed").iter_rows()
            ]
        )
        planned = pl.concat([forward.filter(~flip), backward.filter(flip)])
    return planned.sort(["cohort", "left_image_id", "right_image_id", "seed"])


def trial_rows(batch: pl.DataFrame, answers: BackendAnswers, model_id: str, run_id: str) -> pl.DataFrame:  # noqa: ARG001
    """Parse two-image answers strictly into ``pairwise_trial`` rows (winner NULL when invalid)."""
    texts = answers.response_text
    sides = [parse_pairwise_answer(t)[0] for t in texts]
    winners = [
        None if s is None else (left if s == "left" else right)
        for s, left, right in zip(sides, batch["left_image_id"], batch["right_image_id"], strict=True)
    ]
    return (
        batch.select(*TRIAL_KEY)
        .with_columns(
            pl.Series("response_text", texts, dtype=pl.String),
            pl.Series("winner_image_id", winners, dtype=pl.String),
            pl.Series("latency_ms", answers.latency_ms, dtype=pl.Float64),
            pl.lit(dt.datetime.now()).cast(pl.Datetime("us")).alias("created_at"),
            pl.lit(run_id).alias("run_id"),
        )
        .select(*TRIAL_KEY, "response_text", "winner_image_id", "latency_ms", "created_at", "run_id")
    )


def model_rating_rows(batch: pl.DataFrame, texts: list[str], config: PairwiseConfig) -> pl.DataFrame:
    """Parse 0-10 answers strictly into ``rating`` rows of the model raters (NULL when invalid)."""
    values = [parse_rating(t, config.rating_min, config.rating_max)[0] for t in texts]
    return batch.select(
        pl.col("model_id").alias("rater_id"),
        pl.lit("model").alias("rater_kind"),
        "image_id",
        "attribute",
        "seed",
    ).with_columns(
        pl.Series("rating", values, dtype=pl.Float64),
        pl.Series("response_text", texts, dtype=pl.String),
        pl.lit(dt.datetime.now()).cast(pl.Datetime("us")).alias("created_at"),
    )


def pairwise_workload(study: PairwiseStudy, *, progress: bool = False) -> Workload:
    """Trials (and model ratings with ``rate_models``) for every model; human ratings stored once."""
    config = study.pairwise
    set_name, question = question_of(config)
    image_set, stimuli = stimuli_and_image_set(study, progress=progress)
    pairs = plan_pairs(
        stimuli,
        target=config.target_group,
        other=config.other_group,
        swap_repeats=config.swap_repeats,
        seeds=study.seeds,
    ).with_columns(
        pl.when(pl.col("left_image_id") < pl.col("right_image_id"))
        .then(pl.concat_str("left_image_id", pl.lit("|"), "right_image_id"))
        .otherwise(pl.concat_str("right_image_id", pl.lit("|"), "left_image_id"))
        .alias("pair")
    )
    rate_plan = (
        stimuli.select("image_id", "stimulus_group")
        .join(pl.DataFrame({"seed": pl.Series(study.seeds, dtype=pl.Int32)}), how="cross")
        .with_columns(pl.lit(config.rating_attribute).alias("attribute"))
    )

    def trials(model: ModelConfig, backend: Backend) -> pl.DataFrame:  # noqa: ARG001
        return pairs.with_columns(
            pl.lit(model.model_id).alias("model_id"), pl.lit(question.scenario_id).alias("scenario_id")
        )

    def ratings(model: ModelConfig, backend: Backend) -> pl.DataFrame:  # noqa: ARG001
        return rate_plan.with_columns(
            pl.lit(model.model_id).alias("rater_id"), pl.lit(model.model_id).alias("model_id")
        )

    def parse_ratings(
        batch: pl.DataFrame, answers: BackendAnswers, model_id: str, run_id: str
    ) -> pl.DataFrame:  # noqa: ARG001
        return model_rating_rows(batch, answers.response_text, config)

    units = [
        UnitKind(
            name="trials",
            table="pairwise_trial",
            key=TRIAL_KEY,
            model_column="model_id",
            method="judge_pairs",
            units=trials,
            parse=trial_rows,
            shard_by="pair",
            columns=(
                "left_image_id",
                "right_image_id",
                "cohort",
                "left_group",
                "right_group",
                "seed",
                "model_id",
                "scenario_id",
            ),
            missing_method=f"use backend = {SIMULATED_DESIGNS!r} or a backend that implements it",
        )
    ]
    if config.rate_models:
        units.append(
            UnitKind(
                name="ratings",
                table="rating",
                key=RATING_KEY,
                model_column="rater_id",
                method="rate",
                units=ratings,
                parse=parse_ratings,
                shard_by="image_id",
                request=lambda batch: batch.with_columns(pl.lit(config.rating_prompt).alias("prompt")),
                missing_method="set [pairwise] rate_models = false",
            )
        )
    humans = human_ratings_frame(config, stimuli)
    stored = () if humans is None else (StoredRows("rating", rating_rows(humans), "image_id"),)
    return Workload(
        context=StudyContext(
            images=image_records(image_set),
            scenarios={question.scenario_id: question},
            template=config.prompt,
        ),
        dimensions={
            "face": (image_set.face, "face_id"),
            "image": (image_set.image, "image_id"),
            "scenario": (scenario_frame((question,), set_name), "scenario_id"),
            "stimulus": (stimuli, "image_id"),
        },
        units=tuple(units),
        stored=stored,
    )
