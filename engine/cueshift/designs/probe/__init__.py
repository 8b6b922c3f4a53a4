"""Human facial impressions vs model probes (seed 004): run and analyse.

Running judges the study's base faces on the attribute scenarios (default set ``omi-34``)
with the ordinary runner — CLIP bipolar probes (``backend = "clip"``, score P(favorable) =
sigma(s m), monotone in m) or any forced-choice judge (score phi) — then stores the human
data once: long ratings (``rating``, ``rater_kind = 'human'``), published means
(``human_rating_mean``) or deterministic synthetic raters.

Analysis stores ``result_probe_<name>``:

=========================  ============================================================
``reliability``            per attribute: split-half (Spearman–Brown) and Krippendorff α
``similarity``             per model × attribute: Spearman ρ(model scores, human means)
``reliability_similarity`` per model / family: correlation of reliability and similarity
``correlations``           attribute × attribute Spearman matrices (humans, each model)
``structure``              per model: normalised Frobenius product with the human matrix,
                           adjusted Rand index of the Ward clusters
``clusters``               Ward cluster and dendrogram order of each attribute per source
``structure_anova``        one-way ANOVA of the Frobenius similarity across dataset sizes
``scale_regression``       OLS of similarity on reliability and scale (Table 2)
=========================  ============================================================
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import numpy as np
import polars as pl
from rich.console import Console
from rich.table import Table
from scipy import stats as sps

from cueshift import store
from cueshift.designs import _backends  # noqa: F401  (registers the simulated-designs backend)
from cueshift.designs._results import write_results
from cueshift.designs.probe import stats as pst
from cueshift.designs.runner import RunSummary, run_study, study_scenarios
from cueshift.errors import ConfigError, CueshiftError
from cueshift.images import load_benchmark
from cueshift.images.human_ratings import rating_rows, read_long_ratings, read_means, read_reliability
from cueshift.study.config import Study
from cueshift.study.sections import ProbeConfig
from cueshift.study.variations import VariationFilter

HUMAN_KEY = ["rater_id", "image_id", "attribute", "seed"]
SCORES_SQL = """
SELECT p.model_id, p.image_id, p.scenario_id AS attribute, p.phi, p.phi_expected
FROM phi AS p JOIN image AS i ON i.image_id = p.image_id AND i.role = 'base'
"""
HUMANS_SQL = (
    "SELECT rater_id, image_id, attribute, rating FROM rating "
    "WHERE rater_kind = 'human' AND rating IS NOT NULL"
)


def config_of(study: Study) -> ProbeConfig:
    if study.probe is None:
        raise ConfigError(f"study {study.name!r}: design 'probe' needs a [probe] section")
    return study.probe


def prepared_study(study: Study) -> Study:
    """Probes judge the base faces only: every variation is left out."""
    return study.model_copy(update={"variations": VariationFilter(whitelist={}, rules=[])})


def human_frames(
    study: Study, config: ProbeConfig, images: pl.DataFrame
) -> tuple[pl.DataFrame | None, pl.DataFrame | None]:
    """(long ratings, published means) from the configured files or the synthetic raters."""
    attributes = {s.scenario_id for s in study_scenarios(study)}
    stimuli = set(images["image_id"].to_list())
    long = means = None
    if config.human_ratings is not None:
        long = read_long_ratings(config.human_ratings, stimuli=stimuli, attributes=attributes)
    elif config.synthetic_humans is not None:
        from cueshift.images.synthetic import synthetic_human_ratings
        from cueshift.infer.backends.simulated_designs import latent_impressions
        from cueshift.study.scenarios_004 import SYNTHETIC_CLUSTERS, SYNTHETIC_CONSISTENCY

        ordered = sorted(attributes)
        z = latent_impressions(images["identity_id"].to_list(), ordered, SYNTHETIC_CLUSTERS)
        latent = pl.DataFrame(
            {
                "image_id": np.repeat(images["image_id"].to_numpy(), len(ordered)),
                "attribute": ordered * images.height,
                "latent": z.ravel(),
            }
        )
        long = synthetic_human_ratings(
            latent, config.synthetic_humans, default_consistency=SYNTHETIC_CONSISTENCY
        )
    if config.human_means is not None:
        means = read_means(config.human_means, stimuli=stimuli, attributes=attributes)
    return long, means


def run(
    study: Study,
    *,
    database: Path | None = None,
    progress: bool = True,
    console: Console | None = None,
    max_judgments: int | None = None,
) -> RunSummary:
    """Judge the base faces on every attribute not stored yet, then store the human data once."""
    config = config_of(study)
    prepared = prepared_study(study)
    summary = run_study(
        prepared, database=database, progress=progress, console=console, max_judgments=max_judgments
    )
    bench = load_benchmark(prepared.benchmark, prepared.variations, progress=False)
    images = bench.image.filter(pl.col("role") == "base").select("image_id", "identity_id")
    long, means = human_frames(study, config, images)
    con = store.open_study(summary.database)
    try:
        if long is not None:
            stored = store.query(con, "SELECT rater_id, image_id, attribute, seed FROM rating")
            rows = rating_rows(long)
            if stored.height:
                rows = rows.join(stored.with_columns(pl.col("seed").cast(pl.Int32)), on=HUMAN_KEY, how="anti")
            store.write_tables(con, {"rating": rows})
        if means is not None:
            _write_means(con, means)
    finally:
        con.close()
    return summary


def _write_means(con: duckdb.DuckDBPyConnection, means: pl.DataFrame) -> None:
    stored = store.query(con, "SELECT image_id, attribute FROM human_rating_mean")
    new = means.join(stored, on=["image_id", "attribute"], how="anti") if stored.height else means
    store.write_tables(con, {"human_rating_mean": new})


def model_scores(con: duckdb.DuckDBPyConnection, score: str) -> pl.DataFrame:
    """``model_id, image_id, attribute, score``: P(favorable) of scoring backends ('auto'), else phi."""
    raw = store.query(con, SCORES_SQL)
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


def _structure(
    scores: pl.DataFrame, means: pl.DataFrame, config: ProbeConfig
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    attributes = sorted(set(means["attribute"].unique()) & set(scores["attribute"].unique()))
    if len(attributes) < max(3, config.n_clusters):
        return pl.DataFrame(), pl.DataFrame(), pl.DataFrame()
    sources = {"(humans)": pst.attribute_correlations(means.rename({"mean": "value"}), "value", attributes)}
    for (model_id,), part in scores.group_by("model_id", maintain_order=True):
        sources[str(model_id)] = pst.attribute_correlations(
            part.rename({"score": "value"}), "value", attributes
        )
    correlation_rows, cluster_rows, structure_rows = [], [], []
    labels = {}
    for source, matrix in sources.items():
        _, flat, order = pst.ward_clusters(matrix, config.n_clusters)
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
    for source, matrix in sources.items():
        if source == "(humans)":
            continue
        structure_rows.append(
            {
                "model_id": source,
                "estimate": pst.frobenius_similarity(
                    matrix, sources["(humans)"], off_diagonal=config.frobenius_off_diagonal
                ),
                "adjusted_rand": pst.adjusted_rand_index(labels[source], labels["(humans)"]),
                "n_attributes": len(attributes),
                "n_clusters": config.n_clusters,
                "off_diagonal": config.frobenius_off_diagonal,
            }
        )
    return pl.DataFrame(correlation_rows), pl.DataFrame(cluster_rows), pl.DataFrame(structure_rows)


def _registry(config: ProbeConfig) -> pl.DataFrame:
    schema = {
        "model_id": pl.String,
        "family": pl.String,
        "dataset_size": pl.Float64,
        "samples_seen": pl.Float64,
        "image_params": pl.Float64,
        "text_params": pl.Float64,
    }
    return pl.DataFrame([m.model_dump() for m in config.registry], schema=schema)


def _structure_anova(structure: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    """One-way ANOVA of the Frobenius similarity across dataset sizes (seed 004: F(2) = 15.71)."""
    if structure.height == 0 or registry.height == 0:
        return pl.DataFrame()
    joined = structure.join(registry.select("model_id", "dataset_size"), on="model_id").drop_nulls(
        "dataset_size"
    )
    groups = [g["estimate"].to_numpy() for _, g in joined.group_by("dataset_size")]
    groups = [g for g in groups if g.size >= 2]
    if len(groups) < 2:
        return pl.DataFrame()
    result = sps.f_oneway(*groups)
    n = sum(g.size for g in groups)
    return pl.DataFrame(
        {
            "test": ["anova-F"],
            "statistic": [float(result.statistic)],
            "df": [float(len(groups) - 1)],
            "df_resid": [float(n - len(groups))],
            "p_value": [float(result.pvalue)],
            "n": [n],
        }
    )


def analyze_frames(
    scores: pl.DataFrame,
    humans: pl.DataFrame,
    published_means: pl.DataFrame,
    published_reliability: pl.DataFrame | None,
    config: ProbeConfig,
) -> dict[str, pl.DataFrame]:
    """Every probe result table from model scores, long human ratings and published means/IRR."""
    results: dict[str, pl.DataFrame] = {}
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
    reliability = pl.DataFrame()
    if humans.height:
        reliability = pst.reliability_table(
            humans, n_splits=config.n_splits, seed=config.split_seed, method=config.split_correlation
        )
    if published_reliability is not None and published_reliability.height:
        published = published_reliability.rename({"reliability": "estimate"}).with_columns(
            pl.lit("published").alias("source")
        )
        reliability = (
            pl.concat([reliability, published], how="diagonal_relaxed") if reliability.height else published
        )
    if reliability.height:
        results["reliability"] = reliability
    similarity = pst.model_human_similarity(scores, means, confidence=config.confidence)
    results["similarity"] = similarity
    registry = _registry(config)
    used = (
        reliability.filter(pl.col("source") == "split-half")
        if reliability.height and (reliability["source"] == "split-half").any()
        else reliability
    )
    if used.height:
        families = (
            dict(zip(registry["model_id"], registry["family"], strict=True)) if registry.height else None
        )
        results["reliability_similarity"] = pst.reliability_similarity(
            similarity, used, method=config.irr_correlation, confidence=config.confidence, families=families
        )
    correlations, clusters, structure = _structure(scores, means, config)
    if structure.height:
        results |= {"correlations": correlations, "clusters": clusters, "structure": structure}
        anova = _structure_anova(structure, registry)
        if anova.height:
            results["structure_anova"] = anova
    if registry.height and used.height:
        data = (
            similarity.select("model_id", "attribute", pl.col("estimate").alias("similarity"))
            .join(used.select("attribute", pl.col("estimate").alias("reliability")), on="attribute")
            .join(registry, on="model_id", how="inner")
        )
        regression = pst.scale_regression(data, config.ols_predictors, confidence=config.confidence)
        if regression.height:
            results["scale_regression"] = regression
    return results


def analyze(
    con: duckdb.DuckDBPyConnection, study: Study, *, console: Console | None = None, write: bool = True
) -> dict[str, pl.DataFrame]:
    """Compute and store every ``result_probe_*`` table, then print the headline summary."""
    config = config_of(study)
    attributes = {s.scenario_id for s in study_scenarios(study)}
    published = read_reliability(config.reliability, attributes=attributes) if config.reliability else None
    results = analyze_frames(
        model_scores(con, config.score),
        store.query(con, HUMANS_SQL),
        store.query(con, "SELECT image_id, attribute, mean FROM human_rating_mean"),
        published,
        config,
    )
    if write:
        write_results(con, "probe", results)
    print_summary(results, console or Console())
    return results


def print_summary(results: dict[str, pl.DataFrame], console: Console) -> None:
    """Mean model–human similarity per model, its correlation with reliability, structure similarity."""
    table = Table(
        title="Model-human similarity of impressions (seed 004 Eq. 4) and its link to human reliability"
    )
    for column in ("model", "mean ρ", "attributes p_BH < .05", "ρ(IRR, similarity)", "Frobenius", "ARI"):
        table.add_column(column, justify="left" if column == "model" else "right")
    sim = (
        results["similarity"]
        .group_by("model_id", maintain_order=True)
        .agg(
            pl.col("estimate").mean().alias("mean"),
            (pl.col("p_adj") < 0.05).sum().alias("sig"),
            pl.len().alias("n"),
        )
    )
    irr = results.get("reliability_similarity", pl.DataFrame({"name": [], "estimate": []}))
    structure = results.get("structure", pl.DataFrame({"model_id": [], "estimate": [], "adjusted_rand": []}))
    for row in sim.iter_rows(named=True):
        r = irr.filter(pl.col("name") == row["model_id"])["estimate"] if irr.height else pl.Series([])
        s = structure.filter(pl.col("model_id") == row["model_id"]) if structure.height else structure
        table.add_row(
            row["model_id"],
            f"{row['mean']:.3f}",
            f"{row['sig']}/{row['n']}",
            f"{r[0]:.2f}" if r.len() else "—",
            f"{s['estimate'][0]:.3f}" if s.height else "—",
            f"{s['adjusted_rand'][0]:.2f}" if s.height else "—",
        )
    console.print(table)
    console.print("Tables: " + ", ".join(f"result_probe_{name}" for name in results), soft_wrap=True)
