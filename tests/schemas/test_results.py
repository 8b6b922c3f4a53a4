"""Result-table schemas: every table the design statistics produce passes its schema, and a
violation is one line naming the table, the row and the field."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cueshift.designs.paired.attractiveness import attractiveness_bias, attractiveness_by_group
from cueshift.designs.paired.demographic import demographic_bias, pair_group_bias
from cueshift.designs.paired.summaries import (
    attractiveness_vs_demographic,
    bias_overlap,
    halo_table,
    significance_share,
    strongest_group,
)
from cueshift.designs.pairwise.logit_fits import bradley_terry, group_effect
from cueshift.designs.pairwise.ratings import model_human_rating_agreement, rating_bins, rating_summary
from cueshift.designs.pairwise.win_rates import cohort_preference, position_bias, stimulus_win_rates
from cueshift.designs.probe import stats as pst
from cueshift.designs.probe.baseline_table import baseline_table
from cueshift.designs.probe.dataset_size import size_effects, size_summary
from cueshift.designs.probe.structure import attribute_structure, structure_anova
from cueshift.errors import SchemaViolation
from cueshift.schemas.results import RESULT_SCHEMAS, RESULT_SCHEMAS_BY_DESIGN, validate_result
from cueshift.stats import Resampling, krippendorff_by_attribute

KEYS = {"model_id": "m", "family": "traits", "scenario_category": "c", "choice_1": "A", "choice_2": "B"}


def _paired_scores() -> pl.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for k in range(4):
        for i in range(24):
            base = 0.4 + 0.2 * (i % 2) + rng.normal(0, 0.1)
            for condition, shift in (("original", 0.0), ("filtered", 0.15 if k < 2 else 0.0)):
                rows.append(
                    {
                        **KEYS,
                        "scenario_id": f"s{k}",
                        "face_id": f"p{i}",
                        "condition": condition,
                        "gender": ["female", "male"][i % 2],
                        "age": None if i < 8 else ["young", "old"][i % 2],
                        "ethnicity": ["Black", "White", "Asian"][i % 3],
                        "s": float(np.clip(base + shift + rng.normal(0, 0.05), 0, 1)),
                    }
                )
    return pl.DataFrame(rows)


def _paired_tables() -> dict[str, pl.DataFrame]:
    scores = _paired_scores()
    bias = attractiveness_bias(scores, correction="bh")
    share = significance_share(bias, ["model_id", "test"]).with_columns(
        level=pl.lit("all"), group=pl.lit("all")
    )
    demographic, means = demographic_bias(scores, ["gender", "age", "ethnicity"])
    by_group = attractiveness_by_group(scores, ["gender"])
    return {
        "attractiveness": bias,
        "halo": halo_table(bias, ["s0", "s1"]),
        "significance_share": share,
        "demographic": demographic,
        "demographic_means": means,
        "attractiveness_by_group": by_group,
        "strongest_group": strongest_group(by_group),
        "attractiveness_vs_demographic": attractiveness_vs_demographic(demographic),
        "overlap": bias_overlap(bias, demographic),
        "race_jobs": pair_group_bias(scores, "ethnicity", {"s0": ("Black", "White")}),
    }


def _pairwise_tables() -> dict[str, pl.DataFrame]:
    rng = np.random.default_rng(1)
    images = {f"t{i}": "target" for i in range(4)} | {f"o{i}": "other" for i in range(4)}
    rows = []
    for seed in range(6):
        for a in [i for i, g in images.items() if g == "target"]:
            for b in [i for i, g in images.items() if g == "other"]:
                for left, right in ((a, b), (b, a)):
                    p_left = 0.7 if images[left] == "target" else 0.4
                    winner = None if rng.uniform() < 0.05 else (left if rng.uniform() < p_left else right)
                    rows.append(
                        {
                            "model_id": "m",
                            "scenario_id": "q",
                            "seed": seed,
                            "left_image_id": left,
                            "right_image_id": right,
                            "winner_image_id": winner,
                            "cohort": "c1",
                            "left_group": images[left],
                            "right_group": images[right],
                        }
                    )
    trials = pl.DataFrame(rows)
    ratings = pl.DataFrame(
        [
            {
                "rater_kind": kind,
                "rater_id": rater,
                "image_id": image,
                "attribute": "beauty",
                "rating": None if rng.uniform() < 0.05 else float(rng.integers(0, 11)),
                "cohort": "c1",
                "stimulus_group": group,
            }
            for kind, raters in (("human", ["h1", "h2", "h3"]), ("model", ["m"]))
            for rater in raters
            for image, group in images.items()
        ]
    )
    bins = [("low", 0.0, 4.0, "left"), ("high", 4.0, 10.0, "both")]
    humans = ratings.filter(pl.col("rater_kind") == "human")
    return {
        "cohort": cohort_preference(trials, target="target", other="other"),
        "stimulus": stimulus_win_rates(trials),
        "position": position_bias(trials),
        "group_effect": group_effect(trials, target="target", other="other"),
        "bradley_terry": bradley_terry(trials),
        "rating_summary": rating_summary(ratings),
        "rating_bins": rating_bins(ratings, bins),
        "rating_reliability": krippendorff_by_attribute(humans),
        "rating_model_human": model_human_rating_agreement(ratings),
    }


def _probe_tables() -> dict[str, pl.DataFrame]:
    rng = np.random.default_rng(2)
    attributes = ["a", "b", "c", "d", "e"]
    images = [f"i{j}" for j in range(40)]
    truth = {(i, a): rng.normal() for i in images for a in attributes}
    humans = pl.DataFrame(
        [
            {"rater_id": f"r{r}", "image_id": i, "attribute": a, "rating": truth[(i, a)] + rng.normal()}
            for r in range(6)
            for i in images
            for a in attributes
        ]
    )
    means = humans.group_by(["image_id", "attribute"]).agg(pl.col("rating").mean().alias("mean"))
    scores = pl.DataFrame(
        [
            {"model_id": m, "image_id": i, "attribute": a, "score": truth[(i, a)] * w + rng.normal()}
            for m, w in (("m1", 0.5), ("m2", 1.0), ("m3", 2.0), ("m4", 3.0))
            for i in images
            for a in attributes
        ]
    )
    reliability = pst.reliability_table(humans, Resampling(resamples=10))
    similarity = pst.model_human_similarity(scores, means)
    correlations, clusters, structure = attribute_structure(scores, means, 2)
    registry = pl.DataFrame({"model_id": ["m1", "m2", "m3", "m4"], "dataset_size": [1e8, 1e8, 2e9, 2e9]})
    data = (
        similarity.select("model_id", "attribute", pl.col("estimate").alias("similarity"))
        .join(reliability.select("attribute", pl.col("estimate").alias("reliability")), on="attribute")
        .join(registry, on="model_id")
    )
    return {
        "reliability": reliability,
        "similarity": similarity,
        "reliability_similarity": pst.reliability_similarity(
            similarity, reliability, families={"m1": "f", "m2": "f", "m3": "g", "m4": "g"}
        ),
        "correlations": correlations,
        "clusters": clusters,
        "structure": structure,
        "structure_anova": structure_anova(structure, registry),
        "scale_regression": pst.scale_regression(data, ["reliability", "dataset_size"]),
        "size_summary": size_summary(similarity, registry),
        "size_effect": size_effects(similarity, registry),
        "baselines": baseline_table(
            scores,
            means,
            similarity,
            pixels=pl.DataFrame({"image_id": images, "brightness": rng.uniform(size=40)}),
            twins={"m1": "m2"},
        ),
    }


@pytest.mark.parametrize(
    ("design", "tables"),
    [("paired", _paired_tables), ("pairwise", _pairwise_tables), ("probe", _probe_tables)],
)
def test_every_design_table_passes_its_schema(design, tables):
    frames = tables()
    assert set(frames) == set(RESULT_SCHEMAS_BY_DESIGN[design])  # every declared table is produced
    for name, frame in frames.items():
        assert frame.height > 0, name
        validate_result(f"{design}_{name}", frame)
    assert {f"{design}_{name}" for name in frames} <= set(RESULT_SCHEMAS)


def test_published_reliability_without_split_half_columns_passes():
    published = pl.DataFrame({"attribute": ["a"], "estimate": [0.8], "source": ["published"]})
    validate_result("probe_reliability", published)


def test_violations_name_table_row_and_field():
    bias = _paired_tables()["attractiveness"]
    below = bias.with_columns(
        pl.when(pl.int_range(pl.len()) == 1).then(0.0).otherwise("p_adj").alias("p_adj")
    )
    with pytest.raises(SchemaViolation, match=r"result_paired_attractiveness: row 1, field 'p_adj'"):
        validate_result("paired_attractiveness", below.with_columns(pl.col("p").clip(1e-3, None)))
    with pytest.raises(SchemaViolation, match=r"row 2, field 'p': value 1\.5"):
        validate_result(
            "paired_attractiveness",
            bias.with_columns(pl.when(pl.int_range(pl.len()) == 2).then(1.5).otherwise("p").alias("p")),
        )
    swapped = bias.with_columns(pl.col("ci_high").alias("ci_low"), pl.col("ci_low").alias("ci_high"))
    with pytest.raises(SchemaViolation, match=r"row 0, field 'ci_low'"):
        validate_result("paired_attractiveness", swapped)
    with pytest.raises(SchemaViolation, match=r"field 'n': value -1"):
        validate_result("paired_attractiveness", bias.with_columns(pl.lit(-1, dtype=pl.Int64).alias("n")))
    with pytest.raises(SchemaViolation, match=r"field 'stars' is not a column"):  # presentation is not stored
        validate_result("paired_attractiveness", bias.with_columns(pl.lit("*").alias("stars")))
    with pytest.raises(SchemaViolation, match=r"field 'correction' is missing"):
        validate_result("paired_attractiveness", bias.drop("correction"))
    with pytest.raises(SchemaViolation, match=r"field 'n'"):  # dtype
        validate_result("paired_attractiveness", bias.with_columns(pl.col("n").cast(pl.Float64)))
    with pytest.raises(SchemaViolation, match=r"result_nope: no schema"):
        validate_result("nope", bias)


def test_nan_is_stored_as_null():
    bias = _paired_tables()["attractiveness"].with_columns(pl.lit(float("nan")).alias("statistic"))
    stored = validate_result("paired_attractiveness", bias)
    assert stored["statistic"].null_count() == stored.height
