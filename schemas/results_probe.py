"""Result tables of human impressions vs model probes (seed 004): ``result_probe_<name>``, from
the statistics in ``designs/probe/stats.py``."""

from __future__ import annotations

import pandera.polars as pa
import polars as pl

from cueshift.schemas._result_base import ResultModel, count, nullable, one_of, pvalue

CORRELATIONS = ("pearson", "spearman")


class ReliabilitySchema(ResultModel):
    """``result_probe_reliability``: per attribute, split-half (Spearman–Brown) reliability and
    Krippendorff's α, or the published reliability (``source = 'published'``, the split-half
    columns absent or null)."""

    attribute: str
    estimate: float = nullable(le=1.0)
    source: str = one_of("split-half", "published")
    raw_r: float | None = nullable(ge=-1.0, le=1.0)
    split_low: float | None = nullable(le=1.0)
    split_high: float | None = nullable(le=1.0)
    n_raters: pl.Int64 | None = count(nullable=True)
    n_splits: pl.Int64 | None = count(nullable=True)
    alpha_interval: float | None = nullable(le=1.0)
    alpha_ordinal: float | None = nullable(le=1.0)
    n: pl.Int64 | None = count(nullable=True)


class _Correlation(ResultModel):
    """A correlation with its interval, p-value and number of pairs."""

    estimate: float = nullable(ge=-1.0, le=1.0)
    ci_low: float = nullable(ge=-1.0, le=1.0)
    ci_high: float = nullable(ge=-1.0, le=1.0)
    p: float = pvalue()
    n: pl.Int64 = count()


class SimilaritySchema(_Correlation):
    """``result_probe_similarity``: Spearman ρ of model scores and human means per model ×
    attribute, BH over attributes per model (Eq. 4)."""

    model_id: str
    attribute: str
    p_adj: float = pvalue()
    test: str = one_of("spearman")


class ReliabilitySimilaritySchema(_Correlation):
    """``result_probe_reliability_similarity``: correlation of reliability and similarity across
    attributes, per model and per model family (Fig. 3/4)."""

    level: str = one_of("model", "family")
    name: str
    test: str = one_of(*CORRELATIONS)


class CorrelationsSchema(ResultModel):
    """``result_probe_correlations``: attribute × attribute Spearman matrices (Eq. 6)."""

    source: str
    attribute_a: str
    attribute_b: str
    estimate: float = nullable(ge=-1.0 - 1e-12, le=1.0 + 1e-12)


class ClustersSchema(ResultModel):
    """``result_probe_clusters``: Ward cluster and dendrogram position of each attribute (Fig. 5)."""

    source: str
    attribute: str
    cluster: pl.Int64 = pa.Field(ge=1)
    leaf_order: pl.Int64 = count()


class StructureSchema(ResultModel):
    """``result_probe_structure``: normalised Frobenius product with the human matrix and the
    adjusted Rand index of the clusters, per model."""

    model_id: str
    estimate: float = nullable(ge=-1.0 - 1e-12, le=1.0 + 1e-12)
    adjusted_rand: float = nullable(le=1.0 + 1e-12)
    n_attributes: pl.Int64 = count()
    n_clusters: pl.Int64 = count()
    off_diagonal: bool


class StructureAnovaSchema(ResultModel):
    """``result_probe_structure_anova``: one-way ANOVA of the Frobenius similarity across
    dataset sizes."""

    test: str = one_of("anova-F")
    statistic: float = nullable(ge=0.0)
    df: float = pa.Field(ge=0.0)
    df_resid: float = pa.Field(ge=0.0)
    p: float = pvalue()
    n: pl.Int64 = count()


class ScaleRegressionSchema(ResultModel):
    """``result_probe_scale_regression``: OLS of similarity on reliability and scale, one row
    per term with the fit's statistics repeated (Table 2); ``cluster_*``: the same fit's
    small-sample cluster-robust (by model) inference over ``n_clusters`` models: CR2 standard
    error, Satterthwaite df, t interval and p with those df (null where not defined, and then
    ``cluster_reason`` says why)."""

    term: str
    estimate: float = nullable()
    se: float = nullable(ge=0.0)
    ci_low: float = nullable()
    ci_high: float = nullable()
    statistic: float = nullable()
    p: float = pvalue()
    adj_r2: float = nullable(le=1.0)
    f_statistic: float = nullable(ge=0.0)
    f_p: float = pvalue()
    n: pl.Int64 = count()
    df_model: float = pa.Field(ge=0.0)
    df_resid: float = pa.Field(ge=0.0)
    test: str = one_of("ols-t")
    cluster_se: float | None = nullable(ge=0.0)
    cluster_df: float | None = nullable(gt=0.0)
    cluster_ci_low: float | None = nullable()
    cluster_ci_high: float | None = nullable()
    cluster_p: float | None = pvalue()
    n_clusters: pl.Int64 | None = count(nullable=True)
    cluster_reason: str | None = nullable()


