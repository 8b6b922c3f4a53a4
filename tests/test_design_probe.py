"""Seed 004 probe design: reliability (split-half, Krippendorff) against hand-worked and
published values, similarity/structure/scale statistics against scipy/statsmodels, and a
planted run end to end (simulated judges; a tiny random CLIP model)."""

from __future__ import annotations

import math
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm
from scipy import stats
from statsmodels.stats.multitest import multipletests

from cueshift import store
from cueshift.designs import analyze_design, run_design
from cueshift.designs.probe import stats as pst
from cueshift.images.synthetic import synthetic_human_ratings
from cueshift.infer.backends.simulated_designs import latent_impressions
from cueshift.study.config import load_study, parse_study
from cueshift.study.scenarios_004 import OMI_34, SYNTHETIC_CLUSTERS
from cueshift.study.sections import SyntheticRaters

STUDY = Path(__file__).resolve().parents[1] / "studies" / "probe-004.toml"
DEMO_CACHE = Path(__file__).resolve().parents[1] / ".cueshift-cache" / "demo"
NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", worked example C (4 coders x 12 units).
KRIPPENDORFF_EXAMPLE = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def test_krippendorff_alpha_published_example_and_hand_worked() -> None:
    published = {"nominal": 0.743, "ordinal": 0.815, "interval": 0.849, "ratio": 0.797}
    for level, value in published.items():
        assert round(pst.krippendorff_alpha(KRIPPENDORFF_EXAMPLE, level), 3) == value, level  # type: ignore[arg-type]
    # 2 raters x 3 units (1,1), (2,3), (3,3): o = [[2,0,0],[0,0,1],[0,1,2]], n_c = (2,1,3), n = 6.
    # interval: 1 - 5 * 2 / 58 = 24/29; nominal: 1 - 5 * 2 / 22 = 12/22.
    tiny = [[1, 2, 3], [1, 3, 3]]
    assert pst.krippendorff_alpha(tiny, "interval") == pytest.approx(24 / 29)
    assert pst.krippendorff_alpha(tiny, "nominal") == pytest.approx(12 / 22)
    assert pst.krippendorff_alpha([[1, 1], [1, 1]], "interval") is NAN or math.isnan(
        pst.krippendorff_alpha([[1, 1], [1, 1]], "interval")
    )


def _latent(n_images: int, attributes: list[str]) -> pl.DataFrame:
    ids = [f"face-{i:03d}" for i in range(n_images)]
    z = latent_impressions(ids, attributes, SYNTHETIC_CLUSTERS)
    return pl.DataFrame(
        {"image_id": np.repeat(ids, len(attributes)), "attribute": attributes * n_images, "latent": z.ravel()}
    )


def test_split_half_spearman_brown_matches_theory() -> None:
    assert pst.spearman_brown(0.6) == pytest.approx(0.75)
    attributes = ["happy", "trustworthy", "alert"]
    consistency = {"happy": 0.6, "trustworthy": 0.3, "alert": 0.1}
    raters = SyntheticRaters(
        n_raters=20, scale_min=-30, scale_max=30, integer=False, seed=1, consistency=consistency
    )
    long = synthetic_human_ratings(_latent(600, attributes), raters).rename(
        {"rater": "rater_id", "stimulus": "image_id"}
    )
    table = pst.reliability_table(long, n_splits=30, seed=0)
    for row in table.iter_rows(named=True):
        c = consistency[row["attribute"]]
        # half panels of 10: r = 10c/(1+9c); Spearman-Brown to 20 raters: 20c/(1+19c)
        assert row["estimate"] == pytest.approx(20 * c / (1 + 19 * c), abs=0.03), row["attribute"]
        assert row["split_low"] <= row["estimate"] <= row["split_high"]


