"""The analyses of the pairwise design (seed 002), declared in :data:`DECLARED` (suite ``pairwise``).

Trials give the cohort, stimulus, position and group tables (exact binomial tests, Wilson
intervals, Bradley–Terry); ratings (models and humans) give the rating tables when any rating
is stored, and the reliability and model–human tables when human ratings are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.pairwise.logit_fits import bradley_terry, group_effect
from cueshift.designs.pairwise.ratings import model_human_rating_agreement, rating_bins, rating_summary
from cueshift.designs.pairwise.section import PairwiseConfig
from cueshift.designs.pairwise.win_rates import cohort_preference, position_bias, stimulus_win_rates
from cueshift.errors import CueshiftError
from cueshift.stats import AnalysisContext, Declarations, krippendorff_by_attribute

SUITE = "pairwise"

TRIALS_SQL = """
SELECT t.model_id, t.scenario_id, t.seed, t.left_image_id, t.right_image_id, t.winner_image_id,
       t.response_text,
       sl.cohort, sl.stimulus_group AS left_group, sr.stimulus_group AS right_group
FROM pairwise_trial AS t
JOIN stimulus AS sl ON sl.image_id = t.left_image_id
JOIN stimulus AS sr ON sr.image_id = t.right_image_id
"""
RATINGS_SQL = """
SELECT r.rater_kind, r.rater_id, r.image_id, r.attribute, r.rating, s.cohort, s.stimulus_group
FROM rating AS r JOIN stimulus AS s ON s.image_id = r.image_id
"""


def load_frames(
    con: duckdb.DuckDBPyConnection, models: Sequence[str] = ()
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The stored trials and ratings (of ``models`` and every human rater, when ``models`` is given).

    Raises
    ------
    CueshiftError
        No trial is stored.
    """
    trials_sql, ratings_sql = TRIALS_SQL, RATINGS_SQL
    params: list[object] = list(models)
    if models:
        marks = ", ".join("?" for _ in models)
        trials_sql += f"WHERE t.model_id IN ({marks})"
        ratings_sql += f"WHERE r.rater_kind = 'human' OR r.rater_id IN ({marks})"
    trials = store.query(con, trials_sql, params or None)
    if trials.height == 0:
        raise CueshiftError("pairwise: no trials in the study database (run `cueshift infer` first)")
    return trials, store.query(con, ratings_sql, params or None)


@dataclass(frozen=True)
class Inputs:
    """The trials, the ratings and the ``[pairwise]`` settings."""

    trials: pl.DataFrame
    ratings: pl.DataFrame
    config: PairwiseConfig

    @cached_property
    def humans(self) -> pl.DataFrame:
        return self.ratings.filter(pl.col("rater_kind") == "human")


Context = AnalysisContext[Inputs]

#: The design's analyses, in the order they run and their tables and manifest rows are listed.
DECLARED = Declarations(SUITE)


@DECLARED(
    "pairwise_cohort",
    description="Trials won by the target group per model x cohort (002 Tables 3-4)",
    source="pairwise_trial",
    grouping="model x cohort",
    statistic="share of wins, exact binomial test vs 0.5, Wilson interval, odds ratio",
    family="[pairwise] bh_family (default: all tests)",
)
def _cohort(ctx: Context) -> pl.DataFrame:
    config = ctx.inputs.config
    return cohort_preference(
        ctx.inputs.trials,
        target=config.target_group,
        other=config.other_group,
        confidence=config.confidence,
        bh_family=config.bh_family,
        pseudo_count=config.pseudo_count,
    )


@DECLARED(
    "pairwise_stimulus",
    description="Win rate of every stimulus over its valid trials (002 Tables 1-2)",
    source="pairwise_trial",
    grouping="model x stimulus",
    statistic="share of wins, exact binomial test vs 0.5, Wilson interval",
    family="[pairwise] bh_family (default: all tests)",
)
def _stimulus(ctx: Context) -> pl.DataFrame:
    config = ctx.inputs.config
    return stimulus_win_rates(
        ctx.inputs.trials,
        confidence=config.confidence,
        bh_family=config.bh_family,
        pseudo_count=config.pseudo_count,
    )


