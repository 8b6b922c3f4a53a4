"""Benjamini–Hochberg false-discovery-rate adjustment over a declared family."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Literal

import numpy as np
import polars as pl
from numpy.typing import ArrayLike, NDArray

#: Multiplicity correction of a family of tests: Benjamini–Hochberg or none.
Correction = Literal["none", "bh"]


def bh_adjust(p_values: ArrayLike) -> NDArray[np.float64]:
    r"""Benjamini–Hochberg adjusted p-values (step-up, independent or PRDS tests).

    With the :math:`m` non-missing p-values sorted, :math:`p_{(1)} \le \dots \le p_{(m)}`,

    .. math::

        \tilde p_{(i)} = \min_{j \ge i} \min\!\left(1, \frac{m}{j}\, p_{(j)}\right),

    and a hypothesis is rejected at FDR level :math:`\alpha` when :math:`\tilde p \le \alpha`.
    Missing p-values (NaN) are not part of the family and stay NaN.

    Parameters
    ----------
    p_values : array_like
        Unadjusted p-values of one family (any shape; adjusted jointly).

    Returns
    -------
    numpy.ndarray
        Adjusted p-values, same shape.

    Notes
    -----
    ``statsmodels.stats.multitest.multipletests(method="fdr_bh")`` and
    ``scipy.stats.false_discovery_control`` give the same values to within 1–2 ulp (they scale
    :math:`p_{(j)} / (j/m)` and :math:`p_{(j)} \cdot (m/j)`, this function :math:`(p_{(j)} m)/j`);
    this one is kept so that the stored result tables stay the same to the last digit. The tests
    compare all three (``tests/stats/test_rank.py``).

    References
    ----------
    .. [1] Benjamini, Y. & Hochberg, Y. (1995). Controlling the false discovery rate.
       *J. R. Stat. Soc. B* 57, 289–300.

    Examples
    --------
    >>> bh_adjust([0.01, 0.04, 0.03]).round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(p_values, dtype=np.float64)
    flat = p.ravel()
    out = np.full(flat.shape, np.nan)
    ok = ~np.isnan(flat)
    m = int(ok.sum())
    if m == 0:
        return out.reshape(p.shape)
    if np.any((flat[ok] < 0) | (flat[ok] > 1)):
        raise ValueError("p-values must lie in [0, 1]")
    values = flat[ok]
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    # (p m)/j rounds below p at j = m for some p: never let the adjustment lower a p-value
    scaled = np.maximum(ordered * m / np.arange(1, m + 1), ordered)
    adjusted_sorted = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    adjusted = np.empty(m)
    adjusted[order] = adjusted_sorted
    out[ok] = adjusted
    return out.reshape(p.shape)


def bh_by_family(
    frame: pl.DataFrame, family: Sequence[str], correction: Correction = "bh", *, p_col: str = "p"
) -> pl.DataFrame:
    """Add ``p_adj``: :func:`bh_adjust` within each family, or the raw p when ``correction='none'``.

    Parameters
    ----------
    frame : polars.DataFrame
        One test per row, its p-value in ``p_col`` (null or NaN: no test, not in the family).
    family : sequence of str
        Columns whose value combinations form the families; empty: all rows are one family.
    correction : {'bh', 'none'}
        ``'none'`` copies ``p_col`` (the seed papers that report uncorrected p-values).
    p_col : str
        Column holding the unadjusted p-values. A frame with ``p_value`` and no ``p`` (the name of
        the stored p-values before result schema 8) is read with a ``DeprecationWarning``.

    Returns
    -------
    polars.DataFrame
        ``frame`` with ``p_adj`` (Float64, NaN stored as null) appended, rows in their order.
        An empty frame gets an empty ``p_adj`` column, whatever ``correction``.
    """
    if p_col == "p" and "p" not in frame.columns and "p_value" in frame.columns:
        warnings.warn(
            "bh_by_family: the p-value column is 'p' (was 'p_value'); pass p_col='p_value' or rename it",
            DeprecationWarning,
            stacklevel=2,
        )
        p_col = "p_value"
    if frame.height == 0:
        return frame.with_columns(pl.lit(None, dtype=pl.Float64).alias("p_adj"))
    if correction == "none":
        return frame.with_columns(pl.col(p_col).cast(pl.Float64).alias("p_adj"))
    indexed = frame.with_row_index("__row")
    parts = []
    groups = indexed.group_by(list(family), maintain_order=True) if family else [((), indexed)]
    for _, part in groups:
        adjusted = bh_adjust(part[p_col].cast(pl.Float64).fill_null(np.nan).to_numpy())
        parts.append(part.select("__row").with_columns(pl.Series("p_adj", adjusted)))
    joined = indexed.join(pl.concat(parts), on="__row", how="left").sort("__row").drop("__row")
    return joined.with_columns(pl.col("p_adj").fill_nan(None))
