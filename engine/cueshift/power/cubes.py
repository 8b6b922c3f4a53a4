"""Dense arrays of a study's shifts and base φ, per model: what the component estimators read.

Rows come from the ``delta`` and ``base_phi`` views (or a simulated study with their columns);
faces, values and scenarios become axes, a missing cell is NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.power.anova import ShiftCube
from cueshift.power.protocol import DIMENSIONS

# Variation values whose shift is zero by construction (the noise-floor placebos of
# docs/decisions.md#d1, listed by cueshift.images.placebos): a pixel-identical copy or a lossless
# re-encode of the base image.
from cueshift.views import PLACEBO_FEATURE_KEY


@dataclass(frozen=True)
class BaseCube:
    """Base φ of one model, faces × scenarios, with each cell's measurement variance and the
    faces' demographic labels (``labels[dimension][f]``, None when unknown)."""

    faces: list[str]
    phi: F64
    error: F64
    labels: dict[str, NDArray[np.object_]]


def cell_error(phi: pl.Expr, n: pl.Expr) -> pl.Expr:
    r"""Unbiased binomial variance of a φ of ``n`` valid answers: :math:`\hat\phi(1-\hat\phi)/(n-1)`."""
    return pl.when(n > 1).then(phi * (1 - phi) / (n - 1)).otherwise(None)


def is_placebo(frame: pl.DataFrame) -> pl.Series:
    """Rows of placebo variations (``feature_key`` ``placebo``, any case)."""
    return frame["feature_key"].fill_null("").str.to_lowercase() == PLACEBO_FEATURE_KEY


def _dense(frame: pl.DataFrame, axes: list[tuple[str, list[str]]], columns: list[str]) -> dict[str, F64]:
    shape = tuple(len(levels) for _, levels in axes)
    flat = np.zeros(frame.height, dtype=np.int64)
    for name, levels in axes:
        lookup = pl.DataFrame({name: levels}, schema={name: pl.String}).with_row_index("__i")
        codes = frame.select(pl.col(name).cast(pl.String)).join(
            lookup, on=name, how="left", maintain_order="left"
        )
        flat = flat * len(levels) + codes["__i"].cast(pl.Int64).to_numpy()
    out = {}
    for col in columns:
        dense = np.full(int(np.prod(shape)), np.nan)
        dense[flat] = frame[col].cast(pl.Float64).fill_null(np.nan).to_numpy()
        out[col] = dense.reshape(shape)
    return out


def shift_cube(
    delta: pl.DataFrame, faces: list[str], scenarios: list[str], *, exact: bool = False
) -> ShiftCube:
    """The shifts of one model's ``delta`` rows (placebos excluded) as a value × face × scenario cube.

    ``exact``: the shifts carry no measurement error (a noise-free truth); else each cell's error is
    the binomial variance of its two φ.
    """
    rows = delta.filter(~is_placebo(delta) & pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
    values = sorted(rows["variation_value"].unique().to_list())
    if exact:
        rows = rows.with_columns(pl.lit(0.0).alias("__error"))
    else:
        rows = rows.with_columns(
            (
                cell_error(pl.col("phi_variation"), pl.col("n_valid_variation"))
                + cell_error(pl.col("phi_base"), pl.col("n_valid_base"))
            ).alias("__error")
        )
        mean_error = rows["__error"].mean()
        rows = rows.with_columns(pl.col("__error").fill_null(float(mean_error or 0.0)))  # type: ignore[arg-type]
    axes = [("variation_value", values), ("face_id", faces), ("scenario_id", scenarios)]
    dense = _dense(rows, axes, ["delta", "__error"])
    return ShiftCube(values, dense["delta"], dense["__error"])


def base_cube(
    base_phi: pl.DataFrame, faces: list[str], scenarios: list[str], *, exact: bool = False
) -> BaseCube:
    """One model's base φ (``base_phi`` rows) as a face × scenario array with demographic labels."""
    rows = base_phi.filter(pl.col("phi").is_not_null() & pl.col("phi").is_not_nan())
    rows = rows.with_columns(
        pl.lit(0.0).alias("__error")
        if exact
        else cell_error(pl.col("phi"), pl.col("n_valid")).alias("__error")
    )
    mean_error = rows["__error"].mean() if rows.height else 0.0
    rows = rows.with_columns(pl.col("__error").fill_null(float(mean_error or 0.0)))  # type: ignore[arg-type]
    dense = _dense(rows, [("face_id", faces), ("scenario_id", scenarios)], ["phi", "__error"])
    labels = {}
    for dim in DIMENSIONS:
        mapping = dict(rows.select("face_id", pl.col(dim).cast(pl.String)).unique("face_id").iter_rows())
        labels[dim] = np.array([mapping.get(f) for f in faces], dtype=object)
    return BaseCube(faces, dense["phi"], dense["__error"], labels)


def face_means(cube: ShiftCube) -> F64:
    """Per-face mean shift per value (``values × faces``), NaN unless the face has every scenario."""
    means: F64 = cube.delta.mean(axis=2)  # NaN wherever a scenario is missing
    return means


__all__ = [
    "PLACEBO_FEATURE_KEY",
    "BaseCube",
    "base_cube",
    "cell_error",
    "face_means",
    "is_placebo",
    "shift_cube",
]
