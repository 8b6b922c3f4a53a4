"""Model–human similarity by pretraining dataset size (seed 004 Table 1): per attribute, the mean,
SD and maximum of the models' similarity at each size, and Cohen's d between every two sizes.

Inputs: ``result_probe_similarity`` (``model_id, attribute, estimate``) and the ``[probe] registry``
(``model_id, dataset_size``). Models without a dataset size are left out.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
from scipy import stats


def _by_size(similarity: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    if similarity.height == 0 or registry.height == 0:
        return pl.DataFrame()
    return (
        similarity.select("model_id", "attribute", "estimate")
        .join(registry.select("model_id", "dataset_size"), on="model_id")
        .drop_nulls(["dataset_size", "estimate"])
        .sort(["attribute", "dataset_size", "model_id"])  # a fixed order: the same sums, the same bits
    )


def size_summary(similarity: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    """Per attribute × dataset size: ``estimate`` (the mean similarity of the size's models), ``sd``
    (their sample SD, null with one model), ``max`` and ``n`` (models); empty without sizes."""
    joined = _by_size(similarity, registry)
    if joined.height == 0:
        return pl.DataFrame()
    return (
        joined.group_by(["attribute", "dataset_size"], maintain_order=True)
        .agg(
            pl.col("estimate").mean(),
            pl.col("estimate").std(ddof=1).alias("sd"),
            pl.col("estimate").max().alias("max"),
            pl.len().cast(pl.Int64).alias("n"),
        )
        .sort(["attribute", "dataset_size"], descending=[False, True])
    )


def size_effects(similarity: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    r"""Per attribute and every two dataset sizes with at least two models each (larger first):
    Cohen's :math:`d = (\bar s_a - \bar s_b) / s_p` with the pooled SD :math:`s_p`, and Student's
    two-sample t test of the same difference (``statistic``, ``df``, ``p``, unadjusted); ``n_a``,
    ``n_b``: the models at each size. Empty when fewer than two sizes have two models."""
    joined = _by_size(similarity, registry)
    if joined.height == 0:
        return pl.DataFrame()
    counts = joined.group_by("dataset_size").agg(pl.col("model_id").n_unique())
    sizes = sorted(counts.filter(pl.col("model_id") >= 2)["dataset_size"].to_list(), reverse=True)
    rows = []
    for (attribute,), part in joined.group_by("attribute", maintain_order=True):
        for a, b in itertools.combinations(sizes, 2):
            x = part.filter(pl.col("dataset_size") == a)["estimate"].to_numpy()
            y = part.filter(pl.col("dataset_size") == b)["estimate"].to_numpy()
            if x.size < 2 or y.size < 2:
                continue
            df = x.size + y.size - 2
            pooled = np.sqrt(((x.size - 1) * x.var(ddof=1) + (y.size - 1) * y.var(ddof=1)) / df)
            test = stats.ttest_ind(x, y, equal_var=True)
            rows.append(
                {
                    "attribute": attribute,
                    "size_a": a,
                    "size_b": b,
                    "estimate": float((x.mean() - y.mean()) / pooled) if pooled > 0 else None,
                    "statistic": float(test.statistic) if pooled > 0 else None,
                    "df": float(df),
                    "p": float(test.pvalue) if pooled > 0 else None,
                    "n_a": x.size,
                    "n_b": y.size,
                }
            )
    if not rows:
        return pl.DataFrame()
    schema = {"attribute": pl.String, "size_a": pl.Float64, "size_b": pl.Float64, "estimate": pl.Float64}
    schema |= {"statistic": pl.Float64, "df": pl.Float64, "p": pl.Float64, "n_a": pl.Int64, "n_b": pl.Int64}
    return pl.DataFrame(rows, schema=schema, orient="row").with_columns(pl.lit("student-t").alias("test"))
