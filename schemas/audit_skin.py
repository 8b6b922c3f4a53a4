"""``audit_skin_tone``: the ITA° change of the edits summarised by attribute and by the base's
ethnicity × gender, with face-clustered intervals (docs/faces.md, "Skin tone summaries")."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel


class SkinToneSchema(ResultModel):
    """One row per cell: ``summary`` says which grouping (``attribute``: one attribute value over
    every face; ``group``: one ethnicity × gender over every edit, or within one attribute value;
    ``difference``: one ethnicity's faces minus every other face, the question "does the editor
    lighten darker faces more?"). ``estimate`` is the mean per-face ITA° change (variation − base;
    positive = lighter), ``ci_low``/``ci_high`` its face-level bootstrap interval."""

    summary: str = pa.Field(isin=["attribute", "group", "difference"])
    feature_key: str | None = pa.Field(nullable=True)
    variation_value: str | None = pa.Field(nullable=True)
    ethnicity: str | None = pa.Field(nullable=True)
    gender: str | None = pa.Field(nullable=True)
    estimate: float | None = pa.Field(nullable=True)
    ci_low: float | None = pa.Field(nullable=True)
    ci_high: float | None = pa.Field(nullable=True)
    n_edits: pl.Int64 = pa.Field(ge=0)
    n_faces: pl.Int64 = pa.Field(ge=0)
