"""Baselines of the probe similarity: the partial Spearman correlation against the precision-matrix
formula and a statsmodels residual regression, the cross-validated ridge against numpy lstsq and the
closed form, planted image statistics (brightness-only humans and models), random-weight twins."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm
from rich.console import Console
from scipy import stats

from cueshift.designs.probe import baselines as bl
from cueshift.designs.probe.baseline_table import baseline_table
from cueshift.designs.probe.stats import model_human_similarity
from cueshift.designs.probe.twins import random_twins, with_random_twins
from cueshift.schemas.results_probe import BaselinesSchema
from cueshift.stats import Resampling
from cueshift.study.config import ModelConfig

STUDY = Path(__file__).resolve().parents[2] / "studies" / "probe-004.toml"


def _pingouin_partial(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> tuple[float, float]:
    """pingouin.partial_corr(method='spearman') by hand: ranks, the precision matrix of their
    correlation matrix, r = -P_xy / sqrt(P_xx P_yy), p from t with n - 2 - k df."""
    ranked = np.column_stack([stats.rankdata(c) for c in (x, y, *z.T)])
    precision = np.linalg.inv(np.corrcoef(ranked, rowvar=False))
    r = -precision[0, 1] / np.sqrt(precision[0, 0] * precision[1, 1])
    df = len(x) - 2 - z.shape[1]
    t = r * np.sqrt(df / (1 - r * r))
    return float(r), float(2 * stats.t.sf(abs(t), df))


def test_partial_spearman_matches_the_precision_matrix_and_statsmodels_residuals() -> None:
    rng = np.random.default_rng(3)
    n = 80
    z = rng.normal(size=(n, 3))
    x = z @ [1.0, 0.5, 0.0] + rng.normal(size=n)
    y = z @ [0.8, 0.0, -0.4] + 0.5 * x + rng.normal(size=n)
    r, lo, hi, p, count = bl.partial_spearman(x, y, z)
    ref_r, ref_p = _pingouin_partial(x, y, z)
    assert r == pytest.approx(ref_r, abs=1e-10) and p == pytest.approx(ref_p, rel=1e-8) and count == n
    ranks = sm.add_constant(np.column_stack([stats.rankdata(c) for c in z.T]))
    rx = sm.OLS(stats.rankdata(x), ranks).fit().resid
    ry = sm.OLS(stats.rankdata(y), ranks).fit().resid
    assert r == pytest.approx(stats.pearsonr(rx, ry).statistic, abs=1e-10)
    half = stats.norm.ppf(0.975) * np.sqrt((1 + r * r / 2) / (n - 3 - 3))
    assert (lo, hi) == pytest.approx((np.tanh(np.arctanh(r) - half), np.tanh(np.arctanh(r) + half)))
    # a constant covariate is dropped: the same as without it
    assert bl.partial_spearman(x, y, np.column_stack([z, np.ones(n)]))[0] == pytest.approx(r)


def test_cv_prediction_matches_lstsq_and_the_ridge_closed_form() -> None:
    rng = np.random.default_rng(5)
    n, k = 47, 5
    z = rng.normal(size=(n, 3)) * [1.0, 10.0, 0.1] + [0.0, 3.0, -1.0]
    y = z @ [1.0, 0.1, 4.0] + rng.normal(size=n)
    labels = bl.kfold_labels(n, k, seed=2)
    assert sorted(np.bincount(labels).tolist()) == [9, 9, 9, 10, 10]
    for ridge in (0.0, 2.5):
        ours = bl.cv_prediction(z, y, folds=k, ridge=ridge, seed=2)
        for fold in range(k):
            train, test = labels != fold, labels == fold
            mu, sd = z[train].mean(axis=0), z[train].std(axis=0)
            xs = (z[train] - mu) / sd
            if ridge == 0:  # OLS with an intercept, by numpy lstsq on the raw predictors
                design = np.column_stack([np.ones(train.sum()), z[train]])
                coef = np.linalg.lstsq(design, y[train], rcond=None)[0]
                expected = coef[0] + z[test] @ coef[1:]
            else:  # (Xs'Xs + lambda I)^-1 Xs'(y - ybar), intercept ybar
                beta = np.linalg.solve(xs.T @ xs + ridge * np.eye(3), xs.T @ (y[train] - y[train].mean()))
                expected = y[train].mean() + ((z[test] - mu) / sd) @ beta
            assert ours[test] == pytest.approx(expected, abs=1e-9)
    predicted = bl.cv_prediction(z, y, folds=k, ridge=0.0, seed=2)
    assert bl.cv_r2(y, predicted) == pytest.approx(
        1 - ((y - predicted) ** 2).sum() / ((y - y.mean()) ** 2).sum()
    )


def _planted(n: int = 400, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Faces with brightness, contrast and a noise statistic; attribute 'bright' rated by
    brightness only, 'kind' by brightness plus a latent trait invisible to the statistics."""
    rng = np.random.default_rng(seed)
    ids = [f"f{i:03d}" for i in range(n)]
    brightness, contrast, noise = rng.uniform(0.2, 0.8, n), rng.uniform(0.1, 0.3, n), rng.normal(size=n)
    trait = rng.normal(size=n)
    pixels = pl.DataFrame({"image_id": ids, "brightness": brightness, "contrast": contrast, "grain": noise})
    human = {
        "bright": 5 * brightness + 0.3 * rng.normal(size=n),
        "kind": 5 * brightness + trait + 0.3 * rng.normal(size=n),
    }
    means = pl.concat([pl.DataFrame({"image_id": ids, "attribute": a, "mean": v}) for a, v in human.items()])
    model = {  # 'lamp' sees brightness only; 'mind' brightness and the trait
        "lamp": {a: brightness + 0.05 * rng.normal(size=n) for a in human},
        "mind": {a: brightness + (trait if a == "kind" else 0) + 0.05 * rng.normal(size=n) for a in human},
    }
    scores = pl.concat(
        [
            pl.DataFrame({"model_id": m, "image_id": ids, "attribute": a, "score": v})
            for m, by in model.items()
            for a, v in by.items()
        ]
    )
    return scores, means, pixels


