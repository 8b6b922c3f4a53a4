"""The attribute correlation structure of the probe design (seed 004 Eq. 6 and Fig. 5): per source
(the humans, each model) the attributes' Spearman matrix and Ward clusters, each model's
similarity to the humans' (normalised Frobenius product, adjusted Rand index), and the one-way
ANOVA of that similarity across training-set sizes.
"""

from __future__ import annotations

import polars as pl

from cueshift.stats import (
    adjusted_rand_index,
    attribute_correlations,
    frobenius_similarity,
    one_way_anova,
    ward_clusters,
)


def attribute_structure(
    scores: pl.DataFrame, means: pl.DataFrame, n_clusters: int, *, off_diagonal: bool = False
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    r"""Seed 004 Eq. 6 and Fig. 5: the attribute correlation structure of the humans and of each
    model, and how close each model's is to the humans'.

    Per source (``(humans)`` from ``means``, each model from ``scores``): the Spearman matrix
    of the attributes both cover (:func:`cueshift.stats.attribute_correlations`) and its Ward
    clusters (:func:`cueshift.stats.ward_clusters`). Per model: the normalised Frobenius product
    with the human matrix and the adjusted Rand index of the two partitions. Fewer attributes
    than ``max(3, n_clusters)``: three empty frames.

    Returns
    -------
    correlations, clusters, structure
        ``source, attribute_a, attribute_b, estimate``; ``source, attribute, cluster,
        leaf_order``; ``model_id, estimate, adjusted_rand, n_attributes, n_clusters, off_diagonal``.
    """
    attributes = sorted(set(means["attribute"].unique()) & set(scores["attribute"].unique()))
    if len(attributes) < max(3, n_clusters):
        return pl.DataFrame(), pl.DataFrame(), pl.DataFrame()
    sources = {"(humans)": attribute_correlations(means.rename({"mean": "value"}), "value", attributes)}
    for (model_id,), part in scores.group_by("model_id", maintain_order=True):
        sources[str(model_id)] = attribute_correlations(part.rename({"score": "value"}), "value", attributes)
    correlation_rows, cluster_rows, structure_rows = [], [], []
    labels = {}
    for source, matrix in sources.items():
        _, flat, order = ward_clusters(matrix, n_clusters)
        labels[source] = flat
        position = {leaf: rank for rank, leaf in enumerate(order)}
        cluster_rows += [
            {"source": source, "attribute": a, "cluster": int(flat[i]), "leaf_order": position[i]}
            for i, a in enumerate(attributes)
        ]
        correlation_rows += [
            {"source": source, "attribute_a": a, "attribute_b": b, "estimate": float(matrix[i, j])}
            for i, a in enumerate(attributes)
            for j, b in enumerate(attributes)
        ]
    humans = sources["(humans)"]
    for source, matrix in sources.items():
        if source == "(humans)":
            continue
        structure_rows.append(
            {
                "model_id": source,
                "estimate": frobenius_similarity(matrix, humans, off_diagonal=off_diagonal),
                "adjusted_rand": adjusted_rand_index(labels[source], labels["(humans)"]),
                "n_attributes": len(attributes),
                "n_clusters": n_clusters,
                "off_diagonal": off_diagonal,
            }
        )
    return pl.DataFrame(correlation_rows), pl.DataFrame(cluster_rows), pl.DataFrame(structure_rows)


def structure_anova(structure: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    """One-way ANOVA of the Frobenius similarity across dataset sizes (seed 004: F(2) = 15.71),
    by :func:`cueshift.stats.one_way_anova` over the sizes with at least two models; empty when
    fewer than two such sizes."""
    if structure.height == 0 or registry.height == 0:
        return pl.DataFrame()
    joined = structure.join(registry.select("model_id", "dataset_size"), on="model_id").drop_nulls(
        "dataset_size"
    )
    sizes = joined.group_by("dataset_size").len().filter(pl.col("len") >= 2)["dataset_size"]
    kept = joined.filter(pl.col("dataset_size").is_in(sizes.implode())).sort(["dataset_size", "model_id"])
    if sizes.len() < 2:
        return pl.DataFrame()
    result = one_way_anova(kept["estimate"].to_numpy(), kept["dataset_size"].to_numpy())
    return pl.DataFrame(
        {
            "test": ["anova-F"],
            "statistic": [result.statistic],
            "df": [result.df_between],
            "df_resid": [result.df_within],
            "p": [result.p_value],
            "n": [result.n],
        }
    )
