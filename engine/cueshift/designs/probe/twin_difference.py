r"""Each model's similarity against its random twin's: the difference, its interval and test.

Per model with a random-weight twin (:mod:`.twins`) and attribute, over the faces the model, its
twin and the humans share (with image statistics: the faces that have every statistic):

* :math:`\Delta\rho = \rho(m, h) - \rho(t, h)`, the Spearman similarities of model and twin;
* :math:`\Delta\rho_{\cdot Z}`, the same for the partial Spearman ρ net of the image statistics
  :math:`Z` (:func:`.baselines.partial_spearman`; null without statistics).

Both correlations share the faces and the human means, so they are dependent. The interval is
a face-level paired bootstrap (:mod:`.twin_bootstrap`: faces drawn with replacement by
:func:`cueshift.stats.face_multiplicities` with the run's seed, both correlations recomputed on
each resample, re-ranked), the percentile interval of the replicate differences :math:`\Delta^*`
at the run's confidence level. The two-sided p inverts it:
:math:`p = \min(1, 2(\min(N_{<0}, N_{>0}) + 1) / (B + 1))`, ties at 0 counted half on each side
(:func:`bootstrap_p`), so p < α exactly when the :math:`1-α` percentile interval excludes 0, up
to the +1 that keeps p above 0.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.designs.probe.baselines import varying_columns
from cueshift.designs.probe.twin_bootstrap import replicate_similarities
from cueshift.schemas.results_probe import TWIN_VERDICTS
from cueshift.stats import face_multiplicities

COLUMNS: dict[str, type[pl.DataType]] = {
    "model_id": pl.String,
    "attribute": pl.String,
    "twin_n": pl.Int64,
    "twin_difference": pl.Float64,
    "twin_low": pl.Float64,
    "twin_high": pl.Float64,
    "twin_p": pl.Float64,
    "twin_partial_difference": pl.Float64,
    "twin_partial_low": pl.Float64,
    "twin_partial_high": pl.Float64,
    "twin_partial_p": pl.Float64,
    "twin_resamples": pl.Int64,
}


def bootstrap_p(replicates: F64) -> F64:
    """Per column, the two-sided bootstrap p of a zero difference (NaN replicates left out).

    >>> bootstrap_p(np.array([[0.1, 0.0], [0.2, 0.0], [-0.1, 0.0]]))
    array([1., 1.])
    >>> float(bootstrap_p(np.full((99, 1), 0.3))[0])
    0.02
    """
    finite = np.isfinite(replicates)
    valid = finite.sum(axis=0)
    at = (finite & (replicates == 0)).sum(axis=0) / 2.0
    below = (finite & (replicates < 0)).sum(axis=0) + at
    above = (finite & (replicates > 0)).sum(axis=0) + at
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.minimum(1.0, 2.0 * (np.minimum(below, above) + 1.0) / (valid + 1.0))
    return np.where(valid > 0, p, np.nan)


def _summaries(point: F64, replicates: F64, confidence: float) -> tuple[F64, F64, F64, F64]:
    """Estimate, percentile bounds and p of each column's difference (NaN where the estimate is:
    a correlation that does not vary has no difference to test)."""
    alpha = 1.0 - confidence
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: NaN bounds
        low, high = np.nanquantile(replicates, [alpha / 2, 1 - alpha / 2], axis=0)
    defined = np.isfinite(point)
    low, high, p = (np.where(defined, v, np.nan) for v in (low, high, bootstrap_p(replicates)))
    return point, low, high, p


def _wide(frame: pl.DataFrame, value: str, images: list[str], attributes: list[str]) -> F64:
    """``(images, attributes)`` matrix of ``value`` (NaN where missing)."""
    wide = frame.pivot(on="attribute", index="image_id", values=value, aggregate_function="first")
    wide = pl.DataFrame({"image_id": images}).join(wide, on="image_id", how="left")
    missing = pl.lit(None, dtype=pl.Float64)
    columns = [pl.col(a).cast(pl.Float64) if a in wide.columns else missing.alias(a) for a in attributes]
    matrix: F64 = wide.select(columns).fill_null(np.nan).to_numpy().astype(np.float64)
    return matrix.reshape(len(images), -1)


def model_twin_rows(
    model_id: str,
    model: pl.DataFrame,
    twin: pl.DataFrame,
    means: pl.DataFrame,
    statistics: F64 | None,
    images: list[str],
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> list[dict[str, object]]:
    """The :data:`COLUMNS` rows of one model: ``model``/``twin`` are its and its twin's scores
    (``image_id, attribute, score``), ``means`` the human means, ``statistics`` the image
    statistics of ``images`` in that order (``None``: no partial difference)."""
    attributes = sorted(set(model["attribute"]) & set(twin["attribute"]) & set(means["attribute"]))
    m, t = _wide(model, "score", images, attributes), _wide(twin, "score", images, attributes)
    h = _wide(means, "mean", images, attributes)
    usable = np.isfinite(m) & np.isfinite(t) & np.isfinite(h)
    if statistics is not None:
        usable &= np.isfinite(statistics).all(axis=1, keepdims=True)
    groups: dict[bytes, list[int]] = {}
    for a in range(len(attributes)):  # attributes that share their faces share one bootstrap
        groups.setdefault(usable[:, a].tobytes(), []).append(a)
    rows = []
    for members in groups.values():
        cols = np.asarray(members, dtype=np.int64)
        faces = np.flatnonzero(usable[:, cols[0]])
        n = len(faces)
        z = varying_columns(statistics[faces]) if statistics is not None else np.zeros((n, 0))
        estimates = np.full((len(cols), 8), np.nan)
        if n >= 4:
            sub = (m[np.ix_(faces, cols)], t[np.ix_(faces, cols)], h[np.ix_(faces, cols)])
            point = replicate_similarities(*sub, z, np.ones((1, n)))[0]
            reps = replicate_similarities(*sub, z, face_multiplicities(n, resamples, seed))
            differences = [(point[:, i] - point[:, i + 1], reps[:, :, i] - reps[:, :, i + 1]) for i in (0, 2)]
            estimates[:, :4] = np.column_stack(_summaries(*differences[0], confidence))
            if statistics is not None and n >= z.shape[1] + 4:
                estimates[:, 4:] = np.column_stack(_summaries(*differences[1], confidence))
        for i, a in enumerate(cols):
            values = [float(v) if math.isfinite(v) else None for v in estimates[i]]
            rows.append(dict(zip(COLUMNS, [model_id, attributes[a], n, *values, resamples], strict=True)))
    return rows


def twin_table(
    scores: pl.DataFrame,
    means: pl.DataFrame,
    twins: dict[str, str],
    statistics: pl.DataFrame | None,
    *,
    resamples: int,
    seed: int,
    confidence: float,
) -> pl.DataFrame:
    """:data:`COLUMNS` for every model of ``twins`` whose twin has scores (see the module docstring).

    ``scores``: ``model_id, image_id, attribute, score``; ``means``: ``image_id, attribute,
    mean``; ``statistics``: ``image_id`` and the numeric image statistics (``None``: no partial
    differences). Every model draws the same faces for the same number of faces (one ``seed``).
    """
    rows: list[dict[str, object]] = []
    for model_id, twin_id in sorted(twins.items()):
        model = scores.filter(pl.col("model_id") == model_id)
        twin = scores.filter(pl.col("model_id") == twin_id)
        if model.height == 0 or twin.height == 0:
            continue
        images = sorted(set(model["image_id"]) & set(twin["image_id"]) & set(means["image_id"]))
        matrix = None
        if statistics is not None:
            frame = pl.DataFrame({"image_id": images}).join(statistics, on="image_id", how="left")
            matrix = frame.drop("image_id").cast(pl.Float64).fill_null(np.nan).to_numpy()
        rows += model_twin_rows(
            model_id,
            model,
            twin,
            means,
            matrix,
            images,
            resamples=resamples,
            seed=seed,
            confidence=confidence,
        )
    return pl.DataFrame(rows, schema=COLUMNS, orient="row") if rows else pl.DataFrame(schema=COLUMNS)


#: The verdicts of a model × attribute against its random twin (null without a twin).
VERDICTS = TWIN_VERDICTS


def with_verdicts(frame: pl.DataFrame, alpha: float) -> pl.DataFrame:
    """``frame`` (:data:`COLUMNS` and ``twin_p_adj``, ``twin_partial_p_adj``) with ``verdict``.

    * *captured*: ρ exceeds the twin's (BH-adjusted p < ``alpha``) and, where image statistics
      were measured, so does the partial ρ net of them;
    * *image statistics only*: ρ exceeds the twin's, the partial ρ does not;
    * *as random twin*: ρ does not differ from the twin's;
    * *below random twin*: ρ is below the twin's.
    """
    above = (pl.col("twin_p_adj") < alpha) & (pl.col("twin_difference") > 0)
    below = (pl.col("twin_p_adj") < alpha) & (pl.col("twin_difference") < 0)
    net = (pl.col("twin_partial_p_adj") < alpha) & (pl.col("twin_partial_difference") > 0)
    measured = pl.col("twin_partial_difference").is_not_null()
    verdict = (
        pl.when(pl.col("twin_p_adj").is_null())
        .then(None)
        .when(above & (net | ~measured))
        .then(pl.lit(VERDICTS[0]))
        .when(above)
        .then(pl.lit(VERDICTS[1]))
        .when(below)
        .then(pl.lit(VERDICTS[3]))
        .otherwise(pl.lit(VERDICTS[2]))
    )
    return frame.with_columns(verdict.alias("verdict"))
