"""Row contract of the ``generation`` table (mirrors ``sql/schema.sql``): one row per generator call
of ``cueshift build``, keyed by the image slot and the try."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

#: What a try came to: the generator's outcome, or ``rejected`` when the edit audit turned it down.
GENERATION_OUTCOMES = ["ok", "refused", "failed", "rejected"]
GENERATION_STAGES = ["base", "variation"]


class GenerationSchema(pa.DataFrameModel):
    """One call: which image and try, what was asked of whom, what came back."""

    image_id: str = pa.Field(str_length={"min_value": 1})
    parent_id: str | None = pa.Field(nullable=True)
    stage: str = pa.Field(isin=GENERATION_STAGES)
    backend: str = pa.Field(str_length={"min_value": 1})
    model: str
    prompt: str = pa.Field(str_length={"min_value": 1})
    seed: int = pa.Field(ge=0)
    try_: int = pa.Field(ge=1, alias="try")
    outcome: str = pa.Field(isin=GENERATION_OUTCOMES)
    message: str
    sha256: str | None = pa.Field(nullable=True, str_length={"min_value": 64, "max_value": 64})
    seconds: float = pa.Field(ge=0.0)
    cell: str
    feature_key: str | None = pa.Field(nullable=True)
    variation_value: str | None = pa.Field(nullable=True)
    run_id: str = pa.Field(str_length={"min_value": 1})

    class Config:
        strict = True
        coerce = False  # (image_id, try) is unique by the table's primary key


#: The dtypes of a ``generation`` frame, as written.
GENERATION_DTYPES: dict[str, pl.DataType] = {
    "image_id": pl.String(),
    "parent_id": pl.String(),
    "stage": pl.String(),
    "backend": pl.String(),
    "model": pl.String(),
    "prompt": pl.String(),
    "seed": pl.Int64(),
    "try": pl.Int64(),
    "outcome": pl.String(),
    "message": pl.String(),
    "sha256": pl.String(),
    "seconds": pl.Float64(),
    "cell": pl.String(),
    "feature_key": pl.String(),
    "variation_value": pl.String(),
    "run_id": pl.String(),
}

__all__ = ["GENERATION_DTYPES", "GENERATION_OUTCOMES", "GENERATION_STAGES", "GenerationSchema"]
