"""Row contract of the ``face_detection`` table (mirrors ``sql/schema.sql``): what the face detector
of ``[audit.faces]`` found on each base and variation of the edit audit (docs/faces.md)."""

from __future__ import annotations

from typing import Any

import pandera.polars as pa
import polars as pl

#: What the detector found: exactly one face, none, or several (the largest is *the* face).
FINDINGS = ["one face", "no face", "several faces"]
#: The five landmarks in the detectors' common order (left and right as the image shows them).
LANDMARKS = ("left_eye", "right_eye", "nose", "mouth_left", "mouth_right")
#: The chosen face's box as fractions of the image's width and height.
BOX = ("x0", "y0", "x1", "y1")


def _fraction() -> Any:
    return pa.Field(nullable=True, ge=0.0, le=1.0)


def _landmark() -> Any:
    return pa.Field(nullable=True)


class FaceDetectionSchema(pa.DataFrameModel):
    """One image of the edit audit: how many faces the detector found and the largest one's box,
    landmarks (fractions of the image: x of the width, y of the height) and score, and the ITA°
    of its skin; every position is null when no face was found."""

    image_id: str = pa.Field(str_length={"min_value": 1}, unique=True)
    detector: str = pa.Field(str_length={"min_value": 1})
    face_count: pl.Int32 = pa.Field(ge=0)
    finding: str = pa.Field(isin=FINDINGS)
    score: float | None = pa.Field(nullable=True)
    x0: float | None = _fraction()
    y0: float | None = _fraction()
    x1: float | None = _fraction()
    y1: float | None = _fraction()
    left_eye_x: float | None = _landmark()
    left_eye_y: float | None = _landmark()
    right_eye_x: float | None = _landmark()
    right_eye_y: float | None = _landmark()
    nose_x: float | None = _landmark()
    nose_y: float | None = _landmark()
    mouth_left_x: float | None = _landmark()
    mouth_left_y: float | None = _landmark()
    mouth_right_x: float | None = _landmark()
    mouth_right_y: float | None = _landmark()
    skin_ita: float | None = pa.Field(nullable=True, ge=-90.0, le=90.0)

    class Config:
        strict = True
        coerce = False

    @pa.dataframe_check
    @classmethod
    def finding_matches_count(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """``finding`` says what ``face_count`` counts (0: no face, 1: one face, more: several)."""
        n = pl.col("face_count")
        expected = pl.when(n == 0).then(pl.lit("no face")).when(n == 1).then(pl.lit("one face"))
        return data.lazyframe.select(pl.col("finding") == expected.otherwise(pl.lit("several faces")))

    @pa.dataframe_check
    @classmethod
    def box_only_with_a_face(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """A box and a score exactly where a face was found, with ``x0 < x1`` and ``y0 < y1``."""
        found = pl.col("face_count") > 0
        present = pl.all_horizontal(pl.col(*BOX, "score").is_not_null())
        ordered = (pl.col("x0") < pl.col("x1")) & (pl.col("y0") < pl.col("y1"))
        return data.lazyframe.select((found == present) & (~found | ordered).fill_null(False))


__all__ = ["BOX", "FINDINGS", "LANDMARKS", "FaceDetectionSchema"]
