"""The pairwise report's ratings (seed 002 Fig. 6, App. C.2): the ratings per bin (Table 5), the
mean rating per portrait group (Table 5b), the human raters' reliability (Table 6) and each model's
agreement with the human raters (Table 7). The notes name the study's rating scale as its runs
recorded it (:data:`~cueshift.designs.pairwise.rating_scale.SCALE_NOTE`; 0–10 in seed 002)."""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.designs.pairwise.rating_scale import SCALE_NOTE
from cueshift.render import (
    CI_LABEL,
    EMPHASIS_LEGEND,
    MODELS_FILTER,
    Col,
    Pivot,
    TableSpec,
    ci,
    effect,
    fmt_integer,
    fmt_pvalue,
    number,
    percent,
    stub,
)

RATING_TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="pairwise_rating_bins",
        title="Table 5. Ratings per bin (seed 002 Fig. 6)",
        sql="""SELECT rater, cohort, n, bin, bin_order, estimate FROM result_pairwise_rating_bins
           ORDER BY rater = '(humans)' DESC, rater, cohort, bin_order""",
        columns=(stub("rater", "Rater"), stub("cohort", "Cohort"), Col("n", "Ratings", fmt_integer)),
        pivot=Pivot(on="bin", value="estimate", fmt=percent(0), order="bin_order"),
        notes=(
            "Share of the rater's valid ratings of the cohort's portraits in each bin of the study's "
            "pairwise.bins (Ratings: how many); (humans): every human rater pooled.",
        ),
        notes_sql=SCALE_NOTE,
        requires=("result_pairwise_rating_bins",),
    ),
    TableSpec(
        key="pairwise_rating_summary",
        title="Table 5b. Mean rating per rater, cohort and portrait group (seed 002's means beside Fig. 6)",
        sql="""SELECT rater, attribute, cohort, stimulus_group, estimate, ci_low, ci_high, sd, n, n_invalid
           FROM result_pairwise_rating_summary WHERE rater_kind = 'human' OR list_contains($models, rater)
           ORDER BY rater = '(humans)' DESC, rater, attribute, cohort, stimulus_group""",
        columns=(
            stub("rater", "Rater"),
            stub("attribute", "Attribute"),
            stub("cohort", "Cohort"),
            stub("stimulus_group", "Group"),
            Col("estimate", "Mean", number(2)),
            Col("ci_low", CI_LABEL, ci(2, False), args=("ci_high",)),
            Col("sd", "SD", number(2)),
            Col("n", "Ratings", fmt_integer),
            Col("n_invalid", "Invalid", fmt_integer),
        ),
        notes=(
            "Mean and SD of the rater's valid ratings (Ratings: n) of the cohort's portraits of the group, on the "
            "study's rating scale (below); (humans): every human rater pooled. Invalid: answers with no rating "
            "on the scale, left out of n.",
            "t interval of the mean, x̄ ± t(n − 1) s/√n, treating the n ratings as independent (ratings "
            "of one portrait or by one rater are not, so it is too narrow where they cluster); blank for "
            "a single rating. Descriptive: no test.",
        ),
        notes_sql=SCALE_NOTE,
        requires=("result_pairwise_rating_summary",),
    ),
    TableSpec(
        key="pairwise_rating_reliability",
        title="Table 6. Inter-rater reliability of the human ratings (Krippendorff's α)",
        sql="SELECT attribute, level, estimate, n_units, n_raters, n FROM result_pairwise_rating_reliability",
        columns=(
            stub("attribute", "Attribute"),
            stub("level", "Metric"),
            Col("estimate", "α", number(3)),
            Col("n_units", "Images", fmt_integer),
            Col("n_raters", "Raters", fmt_integer),
            Col("n", "Ratings", fmt_integer),
        ),
        requires=("result_pairwise_rating_reliability",),
    ),
    TableSpec(
        key="pairwise_rating_model_human",
        title="Table 7. Each model's ratings against the human raters' (seed 002 Fig. 6)",
        sql=f"""SELECT model_id, attribute, estimate, ci_low, ci_high, p, mean_difference, n
            FROM result_pairwise_rating_model_human WHERE {MODELS_FILTER} ORDER BY attribute, model_id""",
        columns=(
            stub("attribute", "Attribute"),
            stub("model_id", "Model"),
            Col("estimate", "Spearman ρ", number(2), p="p"),
            Col("ci_low", CI_LABEL, ci(2), args=("ci_high",)),
            Col("p", "p", fmt_pvalue),
            Col("mean_difference", "Mean model − human", effect(2)),
            Col("n", "Portraits", fmt_integer),
        ),
        notes=(
            "Spearman ρ between the model's mean rating of each portrait and the human raters' mean "
            "rating of it, over the n portraits both rated; Fisher z interval with the Bonett–Wright "
            "standard error; p: the t test of ρ (scipy.stats.spearmanr), unadjusted. Mean model − human: the mean over "
            "the portraits of the difference of the two mean ratings, on the rating scale (below).",
            EMPHASIS_LEGEND,
        ),
        notes_sql=SCALE_NOTE,
        requires=("result_pairwise_rating_model_human",),
    ),
)
