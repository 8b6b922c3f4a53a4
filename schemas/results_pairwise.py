"""Result tables of the two-image pairwise design and its ratings (seed 002):
``result_pairwise_<name>``, from the statistics in ``designs/pairwise/win_rates.py``,
``logit_fits.py`` and ``ratings.py``."""

from __future__ import annotations

import polars as pl

from cueshift.schemas._result_base import ResultModel, count, nullable, one_of, pvalue, share


class _Proportion(ResultModel):
    """k of n trials won, the share with its Wilson interval, the exact binomial test and the odds."""

    k: pl.Int64 = count()
    n: pl.Int64 = count()
    estimate: float = share()
    ci_low: float = share()
    ci_high: float = share()
    p: float = pvalue()
    odds_ratio: float = nullable(ge=0.0)
    test: str = one_of("binomial-exact")


class CohortSchema(_Proportion):
    """``result_pairwise_cohort``: trials won by the target group per model × cohort, BH
    (Tables 3–4)."""

    model_id: str
    cohort: str
    p_adj: float = pvalue()
    n_invalid: pl.Int64 = count()
    target_group: str
    pseudo_count: str = one_of("always", "extreme", "none")


class StimulusSchema(_Proportion):
    """``result_pairwise_stimulus``: win rate of each stimulus (Tables 1–2)."""

    model_id: str
    cohort: str
    stimulus_group: str
    image_id: str
    p_adj: float = pvalue()


class PositionSchema(_Proportion):
    """``result_pairwise_position``: P(left wins) per model and the same-winner share over pairs
    asked in both orders."""

    model_id: str
    consistency: float = share()
    n_swapped_pairs: pl.Int64 = count(nullable=True)
    left_excess: float = nullable(ge=-0.5, le=0.5)


class _Wald(ResultModel):
    """A logistic-model coefficient with its Wald interval and test; null when separated."""

    model_id: str
    cohort: str
    estimate: float = nullable()
    ci_low: float = nullable()
    ci_high: float = nullable()
    statistic: float = nullable()
    p: float = pvalue()
    n: pl.Int64 = count()
    separated: bool


class GroupEffectSchema(_Wald):
    """``result_pairwise_group_effect``: position-adjusted log odds that the target group wins."""

    odds_ratio: float = nullable(ge=0.0)
    position: float = nullable()
    p_adj: float = pvalue()
    target_group: str
    test: str = one_of("logit-wald")


class BradleyTerrySchema(_Wald):
    """``result_pairwise_bradley_terry``: centred Bradley–Terry strengths and the position term."""

    term: str
    stimulus_group: str = nullable()
    se: float = nullable(ge=0.0)
    test: str = one_of("bradley-terry-wald")
    prior_games: float = nullable(ge=0.0)


class _Rater(ResultModel):
    rater_kind: str = one_of("model", "human")
    rater: str
    attribute: str
    cohort: str


class RatingSummarySchema(_Rater):
    """``result_pairwise_rating_summary``: mean rating per rater × attribute × cohort × group."""

    stimulus_group: str
    estimate: float = nullable()
    sd: float = nullable(ge=0.0)
    n: pl.Int64 = count()
    n_invalid: pl.Int64 = count()
    ci_low: float = nullable()
    ci_high: float = nullable()


class RatingBinsSchema(_Rater):
    """``result_pairwise_rating_bins``: share of ratings per bin with Wilson intervals (Fig. 6)."""

    n: pl.Int64 = count()
    bin: str
    bin_order: pl.Int64 = count()
    k: pl.Int64 = count()
    estimate: float = share()
    ci_low: float = share()
    ci_high: float = share()


class RatingReliabilitySchema(ResultModel):
    """``result_pairwise_rating_reliability``: Krippendorff's α of the human ratings."""

    attribute: str
    level: str = one_of("interval", "ordinal")
    estimate: float = nullable(le=1.0)
    n_units: pl.Int64 = count()
    n_raters: pl.Int64 = count()
    n: pl.Int64 = count()
    test: str = one_of("krippendorff-alpha")


class RatingModelHumanSchema(ResultModel):
    """``result_pairwise_rating_model_human``: Spearman ρ of model vs human mean ratings."""

    model_id: str
    attribute: str
    estimate: float = nullable(ge=-1.0, le=1.0)
    ci_low: float = nullable()
    ci_high: float = nullable()
    p: float = pvalue()
    n: pl.Int64 = count()
    mean_difference: float = nullable()
    test: str = one_of("spearman")


#: The pairwise design's result tables by name (the table is ``result_pairwise_<name>``).
PAIRWISE_RESULTS: dict[str, type[ResultModel]] = {
    "cohort": CohortSchema,
    "stimulus": StimulusSchema,
    "position": PositionSchema,
    "group_effect": GroupEffectSchema,
    "bradley_terry": BradleyTerrySchema,
    "rating_summary": RatingSummarySchema,
    "rating_bins": RatingBinsSchema,
    "rating_reliability": RatingReliabilitySchema,
    "rating_model_human": RatingModelHumanSchema,
}

#: The stored result tables (``result_pairwise_<name>``): the design's ``result_schemas``.
RESULT_TABLES: dict[str, type[ResultModel]] = {
    f"pairwise_{name}": model for name, model in PAIRWISE_RESULTS.items()
}
