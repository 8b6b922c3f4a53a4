"""Result tables of the StylisticBias design: counterfactual quality (docs/decisions.md#d9), what each
``--min-identity`` threshold drops from the analyses."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel
from cueshift.schemas._result_stylisticbias_base import Result


class IdentityDropsSchema(Result):
    """``result_identity_drops``: per threshold × attribute (``'all'`` pooled), the variations
    ``--min-identity`` drops at the threshold (cosine with their base below it; with ``[audit.faces]
    identity_filter = true`` also those the face models cannot verify, docs/decisions.md D38), the
    outliers (robust z within the attribute) and the cosine's median and minimum, the attribute's
    SBS over every variation and over those kept (``sign_kept``: the same sign); ``applied`` marks
    the threshold this run's analyses used. Who dropped what, where the face models filtered the
    run (null otherwise): ``n_dropped_cosine`` (cosine below the threshold), ``n_dropped_distance``
    (face-recognition distance past its threshold), ``n_dropped_face_count`` (no single face on
    base and variation) and ``n_dropped_both`` (the cosine and a face model):
    ``n_dropped = cosine + distance + face_count - both``."""

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
    n_dropped_cosine: pl.Int64 | None = pa.Field(nullable=True, ge=0)
    n_dropped_distance: pl.Int64 | None = pa.Field(nullable=True, ge=0)
    n_dropped_face_count: pl.Int64 | None = pa.Field(nullable=True, ge=0)
    n_dropped_both: pl.Int64 | None = pa.Field(nullable=True, ge=0)


#: These result tables by name (the table is ``result_<name>``).
QUALITY_RESULTS: dict[str, type[ResultModel]] = {"identity_drops": IdentityDropsSchema}