@DECLARED(
    "pairwise_position",
    description="Position bias: P(left image wins) and the same winner in both orders",
    source="pairwise_trial",
    grouping="model",
    statistic="share of left wins, exact binomial test vs 0.5, Wilson interval",
    family="none",
)
def _position(ctx: Context) -> pl.DataFrame:
    return position_bias(ctx.inputs.trials, confidence=ctx.inputs.config.confidence)


@DECLARED(
    "pairwise_group_effect",
    description="Target-group effect on the log-odds of winning, position-adjusted",
    source="pairwise_trial",
    grouping="model x cohort",
    statistic="logistic regression with a position term, Wald test",
    family="[pairwise] bh_family (default: all tests)",
)
def _group_effect(ctx: Context) -> pl.DataFrame:
    config = ctx.inputs.config
    return group_effect(
        ctx.inputs.trials,
        target=config.target_group,
        other=config.other_group,
        confidence=config.confidence,
        bh_family=config.bh_family,
    )


@DECLARED(
    "pairwise_bradley_terry",
    description="Bradley-Terry strengths of the stimuli with a position term",
    source="pairwise_trial",
    grouping="model x cohort x term (stimuli and position)",
    statistic="maximum-likelihood Bradley-Terry fit, Wald intervals",
    family="none",
)
def _bradley_terry(ctx: Context) -> pl.DataFrame | None:
    if not ctx.inputs.config.bradley_terry:
        return None
    return bradley_terry(ctx.inputs.trials, confidence=ctx.inputs.config.confidence)


@DECLARED(
    "pairwise_rating_summary",
    description="Mean rating per rater x cohort x stimulus group",
    source="rating",
    grouping="rater x attribute x cohort x stimulus group",
    statistic="mean rating, t interval",
    family="none",
)
def _rating_summary(ctx: Context) -> pl.DataFrame | None:
    if ctx.inputs.ratings.height == 0:
        return None
    return rating_summary(ctx.inputs.ratings, confidence=ctx.inputs.config.confidence)


@DECLARED(
    "pairwise_rating_bins",
    description="Share of valid ratings in each bin of the scale (002 Fig. 6)",
    source="rating",
    grouping="rater x attribute x cohort x bin",
    statistic="share, Wilson interval",
    family="none",
)
def _rating_bins(ctx: Context) -> pl.DataFrame | None:
    if ctx.inputs.ratings.height == 0:
        return None
    config = ctx.inputs.config
    bins = [(b.label, b.low, b.high, b.closed) for b in config.bins]
    return rating_bins(ctx.inputs.ratings, bins, confidence=config.confidence)


@DECLARED(
    "pairwise_rating_reliability",
    description="Agreement of the human raters per attribute",
    source="rating (human raters)",
    grouping="attribute",
    statistic="Krippendorff's alpha (interval)",
    family="none",
)
def _rating_reliability(ctx: Context) -> pl.DataFrame | None:
    if ctx.inputs.ratings.height == 0 or ctx.inputs.humans.height == 0:
        return None
    return krippendorff_by_attribute(ctx.inputs.humans)


@DECLARED(
    "pairwise_rating_model_human",
    description="Agreement of each model's ratings with the mean human rating per stimulus",
    source="rating",
    grouping="model x attribute",
    statistic="Spearman rho with interval and test",
    family="none",
)
def _rating_model_human(ctx: Context) -> pl.DataFrame | None:
    if ctx.inputs.ratings.height == 0 or ctx.inputs.humans.height == 0:
        return None
    agreement = model_human_rating_agreement(ctx.inputs.ratings, confidence=ctx.inputs.config.confidence)
    return agreement