def test_similarity_against_scipy_and_bh_per_model() -> None:
    rng = np.random.default_rng(2)
    human = pl.DataFrame(
        {
            "image_id": [f"i{j}" for j in range(50)] * 3,
            "attribute": np.repeat(["a", "b", "c"], 50),
            "mean": rng.normal(size=150),
        }
    )
    scores = pl.concat(
        [
            human.select(
                "image_id", "attribute", (pl.col("mean") * w + pl.Series(rng.normal(size=150))).alias("score")
            ).with_columns(pl.lit(m).alias("model_id"))
            for m, w in (("m1", 0.2), ("m2", 2.0))
        ]
    ).select("model_id", "image_id", "attribute", "score")
    sim = pst.model_human_similarity(scores, human)
    for row in sim.iter_rows(named=True):
        part = scores.filter(
            (pl.col("model_id") == row["model_id"]) & (pl.col("attribute") == row["attribute"])
        )
        ref = stats.spearmanr(part["score"], human.filter(pl.col("attribute") == row["attribute"])["mean"])
        assert row["estimate"] == pytest.approx(ref.statistic) and row["p_value"] == pytest.approx(ref.pvalue)
        assert row["ci_low"] < row["estimate"] < row["ci_high"]
    for _, part in sim.group_by("model_id"):
        assert part["p_adj"].to_numpy() == pytest.approx(
            multipletests(part["p_value"].to_numpy(), method="fdr_bh")[1]
        )
    assert (
        sim.filter(pl.col("model_id") == "m2")["estimate"].min()
        > sim.filter(pl.col("model_id") == "m1")["estimate"].max()
    )


def test_frobenius_ward_and_adjusted_rand() -> None:
    a, b = np.eye(2), np.array([[1.0, 0.5], [0.5, 1.0]])
    assert pst.frobenius_similarity(a, b) == pytest.approx(2 / math.sqrt(2 * 2.5))  # <A,B> = 2
    c = np.array([[1, 0.3, -0.2], [0.3, 1, 0.1], [-0.2, 0.1, 1]])
    assert pst.frobenius_similarity(c, c, off_diagonal=True) == pytest.approx(1.0)
    assert pst.frobenius_similarity(c, -c + 2 * np.eye(3), off_diagonal=True) == pytest.approx(-1.0)
    assert pst.adjusted_rand_index([0, 0, 1, 1], [0, 0, 1, 2]) == pytest.approx(4 / 7)  # hand-worked
    assert pst.adjusted_rand_index([0, 0, 1, 2], [5, 5, 7, 9]) == pytest.approx(1.0)
    # planted clusters of the synthetic impressions are recovered by Ward on the correlation matrix
    attributes = [a for a in SYNTHETIC_CLUSTERS][:6] + ["asian", "black", "hispanic", "age", "gender", "smug"]
    latent = _latent(800, attributes).rename({"latent": "value"})
    matrix = pst.attribute_correlations(latent, "value", attributes)
    _, labels, order = pst.ward_clusters(matrix, 3)
    assert pst.adjusted_rand_index(labels, [SYNTHETIC_CLUSTERS[a] for a in attributes]) == pytest.approx(1.0)
    assert sorted(order) == list(range(len(attributes)))


def test_scale_regression_matches_statsmodels_with_max_normalisation() -> None:
    rng = np.random.default_rng(9)
    n = 60
    data = pl.DataFrame(
        {
            "similarity": rng.normal(size=n),
            "reliability": rng.uniform(0.1, 0.9, n),
            "dataset_size": rng.choice([80e6, 400e6, 2.3e9], n),
        }
    )
    ours = pst.scale_regression(data, ["reliability", "dataset_size"])
    x = np.column_stack([data["reliability"], data["dataset_size"] / data["dataset_size"].max()])
    ref = sm.OLS(data["similarity"].to_numpy(), sm.add_constant(x)).fit()
    assert ours["estimate"].to_numpy() == pytest.approx(ref.params)
    assert ours["statistic"].to_numpy() == pytest.approx(ref.tvalues)
    assert ours["adj_r2"][0] == pytest.approx(ref.rsquared_adj) and ours["n"][0] == n
    assert pst.normalise_by_max([0.2, 0.5]).tolist() == [0.2, 0.5]  # inside (0, 1): unchanged


def _small_probe(tmp_path: Path) -> dict[str, Any]:
    data = tomllib.loads(STUDY.read_text())
    data["database"] = str(tmp_path / "probe.duckdb")
    data["benchmark"]["cache_dir"] = str(DEMO_CACHE)
    data["scenarios"]["only"] = [
        "trustworthy",
        "attractive",
        "happy",
        "dominant",
        "age",
        "asian",
        "black",
        "alert",
        "outdoors",
        "looks-like-you",
    ]
    data["probe"]["n_splits"] = 10
    data["models"] = [m for m in data["models"] if m["model_id"] in ("sim-80m", "sim-2b-a")]
    data["probe"]["registry"] = [
        r for r in data["probe"]["registry"] if r["model_id"] in ("sim-80m", "sim-2b-a")
    ]
    return data


