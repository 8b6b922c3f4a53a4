"""The probe (seed 004) report: what ``reports/probe.qmd`` shows, declared for the report facade.

Human reliability, model–human similarity (Table 1), reliability vs similarity (Figs. 3–4), the structure of impressions, the scale regression (Table 2), the similarity's baselines (random-weight twin, image statistics) and each model against its random twin. Significance in the seed 000 notation (bold p < 0.001, underlined p ≥ 0.05), computed from
the stored p-values at render time. Tables are numbered in the order ``reports/probe.qmd`` shows them;
each note names the test, the interval and what n counts.
"""

# ruff: noqa: E501  (declared SQL reads best unwrapped)
from __future__ import annotations

from cueshift.render import (
    CI_LABEL,
    EMPHASIS_LEGEND,
    EMPHASIS_LEGEND_MD,
    MODELS_FILTER,
    Catalog,
    Col,
    Pivot,
    TableSpec,
    ci,
    fmt_integer,
    fmt_pvalue,
    number,
    stub,
)

#: Seed 004 Table 2's names of the regression's terms, in its order (the constant last).
_TERMS = (
    ("reliability", "Human IRR (split-half reliability)"),
    ("dataset_size", "Dataset size"),
    ("samples_seen", "Total samples"),
    ("image_params", "Image params"),
    ("text_params", "Text params"),
    ("const", "Constant"),
)
_TERM_LABEL = " ".join(f"WHEN '{term}' THEN '{label}'" for term, label in _TERMS)
_TERM_ORDER = " ".join(f"WHEN '{term}' THEN {i}" for i, (term, _) in enumerate(_TERMS))

