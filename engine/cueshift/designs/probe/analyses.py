"""The analyses of the probe design (seed 004), declared in :data:`DECLARED` (suite ``probe``).

=============================  ============================================================
``result_probe_reliability``   per attribute: split-half (Spearman–Brown) and Krippendorff α,
                               or the published reliability
``…_similarity``               per model × attribute: Spearman ρ(model scores, human means)
``…_reliability_similarity``   per model / family: correlation of reliability and similarity
``…_correlations``             attribute × attribute Spearman matrices (humans, each model)
``…_clusters``                 Ward cluster and dendrogram order of each attribute per source
``…_structure``                per model: normalised Frobenius product with the human matrix,
                               adjusted Rand index of the Ward clusters
``…_structure_anova``          one-way ANOVA of the Frobenius similarity across dataset sizes
``…_scale_regression``         OLS of similarity on reliability and scale (Table 2), with
                               CR2 + Satterthwaite df (by model) inference
``…_size_summary``             per attribute × dataset size: mean, SD, max of the similarity
``…_size_effect``              per attribute × two dataset sizes: Cohen's d, Student t (Table 1)
``…_baselines``                per model × attribute: similarity beside its random-weight twin's,
                               image statistics alone (cross-validated ridge) and the
                               similarity net of the image statistics (partial Spearman); the
                               differences from the twin (paired face bootstrap) and a verdict
=============================  ============================================================
"""

from __future__ import annotations

import polars as pl

from cueshift.designs.probe import stats as pst
from cueshift.designs.probe.baseline_table import baseline_table
from cueshift.designs.probe.dataset_size import size_effects, size_summary
from cueshift.designs.probe.inputs import Inputs
from cueshift.designs.probe.structure import structure_anova
from cueshift.stats import AnalysisContext, Declarations

SUITE = "probe"

Context = AnalysisContext[Inputs]

#: The design's analyses, in the order they run and their tables and manifest rows are listed.
DECLARED = Declarations(SUITE)


@DECLARED(
    "probe_reliability",
    description="Reliability of the human impressions per attribute (split-half, Krippendorff, published)",
    source="rating (human raters), [probe] reliability",
    grouping="attribute x source",
    statistic="Spearman-Brown corrected split-half r over random rater splits; Krippendorff's alpha",
    family="none",
)
def _reliability(ctx: Context) -> pl.DataFrame | None:
    reliability = ctx.inputs.reliability
    return reliability if reliability.height else None


@DECLARED(
    "probe_similarity",
    description="Model-human similarity of impressions per model x attribute (004 Eq. 4)",
    source="phi (base faces), rating, human_rating_mean",
    grouping="model x attribute",
    statistic="Spearman rho of model scores and human means, Fisher-z interval",
    family="model (BH over attributes)",
)
def _similarity(ctx: Context) -> pl.DataFrame:
    return ctx.inputs.similarity


@DECLARED(
    "probe_reliability_similarity",
    description="Link of human reliability and model-human similarity, per model and family",
    source="result_probe_reliability, result_probe_similarity",
    grouping="level (model, family, all) x name",
    statistic="[probe] irr_correlation across attributes, with interval and test",
    family="none",
)
def _reliability_similarity(ctx: Context) -> pl.DataFrame | None:
    inputs = ctx.inputs
    if inputs.used_reliability.height == 0:
        return None
    registry = inputs.registry
    families = dict(zip(registry["model_id"], registry["family"], strict=True)) if registry.height else None
    config = inputs.config
    link = pst.reliability_similarity(
        inputs.similarity,
        inputs.used_reliability,
        method=config.irr_correlation,
        confidence=inputs.resampling.confidence_level,
        families=families,
    )
    return link


@DECLARED(
    "probe_correlations",
    description="Attribute x attribute correlation matrices of the humans and of each model",
    source="rating, human_rating_mean, phi",
    grouping="source x attribute pair",
    statistic="Spearman rho across stimuli",
    family="none",
)
def _correlations(ctx: Context) -> pl.DataFrame | None:
    correlations, _, structure = ctx.inputs.structure
    return correlations if structure.height else None


