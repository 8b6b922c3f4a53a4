r"""The noise floor: what |SBS| a variation shows when nothing about the face changed.

Every StylisticBias study plans two placebo variations per base image (a pixel-identical copy and
a lossless re-encode; :mod:`cueshift.images.placebos`). Their true Δ is zero, so their |SBS| at the
unit of attribute |SBS| (the model × value × scenario cell) is what sampling noise, serving
nondeterminism and cache effects alone produce. :func:`noise_floor` summarises it (with the placebo
SBS, whose CI should contain 0); :func:`attributes_vs_floor` reads each attribute against it.

Calibration
-----------
*Cell |SBS|.* With :math:`n` faces per cell, a cell's SBS is a mean of :math:`n` per-face
Δ, so under no effect :math:`|\mathrm{SBS}_c| \approx |N(0, \sigma^2_\Delta / n)|` with mean
:math:`\sigma_\Delta\sqrt{2/(\pi n)}`: the floor shrinks as :math:`1/\sqrt n` and grows with the
binomial noise of φ (fewer valid answers) and with serving noise. An attribute's |SBS| (mean of
its cells' |SBS|) has the same expectation as the placebos' mean cell |SBS| when its true Δ is 0
in every cell; ``above_floor`` compares it with the placebos' upper ``quantile`` of *single* cells,
a conservative descriptive bar (a mean of many null cells rarely exceeds a single-cell 95th
percentile).

*Face-level test.* For face :math:`f`, attribute value :math:`v` and model :math:`m`,

.. math::

    d_{fv} = \overline{|\Delta_{f v s}|}_{s} - \overline{|\Delta_{f p s}|}_{p \in P,\, s},

the face's mean |Δ| over the value's scenarios minus its mean |Δ| over the placebos' scenarios.
If the value's images move judgments no more than re-encoding the base does, :math:`d_{fv}` is
centred at 0 (both are means of |φ − φ_base| over the same noise), and faces are independent, so
the one-sided Wilcoxon signed-rank test of :math:`d_{fv} > 0` (or sign flips) across faces is
valid; ``p_adj`` is BH over the values of a model (seed 000 §4.4's BH). ``passes`` means the cue
moves individual judgments beyond the noise floor in *either* direction (an effect that is
heterogeneous in sign across faces passes while its SBS may be 0); SBS and its test say in which
direction on average. Faces enter once per value; pooled rows average a face's |Δ| over models.

References
----------
.. [1] Lipsitch, M., Tchetgen Tchetgen, E. & Cohen, T. (2010). Negative controls: a tool for
   detecting confounding and bias in observational studies. *Epidemiology* 21, 383–388.
.. [2] Wilcoxon, F. (1945). Individual comparisons by ranking methods. *Biometrics Bulletin* 1, 80–83.
.. [3] Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate. *JRSS B* 57, 289–300.
.. [4] seed 000 Eq. 4 (SBS) and §4.4 (face-level WSRT, BH); issue 11 ("a noise floor").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import polars as pl

from cueshift.stats._checked import returns
from cueshift.stats._constants import POOLED
from cueshift.stats._faces import face_matrix, group_means, study_faces
from cueshift.stats._multiplicity import bh_by_family
from cueshift.stats._resample import CIMethod, cluster_bootstrap
from cueshift.stats._sbs import TestMethod, one_sample_test

#: ``variation_value`` of the rows that take every placebo together.
ALL_PLACEBOS = "(all placebos)"
CELL = ("variation_category", "variation_value", "scenario_id")


@dataclass(frozen=True)
class Boot:
    """Face-level bootstrap settings."""

    n_resamples: int
    seed: int
    confidence_level: float
    ci_method: CIMethod


def _valid(delta: pl.DataFrame) -> pl.DataFrame:
    return delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())


def _with_pooled(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` plus a copy of its rows as model ``(pooled)``."""
    return pl.concat([frame, frame.with_columns(pl.lit(POOLED).alias("model_id"))])


def cell_abs_sbs(delta: pl.DataFrame) -> pl.DataFrame:
    r"""|SBS| of every model × value × scenario cell: :math:`|\,\mathrm{mean}_f \bar\Delta_{fc}|`
    (the face-level mean of seed 000 Eq. 4, its sign removed: the |SBS| unit of ``sbs_levels``).

    Returns ``model_id, variation_category, variation_value, scenario_id, sbs, abs_sbs, n``."""
    face = group_means(_valid(delta), ["model_id", *CELL, "face_id"], "delta", alias="face_delta")
    cell = group_means(face, ["model_id", *CELL], "face_delta", alias="sbs")
    return cell.with_columns(pl.col("sbs").abs().alias("abs_sbs"))