def test_planted_brightness_only_humans_and_a_model_with_more_than_brightness() -> None:
    scores, means, pixels = _planted()
    similarity = model_human_similarity(scores, means)
    table = baseline_table(
        scores, means, similarity, pixels=pixels, folds=10, ridge=1.0, resampling=Resampling(seed=0)
    )
    BaselinesSchema.validate(table)
    row = {(r["model_id"], r["attribute"]): r for r in table.iter_rows(named=True)}
    bright_lamp = row["lamp", "bright"]
    assert bright_lamp["pixels_estimate"] > 0.9 and bright_lamp["pixels_r2"] > 0.8  # statistics alone
    assert bright_lamp["similarity"] > 0.9  # high similarity ...
    assert abs(bright_lamp["partial_estimate"]) < 0.15  # ... that image statistics explain away
    assert bright_lamp["partial_low"] < 0 < bright_lamp["partial_high"]
    kind_mind, kind_lamp = row["mind", "kind"], row["lamp", "kind"]
    assert kind_mind["partial_estimate"] > 0.5 and kind_mind["partial_p_adj"] < 1e-6  # the trait remains
    assert abs(kind_lamp["partial_estimate"]) < 0.15
    assert table["n"].to_list() == [400] * 4 and set(table["n_measures"]) == {3}
    assert table["random_twin"].null_count() == 4


def test_twins_pair_in_the_table_and_missing_statistics_leave_pixels_out() -> None:
    scores, means, pixels = _planted(n=60)
    twin = scores.filter(pl.col("model_id") == "lamp").with_columns(
        pl.lit("lamp.random").alias("model_id"), pl.Series("score", np.arange(120.0) % 7)
    )
    scores = pl.concat([scores, twin])
    similarity = model_human_similarity(scores, means)
    missing = pixels.with_columns(
        pl.when(pl.col("image_id") == "f000").then(None).otherwise(pl.col("brightness")).alias("brightness")
    )
    table = baseline_table(scores, means, similarity, pixels=missing, twins={"lamp": "lamp.random"})
    lamp = table.filter((pl.col("model_id") == "lamp") & (pl.col("attribute") == "bright")).row(0, named=True)
    ref = similarity.filter((pl.col("model_id") == "lamp.random") & (pl.col("attribute") == "bright"))
    assert lamp["random_twin"] == "lamp.random" and lamp["random_similarity"] == ref["estimate"][0]
    assert lamp["n"] == 59  # the face without brightness is left out of the pixel statistics
    elsewhere = baseline_table(
        scores, means, similarity, pixels=pixels.with_columns(("x" + pl.col("image_id")).alias("image_id"))
    )
    assert elsewhere["n"].max() == 0 and elsewhere["pixels_estimate"].null_count() == elsewhere.height
    without = baseline_table(scores, means, similarity, twins={"lamp": "lamp.random"})
    assert without["pixels_estimate"].null_count() == without.height and without["n"].min() == 60


