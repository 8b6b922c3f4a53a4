"""``audit_skin_tone``: the ITA° change of the edits summarised by attribute and by the base's
ethnicity × gender, with face-clustered intervals (docs/faces.md, "Skin tone summaries")."""

from __future__ import annotations

from typing import Final

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel

#: A cell's key column that does not split it (every attribute, every gender ...).
ALL = "(all)"
SUMMARIES = ["attribute", "group", "difference"]
#: The level of the intervals ``cueshift audit`` computes (stored in ``confidence_level``; rows
#: written before the column existed, NULL there, were computed at this level too).
SKIN_TONE_LEVEL: Final = 0.95


class SkinToneSchema(ResultModel):
    """One row per cell: ``summary`` says which grouping (``attribute``: one attribute value over
    every face; ``group``: one ethnicity × gender over every edit, or within one attribute value;
    ``difference``: one ethnicity's faces minus every other face, the question "does the editor
    lighten darker faces more?"). A key column that does not split the cell holds ``(all)``
    (:data:`ALL`), so ``(summary, feature_key, variation_value, ethnicity, gender)`` is the key.
    ``estimate`` is the mean per-face ITA° change (variation − base; positive = lighter),
    ``ci_low``/``ci_high`` its face-level bootstrap interval (null: a cell of one face) at
    ``confidence_level`` (the report's and the console's labels read it)."""

    summary: str = pa.Field(isin=SUMMARIES)
    feature_key: str = pa.Field(str_length={"min_value": 1})
    variation_value: str = pa.Field(str_length={"min_value": 1})
    ethnicity: str = pa.Field(str_length={"min_value": 1})
    gender: str = pa.Field(str_length={"min_value": 1})
    estimate: float | None = pa.Field(nullable=True)
    ci_low: float | None = pa.Field(nullable=True)
    ci_high: float | None = pa.Field(nullable=True)
    n_edits: pl.Int64 = pa.Field(ge=0)
    n_faces: pl.Int64 = pa.Field(ge=0)
    confidence_level: float | None = pa.Field(nullable=True, gt=0.0, lt=1.0)

    @pa.dataframe_check
    @classmethod
    def unique_cell(cls, data: pa.PolarsData) -> pl.LazyFrame:
        """Each cell once: ``(summary, feature_key, variation_value, ethnicity, gender)`` is unique."""
        key = pl.struct("summary", "feature_key", "variation_value", "ethnicity", "gender")
        return data.lazyframe.select(~key.is_duplicated())


__all__ = ["ALL", "SKIN_TONE_LEVEL", "SUMMARIES", "SkinToneSchema"]
