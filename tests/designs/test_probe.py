"""Seed 004 probe design: reliability (split-half, Krippendorff) against hand-worked and
published values, similarity/structure/scale statistics against scipy/statsmodels, and a
planted run end to end (simulated judges; a tiny random CLIP model)."""

from __future__ import annotations

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
from cueshift.designs import analyze_design, load_study, parse_study
from cueshift.designs.probe import stats as pst
from cueshift.designs.probe.scenarios import OMI_34
from cueshift.execution.run_options import RunOptions
from cueshift.execution.runner import run_study
from cueshift.images.synthetic_raters import synthetic_human_ratings
from cueshift.inference.stand_ins.impressions import SYNTHETIC_CLUSTERS
from cueshift.inference.stand_ins.simulated_design_latents import latent_impressions
from cueshift.stats import Resampling
from cueshift.study.sections import SyntheticRaters
from tests.scalars import real

STUDY = Path(__file__).resolve().parents[2] / "studies" / "probe-004.toml"
DEMO_CACHE = Path(__file__).resolve().parents[2] / ".cueshift-cache" / "demo"


def _latent(n_images: int, attributes: list[str]) -> pl.DataFrame:
    ids = [f"face-{i:03d}" for i in range(n_images)]
    z = latent_impressions(ids, attributes, SYNTHETIC_CLUSTERS)
    return pl.DataFrame(
        {"image_id": np.repeat(ids, len(attributes)), "attribute": attributes * n_images, "latent": z.ravel()}
    )


