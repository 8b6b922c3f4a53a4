"""``result_probe_baselines``: each model × attribute's similarity beside its baselines.

Per model × attribute (the stimuli the model scored and humans rated):

* the model–human similarity ρ (Eq. 4, from ``result_probe_similarity``);
* its random twin's ρ: the same encoder class with random weights (:mod:`.twins`);
* image statistics alone: the out-of-fold Spearman ρ of a cross-validated ridge regression of the
  human means on the pixel statistics, and its out-of-fold R² (:func:`.baselines.cv_prediction`);
* the similarity net of the image statistics: the partial Spearman ρ of model scores and human
  means given the pixel statistics (:func:`.baselines.partial_spearman`), BH over attributes per model;
* against the twin (:mod:`.twin_difference`): ρ(model) − ρ(twin) and partial ρ(model) − partial
  ρ(twin) on the same faces, face-level paired bootstrap interval and p, BH over attributes per
  model, and the ``verdict`` they give (*captured* only where the model beats its twin).
"""

from __future__ import annotations

import math
import os
from collections.abc import Collection
from pathlib import Path

import numpy as np
import polars as pl

from cueshift.designs.probe import baselines as bl
from cueshift.designs.probe.section import ProbeStudy
from cueshift.designs.probe.twin_difference import COLUMNS as TWIN_COLUMNS
from cueshift.designs.probe.twin_difference import twin_table, with_verdicts
from cueshift.errors import CueshiftError
from cueshift.stats import Resampling, bh_by_family, correlation_columns

#: The face region of the One Million Impressions faces (StyleGAN faces in the FFHQ alignment,
#: 1024 x 1024: eyes near 40% of the height, chin near 80%): forehead to chin, cheek to cheek.
OMI_FACE_BOX: tuple[float, float, float, float] = (0.25, 0.2, 0.75, 0.85)

SCHEMA: dict[str, type[pl.DataType]] = {
    "model_id": pl.String,
    "attribute": pl.String,
    "n": pl.Int64,
    "similarity": pl.Float64,
    "similarity_low": pl.Float64,
    "similarity_high": pl.Float64,
    "random_twin": pl.String,
    "random_similarity": pl.Float64,
    "random_low": pl.Float64,
    "random_high": pl.Float64,
    "pixels_estimate": pl.Float64,
    "pixels_low": pl.Float64,
    "pixels_high": pl.Float64,
    "pixels_p": pl.Float64,
    "pixels_r2": pl.Float64,
    "partial_estimate": pl.Float64,
    "partial_low": pl.Float64,
    "partial_high": pl.Float64,
    "partial_p": pl.Float64,
    "n_measures": pl.Int64,
    "folds": pl.Int64,
    "ridge": pl.Float64,
}
#: Resamples of the twin bootstrap unless ``[probe] twin_resamples`` says otherwise.
TWIN_RESAMPLES = 2000


def _measures(part: pl.DataFrame, columns: list[str]) -> np.ndarray:
    """The measure columns of ``part`` without a missing value, as a float matrix."""
    kept = [c for c in columns if part[c].fill_nan(None).null_count() == 0]
    return part.select(kept).to_numpy().astype(np.float64) if kept else np.zeros((part.height, 0))


def _pixel_columns(
    part: pl.DataFrame, columns: list[str], *, folds: int, ridge: float, resampling: Resampling
) -> dict[str, float | int | None]:
    if part.height < 4:  # too few stimuli with statistics for any fit
        return {"n_measures": 0, "folds": 0, "ridge": ridge}
    z = bl.varying_columns(_measures(part, columns))
    human = part["mean"].to_numpy().astype(np.float64)
    confidence = resampling.confidence_level
    predicted = bl.cv_prediction(z, human, folds=folds, ridge=ridge, seed=resampling.seed)
    fitted = correlation_columns(predicted, human, "spearman", confidence)
    partial = bl.partial_spearman(part["score"].to_numpy(), human, z, confidence)
    return {
        "pixels_estimate": fitted["estimate"],
        "pixels_low": fitted["ci_low"],
        "pixels_high": fitted["ci_high"],
        "pixels_p": fitted["p"],
        "pixels_r2": bl.cv_r2(human, predicted) if np.isfinite(predicted).all() else math.nan,
        "partial_estimate": partial[0],
        "partial_low": partial[1],
        "partial_high": partial[2],
        "partial_p": partial[3],
        "n_measures": int(z.shape[1]),
        "folds": int(min(folds, part.height)),
        "ridge": ridge,
    }


