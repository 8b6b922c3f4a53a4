"""Pandera (polars) schemas: every frame written to the study database passes one first.

One model per table in ``sql/schema.sql``; :data:`TABLE_SCHEMAS` maps table name to model.
"""

from cueshift.schemas.tables import (
    TABLE_SCHEMAS,
    EmbeddingSchema,
    FaceSchema,
    ImageSchema,
    JudgmentSchema,
    ModelSchema,
    PromptVariantSchema,
    RunSchema,
    ScenarioSchema,
)

__all__ = [
    "TABLE_SCHEMAS",
    "EmbeddingSchema",
    "FaceSchema",
    "ImageSchema",
    "JudgmentSchema",
    "ModelSchema",
    "PromptVariantSchema",
    "RunSchema",
    "ScenarioSchema",
]