def test_random_twins_join_a_study_and_pair_by_checkpoint() -> None:
    clip = {"model_id": "b32", "backend": "clip", "checkpoint": "openai/clip-vit-base-patch32"}
    models = with_random_twins([clip, {"model_id": "sim", "backend": "simulated"}])
    assert [m["model_id"] for m in models] == ["b32", "sim", "b32.random"]
    assert models[2]["settings"] == {"random_init": True} and models[2]["checkpoint"] == clip["checkpoint"]
    configs = [ModelConfig.model_validate(m) for m in models]
    assert random_twins(configs) == {"b32": "b32.random"}
    assert with_random_twins(models) == models  # already paired: nothing added
    tiny = with_random_twins(
        [{"model_id": "t", "backend": "clip", "checkpoint": "cueshift:tiny-random-clip"}]
    )
    assert tiny[1]["settings"] == {"random_init": True, "random_seed": 1}  # seed 0 is the stand-in itself
    from cueshift.designs import parse_study
    from cueshift.designs.probe.workload import prepared_study  # noqa: F401  (the design's module loads)

    study = parse_study(
        {
            "name": "t",
            "design": "probe",
            "models": [clip],
            "scenarios": {"set": "omi-34"},
            "probe": {"synthetic_humans": {"n_raters": 4}, "random_twins": True},
        },
        "test",
    )
    assert [m.model_id for m in study.models] == ["b32", "b32.random"]


@pytest.mark.timeout(180)
def test_random_init_clip_differs_from_its_checkpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("transformers")
    import torch

    from cueshift.inference.backends.clip import load_clip
    from cueshift.inference.backends.clip_embeddings import encoder_key
    from cueshift.inference.backends.clip_probe import parse_settings
    from cueshift.inference.stand_ins.checkpoints import resolve_checkpoint

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = resolve_checkpoint("cueshift:tiny-random-clip")
    trained, _ = load_clip("t", path, None)
    state = torch.random.get_rng_state()
    first, _ = load_clip("t", path, None, random_seed=1)
    assert torch.equal(state, torch.random.get_rng_state())  # the caller's RNG untouched
    again, _ = load_clip("t", path, None, random_seed=1)
    other, _ = load_clip("t", path, None, random_seed=2)
    weight = "visual_projection.weight"
    assert torch.equal(first.state_dict()[weight], again.state_dict()[weight])
    assert not torch.equal(first.state_dict()[weight], other.state_dict()[weight])
    assert not torch.equal(first.state_dict()[weight], trained.state_dict()[weight])
    model = ModelConfig(model_id="r", backend="clip", checkpoint="x", settings={"random_init": True})
    key = encoder_key(model, parse_settings(model), "float32")
    assert key == "x#random-init=0@default:float32#encoding=2"