def _floor(cells: pl.DataFrame, keys: Sequence[str], quantile: float) -> pl.DataFrame:
    """Mean, ``quantile`` (linear interpolation, as :func:`numpy.quantile`) and max of cell |SBS|."""
    return cells.group_by(list(keys), maintain_order=True).agg(
        pl.col("abs_sbs").mean().alias("abs_sbs_mean"),
        pl.col("abs_sbs").quantile(quantile, interpolation="linear").alias("abs_sbs_quantile"),
        pl.col("abs_sbs").max().alias("abs_sbs_max"),
        pl.len().cast(pl.Int64).alias("n_cells"),
    )


def _face_columns(
    long: pl.DataFrame,
    keys: list[str],
    value: str,
    boot: Boot,
    *,
    test: TestMethod,
    alternative: Literal["two-sided", "greater"] = "two-sided",
) -> pl.DataFrame:
    """Per-face ``value`` in the cells of ``keys``: face-level bootstrap CI of the mean, one test per cell."""
    fm = face_matrix(long, keys, faces=study_faces(long), value=value)
    result, _ = cluster_bootstrap(
        fm.values,
        n_resamples=boot.n_resamples,
        seed=boot.seed,
        confidence_level=boot.confidence_level,
        method=boot.ci_method,
    )
    statistic, p_value, effect, name = one_sample_test(
        fm.values, test=test, n_resamples=boot.n_resamples, seed=boot.seed, alternative=alternative
    )
    return fm.cells.with_columns(
        pl.Series("estimate", result.estimate),
        pl.Series("ci_low", result.ci_low),
        pl.Series("ci_high", result.ci_high),
        pl.Series("statistic", statistic),
        pl.Series("p_value", p_value),
        pl.Series("effect_size", effect),
        pl.Series("n", result.n.astype(np.int64)),
        pl.lit(name).alias("test"),
    )


@returns("noise_floor")
def noise_floor(
    placebo: pl.DataFrame,
    *,
    quantile: float = 0.95,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence_level: float = 0.95,
    ci_method: CIMethod = "bca",
    test: TestMethod = "rank",
) -> pl.DataFrame:
    r"""The placebo SBS and the distribution of placebo cell |SBS|, per model, pooled, per placebo.

    Per model (and ``(pooled)``) × placebo value (and :data:`ALL_PLACEBOS`): ``estimate`` is the
    placebo SBS, :math:`\mathrm{mean}_f \bar\Delta_f` over the face's placebo Δ (true value 0),
    with a face-level cluster bootstrap CI and a two-sided WSRT (or sign flips) of the per-face
    means against 0, ``p_adj`` BH within the model; ``abs_sbs_mean``, ``abs_sbs_quantile`` and
    ``abs_sbs_max`` summarise :func:`cell_abs_sbs` over the row's model × placebo × scenario cells
    (:data:`ALL_PLACEBOS`: the cells of every placebo; pooled rows: every model's cells). See the
    module docstring for the calibration.

    Parameters
    ----------
    placebo : polars.DataFrame
        ``delta`` rows of the placebos (``read_delta(con, placebo=True)``).
    quantile : float
        The floor's upper quantile (default the 95th percentile).
    n_resamples, seed, confidence_level, ci_method, test
        Face-level bootstrap and test settings, as :func:`sbs_levels`.
    """
    data = _valid(placebo)
    both = pl.concat([data, data.with_columns(pl.lit(ALL_PLACEBOS).alias("variation_value"))])
    boot = Boot(n_resamples, seed, confidence_level, ci_method)
    keys = ["model_id", "variation_value"]
    tested = _face_columns(_with_pooled(both), keys, "delta", boot, test=test)
    per_placebo = cell_abs_sbs(data)  # cells of one image each, like an attribute's
    cells = _with_pooled(
        pl.concat([per_placebo, per_placebo.with_columns(pl.lit(ALL_PLACEBOS).alias("variation_value"))])
    )
    n_obs = _with_pooled(both).group_by(keys).agg(pl.len().cast(pl.Int64).alias("n_obs"))
    out = tested.join(_floor(cells, keys, quantile), on=keys, how="left").join(n_obs, on=keys, how="left")
    out = bh_by_family(out, ["model_id"])
    return out.select(
        *keys, "estimate", "ci_low", "ci_high", "statistic", "p_value", "p_adj", "abs_sbs_mean",
        "abs_sbs_quantile", "abs_sbs_max", pl.lit(quantile).alias("quantile"), "effect_size", "test",
        pl.lit(ci_method).alias("ci_method"), "n_cells", "n", "n_obs",
    ).with_columns(pl.col(pl.Float64).fill_nan(None))  # fmt: skip


