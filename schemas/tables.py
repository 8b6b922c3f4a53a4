"""Row-level contracts of the study tables (mirrors ``sql/schema.sql``).

The DDL enforces keys; these schemas add what SQL cannot say cheaply (value sets,
ranges, non-empty strings) and produce a readable error before anything is written.
"""

from __future__ import annotations

import datetime as dt

import pandera.polars as pa
import polars as pl

from cueshift.schemas.audit_skin import SkinToneSchema
from cueshift.schemas.designs import DESIGN_TABLE_SCHEMAS
from cueshift.schemas.face_detection import FaceDetectionSchema
from cueshift.schemas.generation import GenerationSchema

OUTCOMES = ["favorable", "unfavorable", "invalid"]
LETTERS = ["a", "b"]
#: Why the strict parser refused an answer (:data:`cueshift.inference.parser.REASONS` less the two
#: valid ones, 'letter' and 'descriptor').
INVALID_REASONS = ["empty", "refusal", "hedge", "neither", "both", "negated", "conflict", "no_answer"]


class _Strict(pa.DataFrameModel):
    class Config:
        strict = True  # no unknown columns
        coerce = False


class FaceSchema(_Strict):
    face_id: str = pa.Field(unique=True, str_length={"min_value": 1})
    source: str = pa.Field(str_length={"min_value": 1})
    age: str | None = pa.Field(nullable=True)
    gender: str | None = pa.Field(nullable=True)
    ethnicity: str | None = pa.Field(nullable=True)
    body_type: str | None = pa.Field(nullable=True)
    attributes: str | None = pa.Field(nullable=True)  # JSON text


