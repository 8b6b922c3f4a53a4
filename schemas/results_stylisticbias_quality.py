"""Result tables of the StylisticBias design: counterfactual quality (docs/decisions.md#d9), what each
``--min-identity`` threshold drops from the analyses."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel
from cueshift.schemas._result_stylisticbias_base import Result


class IdentityDropsSchema(Result):
    """``result_identity_drops``: per threshold × attribute (``'all'`` pooled), the variations whose
    cosine with their base is below the threshold (dropped by ``--min-identity``), the outliers
    (robust z within the attribute) and the cosine's median and minimum, the attribute's SBS over
    every variation and over those kept (``sign_kept``: the same sign); ``applied`` marks the
    threshold this run's analyses used."""

    threshold: float = pa.Field(ge=-1.0, le=1.0)
    feature_key: str
    n_variations: pl.Int64 = pa.Field(ge=0)
    n_dropped: pl.Int64 = pa.Field(ge=0)
    share_dropped: float = pa.Field(ge=0.0, le=1.0)
    n_outliers: pl.Int64 = pa.Field(ge=0)
    median_cosine: float = pa.Field(ge=-1.0, le=1.0)
    min_cosine: float = pa.Field(ge=-1.0, le=1.0)
    sbs_all: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    sbs_kept: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    sign_kept: bool | None = pa.Field(nullable=True)
    applied: bool


#: These result tables by name (the table is ``result_<name>``).
QUALITY_RESULTS: dict[str, type[ResultModel]] = {"identity_drops": IdentityDropsSchema}