class SizeSummarySchema(ResultModel):
    """``result_probe_size_summary``: per attribute × dataset size, the mean (``estimate``), sample
    SD (null with one model) and maximum of the models' similarity, over ``n`` models (Table 1)."""

    attribute: str
    dataset_size: float = pa.Field(gt=0.0)
    estimate: float = nullable(ge=-1.0, le=1.0)
    sd: float | None = nullable(ge=0.0)
    max: float = nullable(ge=-1.0, le=1.0)
    n: pl.Int64 = count()


class SizeEffectSchema(ResultModel):
    """``result_probe_size_effect``: per attribute and two dataset sizes (``size_a`` > ``size_b``,
    each with two models or more), Cohen's d of their similarity (pooled SD) and Student's t test
    (Table 1)."""

    attribute: str
    size_a: float = pa.Field(gt=0.0)
    size_b: float = pa.Field(gt=0.0)
    estimate: float | None = nullable()
    statistic: float | None = nullable()
    df: float = pa.Field(ge=0.0)
    p: float | None = pvalue()
    n_a: pl.Int64 = count()
    n_b: pl.Int64 = count()
    test: str = one_of("student-t")


_R = {"ge": -1.0, "le": 1.0}
_D = {"ge": -2.0, "le": 2.0}  # a difference of two correlations
#: ``result_probe_baselines.verdict`` (``designs/probe/twin_difference.py`` ``VERDICTS``).
TWIN_VERDICTS = ("captured", "image statistics only", "as random twin", "below random twin")


class BaselinesSchema(ResultModel):
    """``result_probe_baselines``: per model × attribute, the similarity (Eq. 4) beside its
    baselines: the random-weight twin's similarity (``random_*``; null without a twin), the
    out-of-fold Spearman ρ and R² of a k-fold ridge regression of the human means on the image
    statistics (``pixels_*``), and the partial Spearman ρ of model scores and human means given
    the image statistics (``partial_*``, BH over attributes per model); the pixel columns null
    without image statistics. ``n``: stimuli with every statistic.

    Against the random twin (null without one; ``designs/probe/twin_difference.py``), over the
    ``twin_n`` faces model, twin and humans share: ``twin_difference`` = ρ(model) − ρ(twin) and
    ``twin_partial_difference`` = partial ρ(model) − partial ρ(twin) (null without statistics),
    each with the percentile interval and p of a face-level paired bootstrap of
    ``twin_resamples`` replicates, BH over attributes per model (``*_p_adj``), and the
    ``verdict``: *captured* (ρ above the twin's and, with statistics, partial ρ too), *image
    statistics only*, *as random twin* or *below random twin*."""

    model_id: str
    attribute: str
    n: pl.Int64 = count()
    similarity: float | None = nullable(**_R)
    similarity_low: float | None = nullable(**_R)
    similarity_high: float | None = nullable(**_R)
    random_twin: str | None = nullable()
    random_similarity: float | None = nullable(**_R)
    random_low: float | None = nullable(**_R)
    random_high: float | None = nullable(**_R)
    pixels_estimate: float | None = nullable(**_R)
    pixels_low: float | None = nullable(**_R)
    pixels_high: float | None = nullable(**_R)
    pixels_p: float | None = pvalue()
    pixels_r2: float | None = nullable(le=1.0)
    partial_estimate: float | None = nullable(**_R)
    partial_low: float | None = nullable(**_R)
    partial_high: float | None = nullable(**_R)
    partial_p: float | None = pvalue()
    partial_p_adj: float | None = pvalue()
    n_measures: pl.Int64 | None = count(nullable=True)
    folds: pl.Int64 | None = count(nullable=True)
    ridge: float | None = nullable(ge=0.0)
    twin_n: pl.Int64 | None = count(nullable=True)
    twin_difference: float | None = nullable(**_D)
    twin_low: float | None = nullable(**_D)
    twin_high: float | None = nullable(**_D)
    twin_p: float | None = pvalue()
    twin_partial_difference: float | None = nullable(**_D)
    twin_partial_low: float | None = nullable(**_D)
    twin_partial_high: float | None = nullable(**_D)
    twin_partial_p: float | None = pvalue()
    twin_resamples: pl.Int64 | None = count(nullable=True)
    twin_p_adj: float | None = pvalue()
    twin_partial_p_adj: float | None = pvalue()
    verdict: str | None = pa.Field(nullable=True, isin=list(TWIN_VERDICTS))


#: The probe design's result tables by name (the table is ``result_probe_<name>``).
PROBE_RESULTS: dict[str, type[ResultModel]] = {
    "reliability": ReliabilitySchema,
    "similarity": SimilaritySchema,
    "reliability_similarity": ReliabilitySimilaritySchema,
    "correlations": CorrelationsSchema,
    "clusters": ClustersSchema,
    "structure": StructureSchema,
    "structure_anova": StructureAnovaSchema,
    "scale_regression": ScaleRegressionSchema,
    "size_summary": SizeSummarySchema,
    "size_effect": SizeEffectSchema,
    "baselines": BaselinesSchema,
}

#: The stored result tables (``result_probe_<name>``): the design's ``result_schemas``.
RESULT_TABLES: dict[str, type[ResultModel]] = {
    f"probe_{name}": model for name, model in PROBE_RESULTS.items()
}