@returns("noise_floor_attributes")
def attributes_vs_floor(
    delta: pl.DataFrame,
    placebo: pl.DataFrame,
    *,
    quantile: float = 0.95,
    alpha: float = 0.05,
    n_resamples: int = 10_000,
    seed: int = 0,
    confidence_level: float = 0.95,
    ci_method: CIMethod = "bca",
    test: TestMethod = "rank",
) -> pl.DataFrame:
    r"""Each attribute value's |SBS| beside the placebo floor, and whether it passes the floor.

    Per model (and ``(pooled)``) × value: ``abs_sbs`` is the mean of its cells' |SBS|
    (:func:`cell_abs_sbs`, as ``result_sbs``'s value level), ``floor_mean`` / ``floor_quantile`` the
    placebos' cell |SBS| mean and upper ``quantile`` (all placebos of the model), ``ratio`` =
    ``abs_sbs / floor_mean``, ``share_cells_above`` the share of the value's cells above
    ``floor_quantile`` (≈ 1 − ``quantile`` without an effect) and ``above_floor`` whether
    ``abs_sbs`` itself is. ``estimate`` is the mean over faces of :math:`d_{fv}` (the face's mean
    |Δ| for the value minus its mean placebo |Δ|) with a face-level bootstrap CI; the one-sided WSRT
    (or sign flips) tests :math:`d_{fv} > 0`, ``p_adj`` is BH within the model, and ``passes`` is
    ``p_adj < alpha``. Calibration and references: the module docstring.

    Parameters
    ----------
    delta, placebo : polars.DataFrame
        ``delta`` rows of the attribute variations and of the placebos.
    quantile, alpha
        The floor's upper quantile and the FDR level of ``passes``.
    n_resamples, seed, confidence_level, ci_method, test
        As :func:`noise_floor`.
    """
    attr, plac = _valid(delta), _valid(placebo)
    floor = _floor(_with_pooled(cell_abs_sbs(plac)), ["model_id"], quantile).select(
        "model_id",
        pl.col("abs_sbs_mean").alias("floor_mean"),
        pl.col("abs_sbs_quantile").alias("floor_quantile"),
    )
    value_keys = ["model_id", "variation_category", "variation_value"]
    cells = _with_pooled(cell_abs_sbs(attr)).join(floor, on="model_id", how="left")
    summary = cells.group_by(value_keys, maintain_order=True).agg(
        pl.col("abs_sbs").mean(),
        (pl.col("abs_sbs") > pl.col("floor_quantile")).mean().alias("share_cells_above"),
        pl.len().cast(pl.Int64).alias("n_cells"),
        pl.col("n").sum().cast(pl.Int64).alias("n_obs"),
    )
    abs_attr = _with_pooled(attr.with_columns(pl.col("delta").abs()))
    abs_plac = _with_pooled(plac.with_columns(pl.col("delta").abs()))
    face_attr = group_means(abs_attr, [*value_keys, "face_id"], "delta", alias="attr").drop("n")
    face_plac = group_means(abs_plac, ["model_id", "face_id"], "delta", alias="plac").drop("n")
    paired = face_attr.join(face_plac, on=["model_id", "face_id"], how="inner").with_columns(
        (pl.col("attr") - pl.col("plac")).alias("d")
    )
    boot = Boot(n_resamples, seed, confidence_level, ci_method)
    tested = _face_columns(paired, value_keys, "d", boot, test=test, alternative="greater")
    out = (
        tested.join(summary, on=value_keys, how="left", nulls_equal=True)
        .join(floor, on="model_id", how="left")
        .with_columns(
            (pl.col("abs_sbs") / pl.col("floor_mean")).alias("ratio"),
            (pl.col("abs_sbs") > pl.col("floor_quantile")).fill_null(False).alias("above_floor"),
        )
    )
    out = bh_by_family(out, ["model_id"]).with_columns(
        (pl.col("p_adj") < alpha).fill_null(False).alias("passes")
    )
    return out.select(
        *value_keys, "abs_sbs", "floor_mean", "floor_quantile", "ratio", "share_cells_above", "above_floor",
        "estimate", "ci_low", "ci_high", "statistic", "p_value", "p_adj", "passes", "effect_size", "test",
        pl.lit(ci_method).alias("ci_method"), "n_cells", "n", "n_obs",
    ).with_columns(pl.col(pl.Float64).fill_nan(None))  # fmt: skip
