r"""Missing answers as a bias: invalid and refusal rates by model × demographic group × variation,
and the shift a variation causes in them (docs/decisions.md#d2).

φ (seed 000 Eq. 1) averages the *valid* answers only. If a cue makes a model refuse more often
for some faces, the answers that remain are a selected sample and Δ can hide (or fake) an effect;
the invalid rate is then an outcome in its own right.

For face :math:`f`, model :math:`m` and a set of images :math:`I` of that face (its base image,
or its images of variation value :math:`v`), with :math:`n_{fI}` answers (all scenarios,
orderings and seeds) of which :math:`k_{fI}` are invalid (or refusals),

.. math::

    r_{fI} = k_{fI} / n_{fI}, \qquad
    \hat r = \frac{1}{|F|} \sum_{f \in F} r_{fI}, \qquad
    \delta_{fv} = \frac{k_{fv}\, n_{fb} - k_{fb}\, n_{fv}}{n_{fv}\, n_{fb}} = r_{fv} - r_{fb},

the face-level rate (every face weighs the same, as in SBS) and the per-face shift of a variation
against the same face's base image (:math:`b`: the base images its variation images were made
from). :math:`\delta_{fv}` is formed from integer counts and divided once, so equal rationals
give equal doubles and the rank test sees the same ties in any row order (docs/decisions.md#d4).
Faces are the independent units. A rate's interval is the Wilson interval at the effective
sample size of the face clusters (:mod:`._clustered_share`; no resampling for the thousands of
rate cells); a shift's is the face-level cluster bootstrap interval
(:func:`~cueshift.stats.cluster_bootstrap`, widened to contain the estimate when a degenerate
resample distribution would leave it out), and the shift is tested per cell with the WSRT (or
sign flips) of :math:`\delta_{fv}` against 0, BH within model × rate × dimension. The refusal
shift is computed per model × variation only (all faces): per group, the invalid-rate shift
answers the question at half the cost.

References
----------
.. [1] Little, R. J. A. & Rubin, D. B. (2019). *Statistical Analysis with Missing Data*, 3rd ed.,
   §1.3 (missingness that depends on the condition biases complete-case means).
.. [2] Field, C. A. & Welsh, A. H. (2007). Bootstrapping clustered data. *JRSS B* 69, 369–390;
   Korn, E. L. & Graubard, B. I. (1998), *Survey Methodology* 24, 193–201 (rates).
.. [3] Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1, 80–83.
.. [4] Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. *JRSS B* 57, 289–300.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.designs.stylisticbias.constants import DIMENSIONS
from cueshift.designs.stylisticbias.stats._missing_cells import ALL, FaceCounts, face_counts, sorted_cells
from cueshift.stats import (
    Resampling,
    bh_by_family,
    cell_codes,
    cluster_bootstrap,
    clustered_wilson,
    encode_categories,
    one_sample_test,
    returns,
)

#: The rates, by the count of the ``invalid_answers`` view they count.
RATES: dict[str, str] = {"invalid": "n_invalid", "refusal": "n_refusal"}
#: ``variation_category`` / ``variation_value`` of a face's base images.
BASE = "(base)"
CELL = ["model_id", "dimension", "group", "variation_category", "variation_value"]
COUNTS = ["n_answers", "n_invalid", "n_refusal", "n_unrecorded"]
#: ``ci_method`` of the rates: Wilson at the effective sample size of the face clusters.
WILSON = "wilson-effective-n"


def dense(frame: pl.DataFrame, keys: Sequence[str], value: str, faces: list[str]) -> tuple[pl.DataFrame, F64]:
    """One ``value`` per face and cell of ``keys`` (a row each) as a ``(n_faces, n_cells)`` array
    (NaN: no data), and the cells, sorted by their keys."""
    cell_of_row, cells = cell_codes(frame, list(keys))
    values = np.full((len(faces), cells.height), np.nan)
    values[encode_categories(frame["face_id"], faces), cell_of_row] = frame[value].cast(pl.Float64).to_numpy()
    return cells, values


def face_interval(values: F64, resampling: Resampling) -> tuple[F64, F64, F64, F64]:
    """Per column: face-level mean, cluster-bootstrap interval (widened to contain the mean where a
    degenerate resample distribution leaves it out), faces with data."""
    r = resampling
    result, _ = cluster_bootstrap(
        values, n_resamples=r.resamples, seed=r.seed, confidence_level=r.confidence_level, method=r.ci_method
    )
    low, high = np.fmin(result.ci_low, result.estimate), np.fmax(result.ci_high, result.estimate)
    return result.estimate, low, high, result.n


def _labelled(counts: pl.DataFrame) -> pl.DataFrame:
    """Base images under :data:`BASE`, as a variation value of their own."""
    base = pl.col("role") == "base"
    return counts.with_columns(
        pl.when(base).then(pl.lit(BASE)).otherwise(pl.col("variation_category")).alias("variation_category"),
        pl.when(base).then(pl.lit(BASE)).otherwise(pl.col("variation_value")).alias("variation_value"),
    )


def cell_counts(rows: pl.DataFrame, keys: list[str], *counts: str) -> pl.DataFrame:
    return rows.group_by(keys).agg(pl.col(c).sum().cast(pl.Int64) for c in counts)


@returns("missing_rates")
def missing_rates(counts: pl.DataFrame, *, confidence_level: float = 0.95) -> pl.DataFrame:
    r"""Invalid and refusal rates per model (and pooled) × dimension × group × variation value.

    ``estimate`` is the face-level rate :math:`\hat r` (module docstring) of the cell's images
    (:data:`BASE`: the base images) with the Wilson interval at the effective sample size of the
    face clusters (:func:`~cueshift.stats._clustered_share.clustered_wilson`; thousands of cells, so
    no resampling); ``n_answers`` and ``n_events`` count the answers and the invalid answers
    (refusals), ``n`` the faces.

    Parameters
    ----------
    counts : polars.DataFrame
        Rows of the ``invalid_answers`` view (model × image × ordering).
    confidence_level : float
        Coverage of the intervals.
    """
    keys = [*CELL, "rate"]
    fc = face_counts(_labelled(counts), COUNTS)
    recorded = _recorded(fc, "n_unrecorded")
    takes = {"invalid": np.arange(fc.cells.height), "refusal": np.flatnonzero(recorded[fc.model])}
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = [
            fc.per_face(fc.counts[RATES[r]] / fc.counts["n_answers"])[take] for r, take in takes.items()
        ]
    cells, order, (values,) = sorted_cells(_rate_keys(fc, takes), np.concatenate(shares))
    n_answers = np.concatenate([fc.total("n_answers")[take] for take in takes.values()])[order]
    n_events = np.concatenate([fc.total(RATES[r])[take] for r, take in takes.items()])[order]
    estimate, low, high, n = clustered_wilson(values, n_answers, confidence_level)
    out = cells.with_columns(
        pl.Series("estimate", estimate),
        pl.Series("ci_low", low),
        pl.Series("ci_high", high),
        pl.lit(WILSON).alias("ci_method"),
        pl.Series("n_answers", n_answers),
        pl.Series("n_events", n_events),
        pl.Series("n", n.astype(np.int64)),
    )
    return out.select(
        *keys, "estimate", "ci_low", "ci_high", "ci_method", "n_answers", "n_events", "n"
    ).with_columns(pl.col(pl.Float64).fill_nan(None))


def _rate_keys(fc: FaceCounts, takes: dict[str, NDArray[np.int64]]) -> pl.DataFrame:
    """The keys of the cells ``takes`` picks for each rate, one rate after the other."""
    return pl.concat(
        [fc.cells[take].with_columns(pl.lit(rate).alias("rate")) for rate, take in takes.items()]
    )


def _recorded(fc: FaceCounts, *unrecorded: str) -> NDArray[np.bool_]:
    """Per model index (pooled last): whether all its invalid answers carry a reason, so that its
    refusal rate is known (the pooled one only when every model's is)."""
    missing = np.zeros(fc.observed.shape[0], dtype=np.int64)
    for column in unrecorded:
        missing += fc.model_total(column)
    known: NDArray[np.bool_] = missing == 0
    return known


def _paired_with_base(counts: pl.DataFrame) -> pl.DataFrame:
    """Per model × variation image: its counts and those of the base image it was made from (an
    image's base, face, value and labels are its own, as the view joins them: taken once)."""
    image_keys = ["model_id", "image_id"]
    attributes = ["base_image_id", "face_id", "variation_category", "variation_value", *DIMENSIONS]
    base = counts.filter(pl.col("role") == "base").group_by(image_keys).agg(pl.col(COUNTS).sum())
    variation = (
        counts.filter(pl.col("role") == "variation")
        .group_by(image_keys)
        .agg(pl.col(attributes).first(), pl.col(COUNTS).sum())
    )
    return variation.join(
        base.rename({c: f"{c}_base" for c in COUNTS} | {"image_id": "base_image_id"}),
        on=["model_id", "base_image_id"],
        how="inner",
    )


@returns("missing_shift")
def missing_shift(
    counts: pl.DataFrame,
    *,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""Shift of the invalid and refusal rates, variation image vs the same face's base image.

    Per model (and pooled) × dimension × group × variation value for the invalid rate, and per
    model × variation value (dimension ``(all)``) for the refusal rate: ``estimate`` is the
    face-level mean of :math:`\delta_{fv} = r_{fv} - r_{fb}` (module docstring; exact from
    integer counts), with a face-level cluster bootstrap interval and the WSRT (``test='rank'``,
    faces with :math:`\delta = 0` dropped as scipy's ``'wilcox'``) or sign-flip test against 0;
    ``p_adj`` is BH within model × rate × dimension. ``rate_base`` and ``rate_variation`` are the
    two face-level rates; ``n`` the faces, ``n_obs`` the answers to the variation images.

    Parameters
    ----------
    counts : polars.DataFrame
        Rows of the ``invalid_answers`` view (model × image × ordering).
    resampling : Resampling
        Face-level bootstrap and test settings.
    """
    keys = [*CELL, "rate"]
    fc = face_counts(_paired_with_base(counts), [*COUNTS, *(f"{c}_base" for c in COUNTS)])
    recorded = _recorded(fc, "n_unrecorded", "n_unrecorded_base")
    everyone = (fc.cells["dimension"] == ALL).to_numpy()
    n_v, n_b = fc.counts["n_answers"], fc.counts["n_answers_base"]
    takes = {"invalid": np.arange(fc.cells.height), "refusal": np.flatnonzero(everyone & recorded[fc.model])}
    shift, variation, base = [], [], []
    for rate, take in takes.items():
        k_v, k_b = fc.counts[RATES[rate]], fc.counts[f"{RATES[rate]}_base"]
        with np.errstate(invalid="ignore", divide="ignore"):
            shift.append(fc.per_face((k_v * n_b - k_b * n_v) / (n_v * n_b))[take])
            variation.append(fc.per_face(k_v / n_v)[take])
            base.append(fc.per_face(k_b / n_b)[take])
    cells, order, (values, on_variation, on_base) = sorted_cells(
        _rate_keys(fc, takes), np.concatenate(shift), np.concatenate(variation), np.concatenate(base)
    )
    estimate, low, high, n = face_interval(values, resampling)
    statistic, p_value, effect, name = one_sample_test(
        values, test=resampling.test, n_resamples=resampling.resamples, seed=resampling.seed
    )
    with np.errstate(invalid="ignore"):
        rate_variation = np.nanmean(on_variation, axis=0)
        rate_base = np.nanmean(on_base, axis=0)
    out = cells.with_columns(
        pl.Series("estimate", estimate),
        pl.Series("ci_low", low),
        pl.Series("ci_high", high),
        pl.Series("statistic", statistic),
        pl.Series("p", p_value),
        pl.Series("effect_size", effect),
        pl.Series("rate_base", rate_base),
        pl.Series("rate_variation", rate_variation),
        pl.lit(name).alias("test"),
        pl.lit(resampling.ci_method).alias("ci_method"),
        pl.Series("n", n.astype(np.int64)),
        pl.Series("n_obs", np.concatenate([fc.total("n_answers")[take] for take in takes.values()])[order]),
    )
    out = bh_by_family(out.with_columns(pl.col(pl.Float64).fill_nan(None)), ["model_id", "rate", "dimension"])
    return out.select(
        *keys, "estimate", "ci_low", "ci_high", "statistic", "p", "p_adj", "rate_base",
        "rate_variation", "effect_size", "test", "ci_method", "n", "n_obs",
    ).with_columns(pl.col(pl.Float64).fill_nan(None))  # fmt: skip