def test_probe_end_to_end_recovers_planted_reliability_link(tmp_path: Path) -> None:
    assert load_study(STUDY).design == "probe" and len(OMI_34) == 34
    study = parse_study(_small_probe(tmp_path), "test")
    summary = run_design(study, progress=False)
    assert summary.n_written == 2 * 90 * 10 * 4 * 3
    assert (
        run_design(study, progress=False).n_written == 0
    )  # resume: no new judgments, humans not stored twice
    con = store.open_study(study.database_path)
    try:
        n_human = con.execute(
            "SELECT count(*) FILTER (WHERE rater_kind = 'human'), count(*) FROM rating"
        ).fetchall()
        assert n_human == [(30 * 90 * 10, 30 * 90 * 10)]
        results = analyze_design(con, study)
    finally:
        con.close()
    from cueshift.study.scenarios_004 import SYNTHETIC_CONSISTENCY

    rel = results["reliability"].with_columns(
        pl.col("attribute").replace_strict(SYNTHETIC_CONSISTENCY).alias("c")
    )
    assert stats.spearmanr(rel["estimate"], rel["c"]).statistic > 0.8  # planted consistency ordering
    sim = results["similarity"].group_by("model_id").agg(pl.col("estimate").mean())
    means = dict(sim.iter_rows())
    assert means["sim-2b-a"] > means["sim-80m"]  # planted fidelity 3 vs 1
    link = results["reliability_similarity"].filter(pl.col("level") == "model")
    assert (link["estimate"] > 0.5).all()  # models learn the consistent impressions better
    regression = results["scale_regression"]
    terms = dict(zip(regression["term"], regression["estimate"], strict=True))
    assert (
        terms["reliability"] > 0 and terms["dataset_size"] > 0 and "samples_seen" not in terms
    )  # constant: dropped
    assert set(results["structure"]["model_id"]) == {"sim-80m", "sim-2b-a"}
    from cueshift.designs.report import report_catalog
    from cueshift.report import Report, TableOutput

    catalog = report_catalog("probe")
    report = Report.open(study.database_path, None, catalog)
    try:
        for key in [t.key for t in catalog.tables]:
            assert isinstance(report.table(key), TableOutput), key
    finally:
        report.close()


@pytest.mark.timeout(180)
def test_probe_runs_on_the_tiny_clip_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = _small_probe(tmp_path)
    data["benchmark"]["size"] = 12
    data["benchmark"]["cache_dir"] = str(tmp_path / "demo")
    data["scenarios"]["only"] = ["happy", "age", "asian", "outdoors"]
    data["models"] = [{"model_id": "tiny-clip", "backend": "clip", "checkpoint": "cueshift:tiny-random-clip"}]
    data["probe"]["registry"] = []
    study = parse_study(data, "test")
    assert (
        run_design(study, progress=False).n_written == 12 * 4
    )  # deterministic, letter-free: 1 ordering, seed 0
    con = store.open_study(study.database_path)
    try:
        results = analyze_design(con, study)
    finally:
        con.close()
    assert results["similarity"].height == 4 and results["similarity"]["n"].to_list() == [12] * 4


def test_published_means_and_reliability_without_long_ratings() -> None:
    from cueshift.designs.probe import analyze_frames
    from cueshift.study.sections import ProbeConfig

    attributes = ["happy", "age", "asian", "alert"]
    latent = _latent(40, attributes)
    means = latent.select("image_id", "attribute", pl.col("latent").alias("mean"))
    rng = np.random.default_rng(0)
    noise = {
        "happy": 0.2,
        "age": 0.5,
        "asian": 1.0,
        "alert": 3.0,
    }  # the model tracks reliable attributes best
    scores = latent.select(
        pl.lit("m").alias("model_id"),
        "image_id",
        "attribute",
        (
            pl.col("latent") + pl.col("attribute").replace_strict(noise) * pl.Series(rng.normal(size=160))
        ).alias("score"),
    )
    reliability = pl.DataFrame({"attribute": attributes, "reliability": [0.95, 0.9, 0.8, 0.3]})
    humans = pl.DataFrame(
        schema={"rater_id": pl.String, "image_id": pl.String, "attribute": pl.String, "rating": pl.Float64}
    )
    config = ProbeConfig(human_means=Path("published.csv"), n_clusters=2)
    results = analyze_frames(
        scores,
        humans,
        means.with_columns(pl.lit(None, dtype=pl.Int64).alias("n_raters")),
        reliability,
        config,
    )
    assert results["reliability"]["source"].unique().to_list() == ["published"]
    link = results["reliability_similarity"].row(0, named=True)
    assert link["n"] == 4 and link["estimate"] == pytest.approx(1.0)  # similarity ranks follow reliability
