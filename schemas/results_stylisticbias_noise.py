"""Result tables of the StylisticBias design: the noise floor: placebo variations (pixel-identical
copy, lossless re-encode) as a negative control."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel, count, nullable, one_of, share
from cueshift.schemas._result_stylisticbias_base import Interval, Tested


class NoiseFloorSchema(Tested, Interval):
    """``result_noise_floor``: per model (and pooled) × placebo value (and all placebos): the
    placebo SBS with its face-level CI (true value 0) and WSRT against 0, and the distribution of
    the placebo |SBS| over model × value × scenario cells (the |SBS| unit): mean, quantile, max."""

    model_id: str
    variation_value: str
    abs_sbs_mean: float | None = share()
    abs_sbs_quantile: float | None = share()
    abs_sbs_max: float | None = share()
    quantile: float = pa.Field(gt=0.0, lt=1.0)
    effect_size: float | None = nullable()
    test: str = one_of("wilcoxon", "sign-flip")
    ci_method: str = one_of("bca", "percentile")
    n_cells: pl.Int64 = count()
    n: pl.Int64 = count()
    n_obs: pl.Int64 = count()


class NoiseFloorAttributeSchema(Tested, Interval):
    """``result_noise_floor_attributes``: per model (and pooled) × attribute value: its |SBS| beside
    the placebo floor (mean and quantile of placebo cell |SBS|), and the face-level test of its
    per-face mean |Δ| against the same face's placebo |Δ| (one-sided WSRT, BH within model)."""

    model_id: str
    variation_category: str | None = nullable()
    variation_value: str
    abs_sbs: float | None = share()
    floor_mean: float | None = share()
    floor_quantile: float | None = share()
    ratio: float | None = pa.Field(nullable=True, ge=0.0)
    share_cells_above: float | None = share()
    above_floor: bool
    passes: bool
    effect_size: float | None = nullable()
    test: str = one_of("wilcoxon", "sign-flip")
    ci_method: str = one_of("bca", "percentile")
    n_cells: pl.Int64 = count()
    n: pl.Int64 = count()
    n_obs: pl.Int64 = count()


#: These result tables by name (the table is ``result_<name>``).
NOISE_RESULTS: dict[str, type[ResultModel]] = {
    "noise_floor": NoiseFloorSchema,
    "noise_floor_attributes": NoiseFloorAttributeSchema,
}