def test_split_half_spearman_brown_matches_theory() -> None:
    attributes = ["happy", "trustworthy", "alert"]
    consistency = {"happy": 0.6, "trustworthy": 0.3, "alert": 0.1}
    raters = SyntheticRaters(
        n_raters=20, scale_min=-30, scale_max=30, integer=False, seed=1, consistency=consistency
    )
    long = synthetic_human_ratings(_latent(600, attributes), raters).rename(
        {"rater": "rater_id", "stimulus": "image_id"}
    )
    table = pst.reliability_table(long, Resampling(resamples=30, seed=0))
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
        assert row["estimate"] == pytest.approx(ref.statistic) and row["p"] == pytest.approx(ref.pvalue)
        assert row["ci_low"] < row["estimate"] < row["ci_high"]
    for _, part in sim.group_by("model_id"):
        assert part["p_adj"].to_numpy() == pytest.approx(
            multipletests(part["p"].to_numpy(), method="fdr_bh")[1]
        )
    assert real(sim.filter(pl.col("model_id") == "m2")["estimate"].min()) > real(
        sim.filter(pl.col("model_id") == "m1")["estimate"].max()
    )


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
    data["image_set"]["cache_dir"] = str(DEMO_CACHE)
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
    summary = run_study(study, RunOptions(progress=False))
    assert summary.n_written == 2 * 90 * 10 * 4 * 3
    assert (
        run_study(study, RunOptions(progress=False)).n_written == 0
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
    from cueshift.inference.stand_ins.impressions import SYNTHETIC_CONSISTENCY

    rel = results["probe_reliability"].with_columns(
        pl.col("attribute").replace_strict(SYNTHETIC_CONSISTENCY).alias("c")
    )
    assert stats.spearmanr(rel["estimate"], rel["c"]).statistic > 0.8  # planted consistency ordering
    sim = results["probe_similarity"].group_by("model_id").agg(pl.col("estimate").mean())
    means = dict(sim.iter_rows())
    assert means["sim-2b-a"] > means["sim-80m"]  # planted fidelity 3 vs 1
    link = results["probe_reliability_similarity"].filter(pl.col("level") == "model")
    assert (link["estimate"] > 0.5).all()  # models learn the consistent impressions better
    regression = results["probe_scale_regression"]
    terms = dict(zip(regression["term"], regression["estimate"], strict=True))
    assert (
        terms["reliability"] > 0 and terms["dataset_size"] > 0 and "samples_seen" not in terms
    )  # constant: dropped
    assert set(results["probe_structure"]["model_id"]) == {"sim-80m", "sim-2b-a"}
    from cueshift.designs import design_named
    from cueshift.render import MarkdownOutput, Report, TableOutput

    catalog = design_named("probe").report()
    report = Report.open(study.database_path, None, catalog)
    try:
        for key in [t.key for t in catalog.tables if not t.optional]:
            assert isinstance(report.table(key), TableOutput), key
        assert report.table("probe_twin") == MarkdownOutput("")  # simulated models: no random twin
        # two models of two sizes: no size has two models, so no ANOVA across sizes
        assert report.table("probe_structure_anova") == MarkdownOutput("")
    finally:
        report.close()


@pytest.mark.timeout(180)
def test_probe_runs_on_the_tiny_clip_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("transformers")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = _small_probe(tmp_path)
    data["image_set"]["size"] = 12
    data["image_set"]["cache_dir"] = str(tmp_path / "demo")
    data["scenarios"]["only"] = ["happy", "age", "asian", "outdoors"]
    data["models"] = [{"model_id": "tiny-clip", "backend": "clip", "checkpoint": "cueshift:tiny-random-clip"}]
    data["probe"]["registry"] = []
    study = parse_study(data, "test")
    assert (
        run_study(study, RunOptions(progress=False)).n_written == 12 * 4
    )  # deterministic, letter-free: 1 ordering, seed 0
    con = store.open_study(study.database_path)
    try:
        results = analyze_design(con, study)
    finally:
        con.close()
    assert results["probe_similarity"].height == 4 and results["probe_similarity"]["n"].to_list() == [12] * 4


def test_published_means_and_reliability_without_long_ratings() -> None:
    import duckdb

    from cueshift.designs.probe import ProbeConfig
    from cueshift.designs.probe.analyses import DECLARED
    from cueshift.designs.probe.inputs import probe_inputs
    from cueshift.stats import RunSettings, run_suite

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
    inputs = probe_inputs(
        scores,
        humans,
        means.with_columns(pl.lit(None, dtype=pl.Int64).alias("n_raters")),
        reliability,
        config,
    )
    with duckdb.connect() as con:
        results = run_suite(con, DECLARED, inputs, RunSettings(), write=False)
    assert results["probe_reliability"]["source"].unique().to_list() == ["published"]
    link = results["probe_reliability_similarity"].row(0, named=True)
    assert link["n"] == 4 and link["estimate"] == pytest.approx(1.0)  # similarity ranks follow reliability


def test_a_study_file_takes_the_published_irr_file_as_it_is(tmp_path: Path) -> None:
    """``[probe] reliability`` reads the published ``attribute,human_irr`` file (percent) as
    ``import omi --reliability`` does; a bad row stops the run before anything is written."""
    from cueshift.errors import CueshiftError

    data = _small_probe(tmp_path)
    data["probe"]["synthetic_humans"]["n_raters"] = 4
    bad = tmp_path / "bad.csv"
    bad.write_text("attribute,human_irr\ntrustworthy,81\nhappy,181\n")
    broken = parse_study({**data, "probe": {**data["probe"], "reliability": str(bad)}}, "test")
    with pytest.raises(CueshiftError, match=r"bad\.csv: row 2: field 'human_irr'"):
        run_study(broken, RunOptions(progress=False))
    assert not Path(data["database"]).exists()
    percent = {a: 40.0 + 5 * i for i, a in enumerate(data["scenarios"]["only"])}
    irr = tmp_path / "irr.csv"
    irr.write_text("attribute,human_irr\n" + "".join(f"{a},{v}\n" for a, v in percent.items()))
    data["probe"]["reliability"] = str(irr)
    study = parse_study(data, "test")
    run_study(study, RunOptions(progress=False))
    con = store.open_study(study.database_path)
    try:
        results = analyze_design(con, study)
    finally:
        con.close()
    published = results["probe_reliability"].filter(pl.col("source") == "published")
    got = dict(zip(published["attribute"], published["estimate"], strict=True))
    assert got == pytest.approx({a: v / 100 for a, v in percent.items()})
