"""Result tables of the StylisticBias design: missing answers: invalid and refusal rates per group
x variation x model, and their shifts."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel, count, nullable, one_of, share
from cueshift.schemas._result_stylisticbias_base import Interval, Tested

#: Which answers a rate counts: every invalid answer, or the refusals among them.
RATE_KINDS = ("invalid", "refusal")
DIMENSIONS = ("(all)", "age", "gender", "ethnicity", "body_type")


class MissingRateSchema(Interval):
    """``result_missing_rates``: per model (and pooled) x dimension x group x variation value
    (``(base)``: the base images): the face-level invalid or refusal rate with its Wilson interval
    at the effective sample size of the face clusters, the answers and the invalid answers
    (refusals) counted, the faces."""

    model_id: str
    dimension: str = one_of(*DIMENSIONS)
    group: str
    variation_category: str | None = nullable()
    variation_value: str
    rate: str = one_of(*RATE_KINDS)
    estimate: float | None = share()
    ci_low: float | None = share()
    ci_high: float | None = share()
    ci_method: str = one_of("wilson-effective-n")
    n_answers: pl.Int64 = count()
    n_events: pl.Int64 = count()
    n: pl.Int64 = count()


class MissingShiftSchema(Tested, Interval):
    """``result_missing_shift``: per model (and pooled) x dimension x group x variation value (the
    refusal rate: dimension ``(all)`` only): the face-level mean shift of the invalid (refusal)
    rate, variation image minus the same face's base image, with its face-level bootstrap
    interval, WSRT or sign-flip test against 0 (BH within model x rate x dimension), and the two
    rates it compares."""

    model_id: str
    dimension: str = one_of(*DIMENSIONS)
    group: str
    variation_category: str | None = nullable()
    variation_value: str
    rate: str = one_of(*RATE_KINDS)
    estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    rate_base: float | None = share()
    rate_variation: float | None = share()
    effect_size: float | None = nullable()
    test: str = one_of("wilcoxon", "sign-flip")
    ci_method: str = one_of("bca", "percentile")
    n: pl.Int64 = count()
    n_obs: pl.Int64 = count()


class MissingOrderingSchema(Interval):
    """``result_missing_by_ordering``: per model (and pooled) x ordering x the letter the invalid
    answers would have named (``a``, ``b``, ``both``, ``none``; :func:`cueshift.inference.parser.
    named_letter`) and the pole that letter holds in the ordering: the face-level share of the
    ordering's answers that are invalid and name that letter, with its face-level interval."""

    model_id: str
    ordering: pl.Int32 = pa.Field(ge=1, le=4)
    named_letter: str = one_of("a", "b", "both", "none")
    pole: str | None = pa.Field(nullable=True, isin=["favorable", "unfavorable"])
    estimate: float | None = share()
    ci_low: float | None = share()
    ci_high: float | None = share()
    ci_method: str = one_of("bca", "percentile")
    n_answers: pl.Int64 = count()
    n_events: pl.Int64 = count()
    n: pl.Int64 = count()


class MissingLeanSchema(Tested, Interval):
    """``result_missing_lean``: per model (and pooled): the face-level mean of (invalid answers
    naming the favorable pole's letter - those naming the unfavorable pole's letter) / answers,
    over all orderings, with its face-level bootstrap interval and WSRT or sign-flip test against 0
    (BH over the rows): whether leaving invalid answers out of phi biases it."""

    model_id: str
    estimate: float | None = pa.Field(nullable=True, ge=-1.0, le=1.0)
    share_favorable: float | None = share()
    share_unfavorable: float | None = share()
    effect_size: float | None = nullable()
    test: str = one_of("wilcoxon", "sign-flip")
    ci_method: str = one_of("bca", "percentile")
    n: pl.Int64 = count()
    n_answers: pl.Int64 = count()


#: These result tables by name (the table is ``result_<name>``).
MISSING_RESULTS: dict[str, type[ResultModel]] = {
    "missing_rates": MissingRateSchema,
    "missing_shift": MissingShiftSchema,
    "missing_by_ordering": MissingOrderingSchema,
    "missing_lean": MissingLeanSchema,
}
