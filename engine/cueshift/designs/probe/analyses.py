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
``…_scale_regression``         OLS of similarity on reliability and scale (Table 2)
``…_baselines``                per model × attribute: similarity beside its random-weight twin's,
                               image statistics alone (cross-validated ridge) and the
                               similarity net of the image statistics (partial Spearman); the
                               differences from the twin (paired face bootstrap) and a verdict
=============================  ============================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import duckdb
import polars as pl

from cueshift import store
from cueshift.designs.probe import stats as pst
from cueshift.designs.probe.baseline_table import baseline_table
from cueshift.designs.probe.section import ProbeConfig
from cueshift.errors import CueshiftError
from cueshift.stats import AnalysisContext, Declarations, Resampling

SUITE = "probe"

SCORES_SQL = """
SELECT p.model_id, p.image_id, p.scenario_id AS attribute, p.phi, p.phi_expected
FROM phi AS p JOIN image AS i ON i.image_id = p.image_id AND i.role = 'base'
"""
HUMANS_SQL = (
    "SELECT rater_id, image_id, attribute, rating FROM rating "
    "WHERE rater_kind = 'human' AND rating IS NOT NULL"
)
MEANS_SQL = "SELECT image_id, attribute, mean FROM human_rating_mean"


def model_scores(con: duckdb.DuckDBPyConnection, score: str, models: Sequence[str] = ()) -> pl.DataFrame:
    """``model_id, image_id, attribute, score``: P(favorable) of scoring backends ('auto'), else phi.

    Raises
    ------
    CueshiftError
        No judgment of a base face is stored (of ``models``, when given).
    """
    where = f" WHERE p.model_id IN ({', '.join('?' for _ in models)})" if models else ""
    raw = store.query(con, SCORES_SQL + where, list(models) or None)
    if raw.height == 0:
        raise CueshiftError(
            "probe: no judgments of base faces in the study database (run `cueshift infer` first)"
        )
    if score == "phi":
        return raw.select("model_id", "image_id", "attribute", pl.col("phi").alias("score"))
    if score == "phi_expected":
        return raw.select("model_id", "image_id", "attribute", pl.col("phi_expected").alias("score"))
    scoring = raw.group_by("model_id").agg(pl.col("phi_expected").is_not_null().all().alias("__scores"))
    return raw.join(scoring, on="model_id").select(
        "model_id",
        "image_id",
        "attribute",
        pl.when(pl.col("__scores")).then(pl.col("phi_expected")).otherwise(pl.col("phi")).alias("score"),
    )


@dataclass(frozen=True)
class Inputs:
    """Model scores, long human ratings, published means and reliability, the ``[probe]`` settings
    and the run's resampling (:meth:`.section.ProbeConfig.resampling`: the split-half reliability's
    random splits and seed, the level of every interval; passed whole to the tables).

    Build it with :func:`probe_inputs` (which refuses a study without any human data).
    ``pixels``: ``image_id`` and the image statistics of each base face (``None``: no image
    baselines); ``twins``: trained model id -> its random-weight twin's.
    """

    scores: pl.DataFrame
    humans: pl.DataFrame
    means: pl.DataFrame
    published_reliability: pl.DataFrame | None
    config: ProbeConfig
    resampling: Resampling
    pixels: pl.DataFrame | None = None
    twins: dict[str, str] = field(default_factory=dict)

    @cached_property
    def reliability(self) -> pl.DataFrame:
        """Split-half and Krippendorff reliability of the long ratings, and the published values."""
        config = self.config
        reliability = pl.DataFrame()
        if self.humans.height:
            reliability = pst.reliability_table(self.humans, self.resampling, method=config.split_correlation)
        published = self.published_reliability
        if published is not None and published.height:
            published = published.rename({"reliability": "estimate"}).with_columns(
                pl.lit("published").alias("source")
            )
            reliability = (
                pl.concat([reliability, published], how="diagonal_relaxed")
                if reliability.height
                else published
            )
        return reliability

    @cached_property
    def used_reliability(self) -> pl.DataFrame:
        """The reliability the similarity is related to: split-half where computed, else published."""
        reliability = self.reliability
        if reliability.height and (reliability["source"] == "split-half").any():
            return reliability.filter(pl.col("source") == "split-half")
        return reliability

    @cached_property
    def similarity(self) -> pl.DataFrame:
        return pst.model_human_similarity(
            self.scores, self.means, confidence=self.resampling.confidence_level
        )

    @cached_property
    def registry(self) -> pl.DataFrame:
        """The ``[probe] registry`` of models (family and scale) as a frame."""
        schema = {
            "model_id": pl.String,
            "family": pl.String,
            "dataset_size": pl.Float64,
            "samples_seen": pl.Float64,
            "image_params": pl.Float64,
            "text_params": pl.Float64,
        }
        return pl.DataFrame([m.model_dump() for m in self.config.registry], schema=schema)

    @cached_property
    def structure(self) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
        """(correlations, clusters, structure); empty frames when too few attributes."""
        return pst.attribute_structure(
            self.scores, self.means, self.config.n_clusters, off_diagonal=self.config.frobenius_off_diagonal
        )


def probe_inputs(
    scores: pl.DataFrame,
    humans: pl.DataFrame,
    published_means: pl.DataFrame,
    published_reliability: pl.DataFrame | None,
    config: ProbeConfig,
    *,
    pixels: pl.DataFrame | None = None,
    twins: dict[str, str] | None = None,
    resampling: Resampling | None = None,
) -> Inputs:
    """The inputs of the probe analyses; human means from the long ratings, published means winning
    where both exist. ``resampling``: the run's (default: ``config.resampling()``, the study's).

    Raises
    ------
    CueshiftError
        Neither long human ratings nor published means.
    """
    means = humans.group_by(["image_id", "attribute"]).agg(pl.col("rating").mean().alias("mean"))
    if published_means.height:  # published means win where both exist
        means = pl.concat(
            [
                published_means.select("image_id", "attribute", "mean"),
                means.join(published_means, on=["image_id", "attribute"], how="anti"),
            ]
        )
    if means.height == 0:
        raise CueshiftError("probe: no human ratings or means in the study database")
    return Inputs(
        scores,
        humans,
        means,
        published_reliability,
        config,
        resampling or config.resampling(),
        pixels,
        dict(twins or {}),
    )


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
    anova = pst.structure_anova(structure, ctx.inputs.registry)
    return anova if anova.height else None


@DECLARED(
    "probe_scale_regression",
    description="Similarity regressed on reliability and model scale (004 Table 2)",
    source="result_probe_similarity, result_probe_reliability, [probe] registry",
    grouping="term",
    statistic="OLS estimate, t test",
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