@pytest.mark.timeout(240)
def test_random_twins_end_to_end_on_the_tiny_clip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("transformers")
    from cueshift import store
    from cueshift.designs import analyze_design, parse_study
    from cueshift.execution.run_options import RunOptions
    from cueshift.execution.runner import run_study

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    data = tomllib.loads(STUDY.read_text())
    data["database"] = str(tmp_path / "probe.duckdb")
    data["image_set"] = {"kind": "demo", "size": 12, "cache_dir": str(tmp_path / "demo")}
    data["scenarios"]["only"] = ["happy", "age", "asian"]
    data["models"] = [{"model_id": "tiny-clip", "backend": "clip", "checkpoint": "cueshift:tiny-random-clip"}]
    data["probe"] |= {"registry": [], "n_splits": 5, "random_twins": True, "baseline_folds": 3}
    data["probe"]["twin_resamples"] = 200
    study = parse_study(data, "test")
    assert run_study(study, RunOptions(progress=False)).n_written == 2 * 12 * 3
    con = store.open_study(study.database_path)
    console = Console(record=True, width=100)
    try:
        results = analyze_design(con, study, console=console)
        stored = store.query(con, "SELECT * FROM result_probe_baselines")
    finally:
        con.close()
    table = results["probe_baselines"]
    assert stored.height == table.height == 6
    trained = table.filter(pl.col("model_id") == "tiny-clip")
    assert trained["random_twin"].to_list() == ["tiny-clip.random"] * 3
    twin_sim = results["probe_similarity"].filter(pl.col("model_id") == "tiny-clip.random")
    assert trained["random_similarity"].to_list() == twin_sim.sort("attribute")["estimate"].to_list()
    assert trained["random_similarity"].to_list() != trained["similarity"].to_list()  # other weights
    assert trained["pixels_estimate"].null_count() == 0 and (trained["folds"] == 3).all()
    # against the twin: on the same 12 faces, the difference of the two similarities, and a verdict
    differences = (trained["similarity"] - trained["random_similarity"]).to_list()
    assert trained["twin_difference"].to_list() == pytest.approx(differences, abs=1e-9)
    assert (trained["twin_n"] == 12).all() and (trained["twin_resamples"] == 200).all()
    assert trained["verdict"].null_count() == 0 and table.filter(pl.col("verdict").is_null()).height == 3
    assert "Against the random twin" in console.export_text()
    from cueshift.designs.probe.viewer_pages import humans_page
    from cueshift.designs.viewer_support import PageRequest
    from cueshift.viewer.source import open_source

    source = open_source(study.database_path)
    try:
        _, context = humans_page(source.cursor(), PageRequest({"attribute": "happy"}, has=source.has))
    finally:
        source.close()
    verdict = trained.filter(pl.col("attribute") == "happy")["verdict"][0]
    assert "Against the random twin — happy" in context["twin_table"] and verdict in context["twin_table"]
    from cueshift.designs.probe.report import CATALOG
    from cueshift.render import Report, TableOutput

    with Report.open(study.database_path, None, CATALOG) as report:
        assert isinstance(report.table("probe_twin"), TableOutput)


def test_an_imported_omi_study_with_clip_gets_random_twins_and_the_omi_face_box(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cueshift.designs import load_study
    from cueshift.designs.probe import baseline_table as baseline_table_module
    from cueshift.designs.probe.baseline_table import OMI_FACE_BOX, base_face_pixels
    from cueshift.designs.probe.section import ProbeStudy
    from cueshift.images import pixel_stats
    from cueshift.imports.omi import import_omi
    from cueshift.imports.omi_study import ModelSpec
    from tests.images.omi_layout import write_omi

    omi = write_omi(tmp_path / "omi")
    clip = ModelSpec.parse("b32=clip:openai/clip-vit-base-patch32")
    study = load_study(import_omi(omi, tmp_path / "study", models=[clip]).study_file)
    assert isinstance(study, ProbeStudy)
    assert [m.model_id for m in study.models] == ["b32", "b32.random"]
    assert random_twins(study.models) == {"b32": "b32.random"}
    boxes = []
    measure = baseline_table_module.scaled_statistics

    def spy(path: Path, face_box: tuple[float, float, float, float], size: int | None) -> dict[str, float]:
        boxes.append(face_box)
        return measure(path, face_box, size)

    monkeypatch.setattr(baseline_table_module, "scaled_statistics", spy)
    pixels = base_face_pixels(study, {"1", "2"})
    assert pixels["image_id"].to_list() == ["1", "2"] and boxes == [OMI_FACE_BOX] * 2
    files = sorted((omi / "images").glob("[12].*"), key=lambda p: p.stem)
    assert pixels["brightness"].to_list() == pixel_stats.pixel_frame(files)["brightness"].to_list()


def test_scaled_statistics_keep_tone_and_the_file_size(tmp_path: Path) -> None:
    from PIL import Image

    from cueshift.designs.probe.baseline_table import scaled_statistics
    from cueshift.images.pixel_stats import pixel_statistics

    ramp = np.linspace(0, 255, 600)[None, :, None] * np.ones((400, 1, 3))  # a horizontal grey ramp
    ramp[:, :, 0] *= 0.5
    path = tmp_path / "ramp.png"
    Image.fromarray(ramp.astype(np.uint8)).save(path)
    box = (0.2, 0.1, 0.8, 0.75)
    full, small = pixel_statistics(path, face_box=box), scaled_statistics(path, box, 150)
    assert (small["width"], small["height"]) == (600.0, 400.0)
    for name in ("brightness", "red_green", "face_brightness", "saturation"):
        assert small[name] == pytest.approx(full[name], abs=0.01), name
    assert scaled_statistics(path, box, None) == full