@DECLARED(
    "probe_clusters",
    description="Ward clusters of the attributes and their dendrogram order, per source (004 Fig. 5)",
    source="result_probe_correlations",
    grouping="source x attribute",
    statistic="Ward linkage on 1 - rho, [probe] n_clusters clusters",
    family="none",
)
def _clusters(ctx: Context) -> pl.DataFrame | None:
    _, clusters, structure = ctx.inputs.structure
    return clusters if structure.height else None


@DECLARED(
    "probe_structure",
    description="Similarity of each model's impression structure with the humans'",
    source="result_probe_correlations, result_probe_clusters",
    grouping="model",
    statistic="normalised Frobenius inner product; adjusted Rand index of the clusters",
    family="none",
)
def _structure(ctx: Context) -> pl.DataFrame | None:
    structure = ctx.inputs.structure[2]
    return structure if structure.height else None


@DECLARED(
    "probe_structure_anova",
    description="Structure similarity across training-set sizes (004: F(2) = 15.71)",
    source="result_probe_structure, [probe] registry",
    grouping="one row",
    statistic="one-way ANOVA F",
    family="none",
)
def _structure_anova(ctx: Context) -> pl.DataFrame | None:
    structure = ctx.inputs.structure[2]
    if structure.height == 0:
        return None
    anova = structure_anova(structure, ctx.inputs.registry)
    return anova if anova.height else None


@DECLARED(
    "probe_scale_regression",
    description="Similarity regressed on reliability and model scale (004 Table 2)",
    source="result_probe_similarity, result_probe_reliability, [probe] registry",
    grouping="term",
    statistic="OLS estimate, t test; by model: CR2 SE, Satterthwaite-df t test",
    family="none",
)
def _scale_regression(ctx: Context) -> pl.DataFrame | None:
    inputs = ctx.inputs
    if inputs.registry.height == 0 or inputs.used_reliability.height == 0:
        return None
    data = (
        inputs.similarity.select("model_id", "attribute", pl.col("estimate").alias("similarity"))
        .join(
            inputs.used_reliability.select("attribute", pl.col("estimate").alias("reliability")),
            on="attribute",
        )
        .join(inputs.registry, on="model_id", how="inner")
    )
    regression = pst.scale_regression(
        data, inputs.config.ols_predictors, confidence=inputs.resampling.confidence_level
    )
    return regression if regression.height else None


@DECLARED(
    "probe_size_summary",
    description="Model-human similarity per attribute x dataset size: mean, SD, maximum (004 Table 1)",
    source="result_probe_similarity, [probe] registry",
    grouping="attribute x dataset size",
    statistic="mean, sample SD and maximum over the size's models",
    family="none",
)
def _size_summary(ctx: Context) -> pl.DataFrame | None:
    summary = size_summary(ctx.inputs.similarity, ctx.inputs.registry)
    return summary if summary.height else None


@DECLARED(
    "probe_size_effect",
    description="Similarity between two dataset sizes per attribute: Cohen's d (004 Table 1)",
    source="result_probe_similarity, [probe] registry",
    grouping="attribute x pair of dataset sizes (each with two models or more)",
    statistic="Cohen's d (pooled SD); Student's two-sample t test",
    family="none",
)
def _size_effect(ctx: Context) -> pl.DataFrame | None:
    effects = size_effects(ctx.inputs.similarity, ctx.inputs.registry)
    return effects if effects.height else None


@DECLARED(
    "probe_baselines",
    description="Similarity beside its baselines: random-weight twin, image statistics alone, net of them",
    source="result_probe_similarity, image statistics of the base faces, random-init twins",
    grouping="model x attribute",
    statistic="out-of-fold Spearman rho of k-fold ridge; partial Spearman rho; Fisher-z intervals; "
    "rho and partial rho minus the twin's, face-level paired bootstrap (percentile interval, p)",
    family="model (BH over attributes: partial rho; difference from twin; partial difference)",
)
def _baselines(ctx: Context) -> pl.DataFrame | None:
    inputs = ctx.inputs
    if inputs.pixels is None and not inputs.twins:
        return None
    config = inputs.config
    return baseline_table(
        inputs.scores,
        inputs.means,
        inputs.similarity,
        pixels=inputs.pixels,
        twins=inputs.twins,
        folds=config.baseline_folds,
        ridge=config.baseline_ridge,
        resampling=inputs.resampling,
        twin_resamples=config.twin_resamples,
    )
