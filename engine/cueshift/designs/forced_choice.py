"""Forced-choice judgments as work units: one image, one scenario, two descriptors, answer (a) or (b).

The protocol of seed 000 (App. C.2), used by the ``stylisticbias``, ``paired`` and ``probe``
designs: every evaluated image × scenario × ordering × seed is asked once and stored in
``judgment``, keyed by (model, image, scenario, ordering, seed). Scoring backends are
deterministic (asked once, seed 0); backends without letters (CLIP probes) use the first
ordering only. Units of one face (its base and all its variations) stay in one
shard.
"""

from __future__ import annotations

import datetime as dt

import polars as pl

from cueshift.designs.registry import study_scenarios
from cueshift.designs.work import StoredRows, UnitKind, Workload
from cueshift.images.base import ImageSet
from cueshift.inference.backends import Backend, BackendAnswers, StudyContext
from cueshift.inference.backends.base import ImageRecord
from cueshift.inference.parser_batch import parse_answers
from cueshift.study.config import ModelConfig, Study
from cueshift.study.scenarios import ORDERING_BY_ID, Scenario, prompt_variant_frame, scenario_frame

JUDGMENT_KEY: tuple[str, ...] = ("model_id", "image_id", "scenario_id", "ordering", "seed")


def image_records(image_set: ImageSet) -> dict[str, ImageRecord]:
    """Every image of ``image_set`` as a backend sees it (absolute path and labels), by image id."""
    joined = image_set.image.join(image_set.face, on="face_id", how="left")
    root = image_set.root
    return {
        row["image_id"]: ImageRecord(
            image_id=row["image_id"],
            face_id=row["face_id"],
            path=root / row["path"],
            role=row["role"],
            feature_key=row["feature_key"],
            variation_category=row["variation_category"],
            variation_value=row["variation_value"],
            framing=row["framing"],
            age=row["age"],
            gender=row["gender"],
            ethnicity=row["ethnicity"],
            body_type=row["body_type"],
        )
        for row in joined.iter_rows(named=True)
    }


def invalid_reasons(letters: pl.Series, reasons: list[str]) -> pl.Series:
    """The ``invalid_reason`` column: the parser's reason where no letter was named, else null
    (one vectorised pass; the parser's per-distinct-text cache did the per-row work)."""
    reason = pl.Series("invalid_reason", reasons, dtype=pl.String)
    return pl.select(pl.when(letters.is_null()).then(reason).alias("invalid_reason")).to_series()


def judgment_rows(
    batch: pl.DataFrame,
    answers: BackendAnswers,
    *,
    model_id: str,
    run_id: str,
    scenarios: dict[str, Scenario],
) -> pl.DataFrame:
    """Parse the raw answers strictly and shape the rows of the ``judgment`` table."""
    mappings: dict[tuple[str, int], dict[str, str]] = {}
    descriptors = []
    favorable_letters = []
    for scenario_id, ordering_id in batch.select("scenario_id", "ordering").iter_rows():
        ordering = ORDERING_BY_ID[ordering_id]
        key = (scenario_id, ordering_id)
        if key not in mappings:
            mappings[key] = ordering.descriptor_by_letter(scenarios[scenario_id])
        descriptors.append(mappings[key])
        favorable_letters.append(ordering.favorable_letter)
    letters, reasons = parse_answers(answers.response_text, descriptors)
    n = batch.height
    letter_series = pl.Series("chosen_letter", letters, dtype=pl.String)
    outcome = (
        pl.when(letter_series.is_null())
        .then(pl.lit("invalid"))
        .when(letter_series == pl.Series(favorable_letters))
        .then(pl.lit("favorable"))
        .otherwise(pl.lit("unfavorable"))
    )

    def optional(values: list[float | None] | None) -> list[float | None]:
        return values if values is not None else [None] * n

    now = dt.datetime.now()
    return batch.select(
        pl.lit(model_id).alias("model_id"),
        "image_id",
        "scenario_id",
        pl.col("ordering").cast(pl.Int32),
        pl.col("seed").cast(pl.Int32),
    ).with_columns(
        pl.Series("response_text", answers.response_text, dtype=pl.String),
        pl.select(outcome.alias("outcome")).to_series(),
        letter_series,
        invalid_reasons(letter_series, reasons),
        pl.Series("p_favorable", optional(answers.p_favorable), dtype=pl.Float64),
        pl.Series("p_neither", optional(answers.p_neither), dtype=pl.Float64),
        pl.Series("association", optional(answers.association), dtype=pl.Float64),
        pl.Series("logit_scale", [answers.logit_scale] * n, dtype=pl.Float64),
        pl.Series("latency_ms", answers.latency_ms, dtype=pl.Float64),
        pl.lit(now).cast(pl.Datetime("us")).alias("created_at"),
        pl.lit(run_id).alias("run_id"),
    )


def judgment_workload(study: Study, image_set: ImageSet, stored: tuple[StoredRows, ...] = ()) -> Workload:
    """The forced-choice work of ``study`` on the evaluated images of ``image_set``.

    Parameters
    ----------
    study
        The study (scenarios, prompt template and orderings, seeds).
    image_set
        Its images, already filtered (``evaluated``) by the study's variation filter.
    stored
        Rows to store once besides the judgments (e.g. a design's human ratings).
    """
    scenarios = {s.scenario_id: s for s in study_scenarios(study)}
    orderings = tuple(ORDERING_BY_ID[o] for o in study.prompt.orderings)
    images = image_set.image.filter(pl.col("evaluated")).select("image_id", "face_id")

    def units(model: ModelConfig, backend: Backend) -> pl.DataFrame:  # noqa: ARG001
        deterministic = bool(getattr(backend, "deterministic", backend.scores))
        ordering_ids = study.prompt.orderings if backend.uses_orderings else study.prompt.orderings[:1]
        return (
            images.join(pl.DataFrame({"scenario_id": list(scenarios)}), how="cross")
            .join(pl.DataFrame({"ordering": pl.Series(ordering_ids, dtype=pl.Int32)}), how="cross")
            .join(
                pl.DataFrame({"seed": pl.Series([0] if deterministic else study.seeds, dtype=pl.Int32)}),
                how="cross",
            )
            .sort("image_id", "scenario_id", "ordering", "seed")
        )

    def parse(batch: pl.DataFrame, answers: BackendAnswers, model_id: str, run_id: str) -> pl.DataFrame:
        return judgment_rows(batch, answers, model_id=model_id, run_id=run_id, scenarios=scenarios)

    return Workload(
        context=StudyContext(
            images=image_records(image_set), scenarios=scenarios, template=study.prompt.template
        ),
        dimensions={
            "face": (image_set.face, "face_id"),
            "image": (image_set.image, "image_id"),
            "scenario": (scenario_frame(tuple(scenarios.values()), study.scenarios.set), "scenario_id"),
            "prompt_variant": (prompt_variant_frame(study.prompt.template, orderings), "ordering"),
        },
        units=(
            UnitKind(
                name="judgments",
                table="judgment",
                key=JUDGMENT_KEY,
                model_column="model_id",
                method="judge",
                units=units,
                parse=parse,
                shard_by="face_id",
                columns=("image_id", "scenario_id", "ordering", "seed"),
            ),
        ),
        stored=stored,
    )
