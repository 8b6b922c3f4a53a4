"""Row-level contracts of the tables the further designs write (seeds 001/002/004).

Part of :data:`cueshift.schemas.tables.TABLE_SCHEMAS`, so that :func:`cueshift.store.write_tables`
validates them like every other table.
"""

from __future__ import annotations

import datetime as dt

import pandera.polars as pa
import polars as pl


class _Strict(pa.DataFrameModel):
    class Config:
        strict = True
        coerce = False


class PairwiseTrialSchema(_Strict):
    """``pairwise_trial``: two images side by side, the raw answer and the winner (seed 002)."""

    model_id: str = pa.Field(str_length={"min_value": 1})
    left_image_id: str = pa.Field(str_length={"min_value": 1})
    right_image_id: str = pa.Field(str_length={"min_value": 1})
    scenario_id: str = pa.Field(str_length={"min_value": 1})
    seed: pl.Int32 = pa.Field(ge=0)
    response_text: str
    winner_image_id: str | None = pa.Field(nullable=True)
    latency_ms: float = pa.Field(ge=0.0)
    created_at: dt.datetime
    run_id: str

    @pa.dataframe_check
    @classmethod
    def two_images(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """Left and right differ."""
        return data.lazyframe.select(pl.col("left_image_id") != pl.col("right_image_id"))

    @pa.dataframe_check
    @classmethod
    def winner_is_shown(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """The winner is one of the two images (or NULL for an invalid answer)."""
        return data.lazyframe.select(
            pl.col("winner_image_id").is_null()
            | (pl.col("winner_image_id") == pl.col("left_image_id"))
            | (pl.col("winner_image_id") == pl.col("right_image_id"))
        )


class RatingSchema(_Strict):
    """``rating``: a scalar rating of one image on one attribute by a model or a human."""

    rater_id: str = pa.Field(str_length={"min_value": 1})
    rater_kind: str = pa.Field(isin=["model", "human"])
    image_id: str = pa.Field(str_length={"min_value": 1})
    attribute: str = pa.Field(str_length={"min_value": 1})
    seed: pl.Int32 = pa.Field(ge=0)
    rating: float | None = pa.Field(nullable=True)
    response_text: str | None = pa.Field(nullable=True)
    created_at: dt.datetime

    @pa.dataframe_check
    @classmethod
    def unique_key(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """(rater, image, attribute, seed) is unique within a batch."""
        return data.lazyframe.select(
            ~pl.struct(["rater_id", "image_id", "attribute", "seed"]).is_duplicated()
        )


class StimulusSchema(_Strict):
    """``stimulus``: cohort and stimulus group of an image in a pairwise design (seed 002)."""

    image_id: str = pa.Field(unique=True, str_length={"min_value": 1})
    cohort: str = pa.Field(str_length={"min_value": 1})
    stimulus_group: str = pa.Field(str_length={"min_value": 1})


class HumanRatingMeanSchema(_Strict):
    """``human_rating_mean``: published per-stimulus human means (seed 004, OMI)."""

    image_id: str = pa.Field(str_length={"min_value": 1})
    attribute: str = pa.Field(str_length={"min_value": 1})
    mean: float
    n_raters: pl.Int64 | None = pa.Field(nullable=True, ge=1)
    source: str

    @pa.dataframe_check
    @classmethod
    def unique_key(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """(image, attribute) is unique."""
        return data.lazyframe.select(~pl.struct(["image_id", "attribute"]).is_duplicated())


DESIGN_TABLE_SCHEMAS: dict[str, type[pa.DataFrameModel]] = {
    "pairwise_trial": PairwiseTrialSchema,
    "rating": RatingSchema,
    "stimulus": StimulusSchema,
    "human_rating_mean": HumanRatingMeanSchema,
}