class ImageSchema(_Strict):
    image_id: str = pa.Field(unique=True, str_length={"min_value": 1})
    face_id: str = pa.Field(str_length={"min_value": 1})
    role: str = pa.Field(isin=["base", "variation"])
    base_image_id: str | None = pa.Field(nullable=True)
    variation_category: str | None = pa.Field(nullable=True)
    feature_key: str | None = pa.Field(nullable=True)
    variation_value: str | None = pa.Field(nullable=True)
    framing: str = pa.Field(str_length={"min_value": 1})
    path: str = pa.Field(str_length={"min_value": 1})
    sha256: str = pa.Field(str_matches=r"^[0-9a-f]{64}$")
    width: pl.Int32 | None = pa.Field(nullable=True, gt=0)
    height: pl.Int32 | None = pa.Field(nullable=True, gt=0)
    evaluated: bool
    exclusion_reason: str | None = pa.Field(nullable=True)

    @pa.dataframe_check
    @classmethod
    def base_has_no_parent(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """A base image has no base_image_id; a variation has one."""
        return data.lazyframe.select((pl.col("role") == "base") == pl.col("base_image_id").is_null())


class ScenarioSchema(_Strict):
    scenario_id: str = pa.Field(unique=True, str_length={"min_value": 1})
    scenario_set: str
    position: pl.Int32 = pa.Field(ge=0)
    favorable: str = pa.Field(str_length={"min_value": 1})
    unfavorable: str = pa.Field(str_length={"min_value": 1})
    category: str = pa.Field(str_length={"min_value": 1})
    family: str | None = pa.Field(nullable=True)


class PromptVariantSchema(_Strict):
    ordering: pl.Int32 = pa.Field(unique=True, ge=1)
    favorable_letter: str = pa.Field(isin=LETTERS)
    favorable_first: bool
    template: str = pa.Field(str_length={"min_value": 1})
    example_prompt: str


class ModelSchema(_Strict):
    model_id: str = pa.Field(unique=True, str_length={"min_value": 1})
    backend: str = pa.Field(str_length={"min_value": 1})
    checkpoint: str
    revision: str | None = pa.Field(nullable=True)
    settings: str  # JSON text


class RunSchema(_Strict):
    run_id: str = pa.Field(unique=True)
    study_name: str
    shard: str = pa.Field(str_matches=r"^\d+/\d+$")
    config: str
    versions: str
    started_at: dt.datetime
    finished_at: dt.datetime | None = pa.Field(nullable=True)
    n_planned: pl.Int64 = pa.Field(ge=0)
    n_written: pl.Int64 | None = pa.Field(nullable=True, ge=0)
    backend_report: str | None = pa.Field(nullable=True)  # JSON text


class RequestFailureSchema(_Strict):
    """A request its backend gave up on, one row per unit and run (docs/decisions.md#d14)."""

    model_id: str = pa.Field(str_length={"min_value": 1})
    unit_table: str = pa.Field(str_length={"min_value": 1})
    unit_key: str = pa.Field(str_matches=r"^\{.*\}$")
    run_id: str = pa.Field(str_length={"min_value": 1})
    attempts: pl.Int32 = pa.Field(ge=1)
    error: str = pa.Field(str_length={"min_value": 1})
    failed_at: dt.datetime


class JudgmentSchema(_Strict):
    model_id: str = pa.Field(str_length={"min_value": 1})
    image_id: str = pa.Field(str_length={"min_value": 1})
    scenario_id: str = pa.Field(str_length={"min_value": 1})
    ordering: pl.Int32 = pa.Field(ge=1)
    seed: pl.Int32 = pa.Field(ge=0)
    response_text: str
    outcome: str = pa.Field(isin=OUTCOMES)
    chosen_letter: str | None = pa.Field(nullable=True, isin=LETTERS)
    #: optional: a frame without it (an older writer) stores NULL
    invalid_reason: str | None = pa.Field(nullable=True, isin=INVALID_REASONS)
    p_favorable: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    p_neither: float | None = pa.Field(nullable=True, ge=0.0, le=1.0)
    #: probe backends (CLIP): m = cos(i, t+) - cos(i, t-) and s > 0, with p_favorable = sigmoid(s m)
    association: float | None = pa.Field(nullable=True, ge=-2.0, le=2.0)
    logit_scale: float | None = pa.Field(nullable=True, gt=0.0)
    latency_ms: float = pa.Field(ge=0.0)
    created_at: dt.datetime
    run_id: str

    @pa.dataframe_check
    @classmethod
    def letter_matches_outcome(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """A valid outcome names a letter; an invalid one names none."""
        return data.lazyframe.select((pl.col("outcome") == "invalid") == pl.col("chosen_letter").is_null())

    @pa.dataframe_check
    @classmethod
    def reason_matches_outcome(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """Where the frame gives reasons, exactly the invalid answers have one."""
        if "invalid_reason" not in data.lazyframe.collect_schema().names():
            return data.lazyframe.select(pl.lit(True).alias("reason_matches_outcome"))
        invalid = pl.col("outcome") == "invalid"
        return data.lazyframe.select(invalid == pl.col("invalid_reason").is_not_null())

    @pa.dataframe_check
    @classmethod
    def unique_key(cls, data: pa.PolarsData) -> pl.LazyFrame | bool:
        """(model, image, scenario, ordering, seed) is unique within a batch.

        A 64-bit hash of the key is compared first (about half the cost); rows are compared key
        by key only when a hash repeats, so a collision costs time, never a wrong answer.
        """
        key = pl.struct("model_id", "image_id", "scenario_id", "ordering", "seed")
        distinct = data.lazyframe.select(key.hash().n_unique() == pl.len()).collect().item()
        return True if distinct else data.lazyframe.select(~key.is_duplicated())


class EmbeddingSchema(_Strict):
    """The embedding cache of probe backends (seed 004): vectors by encoder (checkpoint, revision,
    dtype), kind, and the image's SHA-256 or the probe text."""

    encoder: str = pa.Field(str_length={"min_value": 1})
    kind: str = pa.Field(isin=["image", "text"])
    item_key: str = pa.Field(str_length={"min_value": 1})
    vector: pl.List(pl.Float32)  # type: ignore[valid-type]

    @pa.dataframe_check
    @classmethod
    def finite_nonempty(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """Vectors are non-empty and finite."""
        return data.lazyframe.select(
            (pl.col("vector").list.len() > 0)
            & pl.col("vector").list.eval(pl.element().is_finite()).list.all()
        )


class ReleaseJudgmentSchema(_Strict):
    """What the StylisticBias release code recorded for an imported judgment (``cueshift import
    judgments``): its own reading of the answer beside ours (in ``judgment``, same key)."""

    model_id: str = pa.Field(str_length={"min_value": 1})
    image_id: str = pa.Field(str_length={"min_value": 1})
    scenario_id: str = pa.Field(str_length={"min_value": 1})
    ordering: pl.Int32 = pa.Field(ge=1)
    seed: pl.Int32 = pa.Field(ge=0)
    chosen_option: str | None = pa.Field(nullable=True)
    release_letter: str | None = pa.Field(nullable=True, isin=LETTERS)
    source_file: str = pa.Field(str_length={"min_value": 1})
    release_timestamp: str | None = pa.Field(nullable=True)
    run_id: str = pa.Field(str_length={"min_value": 1})


class ImageIdentitySchema(_Strict):
    """Counterfactual quality of a variation: the cosine of its embedding with its base's, and its
    robust z within its attribute (``cueshift analyze`` with ``[quality] encoder``)."""

    encoder: str = pa.Field(str_length={"min_value": 1})
    image_id: str = pa.Field(str_length={"min_value": 1})
    base_image_id: str = pa.Field(str_length={"min_value": 1})
    feature_key: str = pa.Field(str_length={"min_value": 1})
    cosine: float = pa.Field(ge=-1.0, le=1.0)
    robust_z: float | None = pa.Field(nullable=True)
    outlier: bool


class EditAuditSchema(_Strict):
    """One measure of one edit (a variation against its base): the edit audit (``sql/schema.sql``)."""

    image_id: str = pa.Field(str_length={"min_value": 1})
    base_image_id: str = pa.Field(str_length={"min_value": 1})
    face_id: str = pa.Field(str_length={"min_value": 1})
    feature_key: str = pa.Field(str_length={"min_value": 1})
    variation_value: str | None = pa.Field(nullable=True)
    check_kind: str = pa.Field(isin=["cue", "unintended", "identity"])
    measure: str = pa.Field(str_length={"min_value": 1})
    source: str = pa.Field(str_length={"min_value": 1})
    measured_base: float | None = pa.Field(nullable=True)
    measured_variation: float | None = pa.Field(nullable=True)
    difference: float
    robust_z: float | None = pa.Field(nullable=True)
    bound: float | None = pa.Field(nullable=True)
    failed: bool
    reason: str | None = pa.Field(nullable=True)


TABLE_SCHEMAS: dict[str, type[pa.DataFrameModel]] = {
    "face": FaceSchema,
    "image": ImageSchema,
    "scenario": ScenarioSchema,
    "prompt_variant": PromptVariantSchema,
    "model": ModelSchema,
    "run": RunSchema,
    "judgment": JudgmentSchema,
    "embedding": EmbeddingSchema,
    "request_failure": RequestFailureSchema,
    **DESIGN_TABLE_SCHEMAS,  # seeds 001/002/004: pairwise_trial, rating, stimulus, human_rating_mean
    "release_judgment": ReleaseJudgmentSchema,
    "image_identity": ImageIdentitySchema,
    "edit_audit": EditAuditSchema,
    "generation": GenerationSchema,
    "face_detection": FaceDetectionSchema,
    "audit_skin_tone": SkinToneSchema,
}