TABLES: tuple[TableSpec, ...] = (
    TableSpec(
        key="probe_reliability",
        title="Table 1. Human reliability per attribute: split-half (Spearman–Brown) and Krippendorff's α",
        sql="""SELECT attribute, estimate, split_low, split_high, alpha_interval, alpha_ordinal, n_raters, n
           FROM result_probe_reliability ORDER BY estimate DESC NULLS LAST""",
        columns=(
            stub("attribute", "Attribute"),
            Col("estimate", "Split-half (SB)", number(3)),
            Col("split_low", "Splits 2.5–97.5%", ci(3, False), args=("split_high",)),
            Col("alpha_interval", "α interval", number(3)),
            Col("alpha_ordinal", "α ordinal", number(3)),
            Col("n_raters", "Raters", fmt_integer),
            Col("n", "Stimuli", fmt_integer),
        ),
        notes=(
            "Split-half (SB): the raters split at random into two halves, the correlation of the halves' "
            "mean ratings over the stimuli corrected by Spearman–Brown, averaged over the splits. Splits "
            "2.5–97.5%: the spread of the random splits (their 2.5th and 97.5th percentiles), not a "
            "confidence interval. α: Krippendorff's α, interval and ordinal metrics.",
        ),
        notes_sql="""SELECT max(n_splits) || ' random splits per attribute.' FROM result_probe_reliability
                     WHERE n_splits IS NOT NULL HAVING count(*) > 0""",
        requires=("result_probe_reliability",),
    ),
    TableSpec(
        key="probe_similarity",
        title="Table 2. Model–human similarity ρ per attribute (seed 004 Eq. 4; per model, the values behind its Fig. 1)",
        sql=f"""SELECT attribute, model_id, estimate, p_adj,
                   avg(estimate) OVER (PARTITION BY attribute) AS mean_rho
            FROM result_probe_similarity WHERE {MODELS_FILTER} ORDER BY mean_rho DESC, attribute, model_id""",
        columns=(stub("attribute", "Attribute"),),
        pivot=Pivot(on="model_id", value="estimate", fmt=number(2), p="p_adj"),
        notes=(
            "Spearman ρ between the model's scores and the human means over the stimuli; BH over attributes "
            "per model. Seed 004's Table 1 summarises these values per dataset size (mean, SD, maximum, "
            "Cohen's d between sizes), which this report does not reproduce.",
            EMPHASIS_LEGEND,
        ),
        notes_sql=f"""SELECT 'n: ' || min(n) || CASE WHEN min(n) < max(n) THEN '–' || max(n) ELSE '' END
                        || ' stimuli per correlation.' FROM result_probe_similarity WHERE {MODELS_FILTER}
                     HAVING count(*) > 0""",
        requires=("result_probe_similarity",),
    ),
    TableSpec(
        key="probe_reliability_similarity",
        title="Table 3. Reliability predicts model–human similarity (seed 004 Fig. 3–4)",
        sql="""SELECT level, name, estimate, ci_low, ci_high, p, n, test
           FROM result_probe_reliability_similarity ORDER BY level DESC, name""",
        columns=(
            stub("level", "Level"),
            stub("name", "Model / family"),
            Col("estimate", "Correlation", number(2), p="p"),
            Col("ci_low", CI_LABEL, ci(2), args=("ci_high",)),
            Col("p", "p", fmt_pvalue),
            Col("n", "Attributes", fmt_integer),
            Col("test", "Method", align="left"),
        ),
        notes=(
            "Correlation across the attributes between the human split-half reliability (Table 1) and the "
            "model–human similarity ρ (Table 2); family: the mean similarity of the family's models. "
            "Fisher z interval; p unadjusted.",
            EMPHASIS_LEGEND,
        ),
        requires=("result_probe_reliability_similarity",),
    ),
    TableSpec(
        key="probe_structure",
        title="Table 4. Structure of impressions: model vs human correlation matrices",
        sql=f"""SELECT model_id, estimate, adjusted_rand, n_attributes, n_clusters FROM result_probe_structure
            WHERE {MODELS_FILTER} ORDER BY estimate DESC""",
        columns=(
            stub("model_id", "Model"),
            Col("estimate", "Normalised Frobenius", number(3)),
            Col("adjusted_rand", "ARI of Ward clusters", number(2)),
            Col("n_attributes", "Attributes", fmt_integer),
            Col("n_clusters", "Clusters", fmt_integer),
        ),
        notes=(
            "Normalised Frobenius inner product of the model's and the humans' attribute × attribute "
            "correlation matrices (1: the same up to scale); ARI: adjusted Rand index of their Ward "
            "clusterings (1 − ρ distance) into the stated number of clusters. Descriptive: no test.",
        ),
        requires=("result_probe_structure",),
    ),
    TableSpec(
        key="probe_structure_anova",
        title="Table 4b. Structure similarity across dataset sizes: one-way ANOVA (seed 004, F(2) = 15.71)",
        sql="SELECT test, statistic, df, df_resid, p, n FROM result_probe_structure_anova",
        columns=(
            stub("test", "Test"),
            Col("statistic", "F", number(2), p="p"),
            Col("df", "df", fmt_integer),
            Col("df_resid", "df residual", fmt_integer),
            Col("p", "p", fmt_pvalue),
            Col("n", "Models", fmt_integer),
        ),
        notes=(
            "Table 4's normalised Frobenius product compared across the models' training-set sizes "
            "(sizes with at least two models); p unadjusted.",
            EMPHASIS_LEGEND,
        ),
        requires=("result_probe_structure_anova",),
        optional=True,  # computed only where two dataset sizes each have two models
    ),
    TableSpec(
        key="probe_scale_regression",
        title="Table 5. Similarity regressed on reliability and scale (seed 004 Table 2)",
        sql=f"""SELECT CASE term {_TERM_LABEL} ELSE term END AS term, estimate, ci_low, ci_high, statistic, p
            FROM result_probe_scale_regression ORDER BY CASE term {_TERM_ORDER} ELSE 99 END, term""",
        columns=(
            stub("term", "Term"),
            Col("estimate", "Coef", number(4), p="p"),
            Col("ci_low", CI_LABEL, ci(4), args=("ci_high",)),
            Col("statistic", "t", number(3)),
            Col("p", "p", fmt_pvalue),
        ),
        notes=(
            "OLS of each model × attribute similarity ρ (N rows) on the terms; t tests and t intervals, "
            "p unadjusted. Human IRR: the split-half reliability of Table 1.",
        ),
        notes_sql="""SELECT 'Adj. R² = ' || printf('%.3f', max(adj_r2)) || ', F = ' || printf('%.1f', max(f_statistic))
                        || ', N = ' || max(n) || ', residual df = ' || max(df_resid)::INT || '; predictors outside '
                        || '(0, 1) divided by their maximum.' FROM result_probe_scale_regression""",
        requires=("result_probe_scale_regression",),
    ),
    TableSpec(
        key="probe_baselines",
        title="Table 6. Similarity beside its baselines: random-weight twin, image statistics alone, net of them",
        sql=f"""SELECT model_id, attribute, similarity, similarity_low, similarity_high, random_similarity,
                   random_low, random_high, pixels_estimate, pixels_low, pixels_high, pixels_r2,
                   partial_estimate, partial_low, partial_high, partial_p_adj, n
            FROM result_probe_baselines WHERE {MODELS_FILTER} ORDER BY model_id, attribute""",
        columns=(
            stub("attribute", "Attribute"),
            Col("similarity", "ρ model", number(2)),
            Col("similarity_low", CI_LABEL, ci(2), args=("similarity_high",)),
            Col("random_similarity", "ρ random twin", number(2)),
            Col("random_low", CI_LABEL, ci(2), args=("random_high",)),
            Col("pixels_estimate", "ρ image statistics", number(2)),
            Col("pixels_low", CI_LABEL, ci(2), args=("pixels_high",)),
            Col("pixels_r2", "CV R²", number(2)),
            Col("partial_estimate", "ρ net of image statistics", number(2), p="partial_p_adj"),
            Col("partial_low", CI_LABEL, ci(2), args=("partial_high",)),
            Col("n", "Stimuli", fmt_integer),
        ),
        group="model_id",
        notes=(
            "ρ model: Spearman ρ of model scores and human means (Eq. 4). ρ random twin: the same for the "
            "model's architecture with random weights (settings.random_init; blank without a twin). "
            "ρ image statistics: out-of-fold Spearman ρ between the human means and their k-fold "
            "cross-validated ridge prediction from the image statistics (tone, colour, sharpness, framing; "
            "whole image and face region), with its out-of-fold R². ρ net of image statistics: partial "
            "Spearman ρ of model scores and human means given the image statistics, t test with BH over "
            "attributes per model. Intervals: Fisher z with the Bonett–Wright standard error.",
            EMPHASIS_LEGEND,
        ),
        notes_sql="""SELECT max(folds) || ' folds over images, ridge penalty ' || printf('%g', max(ridge))
                        || ' on the standardised statistics, ' || max(n_measures) || ' varying statistics.'
                     FROM result_probe_baselines WHERE folds IS NOT NULL HAVING count(*) > 0""",
        requires=("result_probe_baselines",),
    ),
    TableSpec(
        key="probe_twin",
        title="Table 7. Each model against its random twin: which attributes the trained weights capture",
        sql=f"""SELECT model_id, attribute, similarity, random_similarity, twin_difference, twin_low, twin_high,
                   twin_p_adj, twin_partial_difference, twin_partial_low, twin_partial_high,
                   twin_partial_p_adj, verdict, twin_n
            FROM result_probe_baselines WHERE verdict IS NOT NULL AND {MODELS_FILTER}
            ORDER BY model_id, twin_difference DESC NULLS LAST, attribute""",
        columns=(
            stub("attribute", "Attribute"),
            Col("similarity", "ρ model", number(2)),
            Col("random_similarity", "ρ twin", number(2)),
            Col("twin_difference", "ρ − twin", number(2), p="twin_p_adj"),
            Col("twin_low", CI_LABEL, ci(2), args=("twin_high",)),
            Col("twin_partial_difference", "partial ρ − twin", number(2), p="twin_partial_p_adj"),
            Col("twin_partial_low", CI_LABEL, ci(2), args=("twin_partial_high",)),
            Col("verdict", "Verdict", align="left"),
            Col("twin_n", "Faces", fmt_integer),
        ),
        group="model_id",
        notes=(
            "A similarity is the model's own only where it exceeds what the same architecture reaches "
            "with random weights, through the same preprocessing on the same faces: the null that counts. "
            "ρ − twin: the model's Spearman ρ with the human means minus its random-weight twin's, on the "
            "same faces; partial ρ − twin: the same for the partial ρ net of the image statistics. "
            "Intervals and p: face-level paired bootstrap (faces resampled, both correlations recomputed; "
            "percentile interval, p from the share of replicates beyond 0), BH over attributes per model. "
            "Verdict: captured (ρ and, with image statistics, partial ρ above the twin's), image statistics "
            "only (ρ above the twin's, partial ρ not), as random twin, below random twin.",
            EMPHASIS_LEGEND,
        ),
        notes_sql="""SELECT max(twin_resamples) || ' bootstrap replicates of the faces.'
                     FROM result_probe_baselines WHERE twin_resamples IS NOT NULL HAVING count(*) > 0""",
        requires=("result_probe_baselines",),
        optional=True,  # only models with a random twin ([probe] random_twins = true for CLIP models)
    ),
)

CATALOG = Catalog(document="probe.qmd", tables=TABLES, notation=EMPHASIS_LEGEND_MD)