def baseline_table(
    scores: pl.DataFrame,
    means: pl.DataFrame,
    similarity: pl.DataFrame,
    *,
    pixels: pl.DataFrame | None = None,
    twins: dict[str, str] | None = None,
    folds: int = 10,
    ridge: float = 1.0,
    resampling: Resampling = Resampling(),
    twin_resamples: int = TWIN_RESAMPLES,
) -> pl.DataFrame:
    """One row per model × attribute (:data:`SCHEMA`, ``partial_p_adj``, the twin columns of
    :data:`.twin_difference.COLUMNS` with ``twin_p_adj``, ``twin_partial_p_adj`` and ``verdict``).

    Parameters
    ----------
    scores, means
        ``model_id, image_id, attribute, score`` and ``image_id, attribute, mean``.
    similarity
        ``result_probe_similarity`` (``model_id, attribute, estimate, ci_low, ci_high``).
    pixels
        ``image_id`` and one numeric column per image statistic; ``None``: the pixel columns null.
        Images without a row are left out of the pixel columns' stimuli.
    twins
        Model id -> the model id of its random-weight twin (:func:`.twins.random_twins`).
    folds, ridge
        Cross-validation folds, ridge penalty on the standardised statistics.
    resampling
        The run's: its ``seed`` deals the folds and draws the twin bootstrap's faces, every
        interval is at its ``confidence_level``.
    twin_resamples
        Replicates of the twin bootstrap.
    """
    twins = twins or {}
    sim = {
        (r["model_id"], r["attribute"]): r for r in similarity.iter_rows(named=True)
    }  # a small table: one lookup per row
    joined = scores.join(means, on=["image_id", "attribute"], how="inner")
    columns: list[str] = []
    if pixels is not None:
        columns = [c for c in pixels.columns if c != "image_id" and pixels[c].dtype.is_numeric()]
        joined = joined.join(pixels.select("image_id", *columns), on="image_id", how="left")
    rows = []
    for (model_id, attribute), part in joined.sort("image_id").group_by(
        ["model_id", "attribute"], maintain_order=True
    ):
        own = sim.get((model_id, attribute), {})
        twin = twins.get(str(model_id))
        other = sim.get((twin, attribute), {}) if twin else {}
        row: dict[str, object] = {
            "model_id": model_id,
            "attribute": attribute,
            "n": part.height,
            "similarity": own.get("estimate"),
            "similarity_low": own.get("ci_low"),
            "similarity_high": own.get("ci_high"),
            "random_twin": twin,
            "random_similarity": other.get("estimate"),
            "random_low": other.get("ci_low"),
            "random_high": other.get("ci_high"),
        }
        if columns:
            measured = part.filter(pl.all_horizontal(pl.col(columns).is_not_null()))
            row |= _pixel_columns(measured, columns, folds=folds, ridge=ridge, resampling=resampling)
            row["n"] = measured.height
        rows.append(row)
    frame = pl.DataFrame(rows, schema=SCHEMA, orient="row") if rows else pl.DataFrame(schema=SCHEMA)
    frame = frame.with_columns(pl.col(pl.Float64).fill_nan(None))
    adjusted = bh_by_family(frame, ["model_id"], p_col="partial_p").rename({"p_adj": "partial_p_adj"})
    statistics = None
    if columns and pixels is not None:  # as the partial ρ: faces with every statistic, no NaN column
        complete = pixels.select("image_id", *columns).drop_nulls()
        kept = [c for c in columns if not complete[c].is_nan().any()]
        statistics = complete.select("image_id", *kept) if kept else None
    against = twin_table(
        scores,
        means,
        twins,
        statistics,
        resamples=twin_resamples,
        seed=resampling.seed,
        confidence=resampling.confidence_level,
    )
    for p_col in ("twin_p", "twin_partial_p"):
        against = bh_by_family(against, ["model_id"], p_col=p_col).rename({"p_adj": f"{p_col}_adj"})
    against = with_verdicts(against, 1.0 - resampling.confidence_level)
    joined = adjusted.join(against, on=["model_id", "attribute"], how="left")
    return joined.with_columns(pl.col(c).cast(t) for c, t in TWIN_COLUMNS.items()).sort(
        ["model_id", "attribute"]
    )


def scaled_statistics(
    path: Path, face_box: tuple[float, float, float, float], size: int | None
) -> dict[str, float]:
    """:func:`cueshift.images.pixel_stats.statistics_of` of the image at ``path`` scaled (box
    filter, aspect kept) to at most ``size`` pixels on its long side; ``width`` and ``height``
    stay the file's. ``size`` ``None``: full resolution."""
    from PIL import Image

    from cueshift.images.pixel_stats import statistics_of

    try:
        with Image.open(path) as image:
            width, height = image.size
            if size is not None and max(width, height) > size:
                image.draft("RGB", (size, size))  # JPEG: decode at a reduced scale
            picture = image.convert("RGB")
            if size is not None and max(width, height) > size:
                picture.thumbnail((size, size), Image.Resampling.BOX)
            rgb = np.asarray(picture, dtype=np.float64) / 255.0
    except OSError as exc:
        raise CueshiftError(f"probe baselines: cannot read {path}: {exc}") from None
    return statistics_of(rgb, face_box=face_box) | {"width": float(width), "height": float(height)}


def base_face_pixels(study: ProbeStudy, image_ids: Collection[str] | None = None) -> pl.DataFrame:
    """``image_id`` and the image statistics (:func:`scaled_statistics` at ``[probe]
    baseline_image_size``, threads over the images) of the study's base faces (of ``image_ids``
    only, when given); the face region from ``[probe] face_box``, by default
    :data:`OMI_FACE_BOX` for an OMI image set, else the demo portraits'
    :data:`cueshift.images.pixel_stats.DEFAULT_FACE_BOX`."""
    from concurrent.futures import ThreadPoolExecutor

    from cueshift.designs.probe.workload import prepared_study
    from cueshift.images import load_image_set
    from cueshift.images.pixel_stats import DEFAULT_FACE_BOX, PIXEL_MEASURES

    image_set = load_image_set(study.image_set, prepared_study(study).variations, progress=False)
    bases = image_set.image.filter(pl.col("role") == "base").select("image_id", "path").sort("image_id")
    if image_ids is not None:
        bases = bases.filter(pl.col("image_id").is_in(sorted(image_ids)))
    config = study.probe
    face_box = config.face_box or (OMI_FACE_BOX if study.image_set.kind == "omi" else DEFAULT_FACE_BOX)
    paths = [image_set.root / p for p in bases["path"]]
    with ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 1)) as pool:  # PIL and numpy release the GIL
        rows = list(pool.map(lambda p: scaled_statistics(p, face_box, config.baseline_image_size), paths))
    measures = {name: pl.Series(name, [r[name] for r in rows], dtype=pl.Float64) for name in PIXEL_MEASURES}
    return pl.DataFrame({"image_id": bases["image_id"], **measures})
