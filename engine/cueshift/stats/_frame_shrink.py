r"""Statistics on a frame: partial pooling of cell estimates towards their parents
(:func:`shrink`), over :func:`~cueshift.stats._shrinkage.eb_shrink`."""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.errors import CueshiftError
from cueshift.stats._frame_input import By, by_columns, finish
from cueshift.stats._shrinkage import eb_shrink


def shrink(
    data: pl.DataFrame,
    estimate: str,
    se: str,
    parent_by: By,
    by: By = None,
    *,
    tau_by: By = None,
    confidence: float = 0.95,
) -> pl.DataFrame:
    r"""Empirical Bayes shrinkage of each row's ``estimate`` towards its parent, with Morris's interval.

    Rows are cells (e.g. demographic groups × variation value) with a raw ``estimate`` and its
    standard error ``se``; the cells with equal ``parent_by`` values share a parent mean
    :math:`\mu_p`, and the between-cell variance :math:`\tau^2` is estimated over all rows (or
    within each group of ``tau_by``) by Paule–Mandel:

    .. math::

        \hat\theta_i = \hat\mu_p + (1 - B_i)(y_i - \hat\mu_p), \qquad
        B_i = \frac{d-2}{d}\frac{s_i^2}{s_i^2 + \hat\tau^2},

    :math:`d` = cells − parents; the interval and its terms are those of
    :func:`cueshift.stats.eb_shrink`. Output (input row order): the ``by`` columns, then
    ``estimate`` (pooled), ``ci_low``, ``ci_high``, ``statistic`` (the shrinkage factor
    :math:`B_i`: 0 keeps the raw estimate, 1 is the parent), ``n`` (cells of the parent), no
    p-values. A row without an estimate or a positive ``se`` gets nulls.

    References
    ----------
    .. [1] Efron, B. & Morris, C. (1975). *JASA* 70, 311–319.
    .. [2] Morris, C. N. (1983). Parametric empirical Bayes inference. *JASA* 78, 47–55.
    .. [3] Paule, R. C. & Mandel, J. (1982). *J. Res. Natl. Bur. Stand.* 87, 377–385.

    Raises
    ------
    CueshiftError
        A missing or non-numeric column, a negative ``se``, or fewer than 3 more cells than
        parents in a group of ``tau_by`` (no estimate of :math:`\tau^2` to pool with).

    Examples
    --------
    >>> cells = pl.DataFrame({"value": ["a"] * 3 + ["b"] * 3, "group": ["x", "y", "z"] * 2,
    ...                       "sbs": [0.1, -0.1, 0.3, 0.0, 0.2, -0.2], "se": [0.1] * 6})
    >>> out = shrink(cells, "sbs", "se", "value", ["value", "group"])
    >>> out["estimate"].round(3).to_list()
    [0.1, -0.075, 0.275, 0.0, 0.175, -0.175]
    """
    if not 0.0 < confidence < 1.0:
        raise CueshiftError(f"shrink: confidence must lie strictly between 0 and 1, not {confidence!r}")
    keys, parents, tau_keys = by_columns(by), by_columns(parent_by), by_columns(tau_by)
    if not isinstance(data, pl.DataFrame):
        raise CueshiftError(f"shrink: data must be a polars DataFrame, not {type(data).__name__}")
    missing = [c for c in dict.fromkeys([estimate, se, *parents, *keys, *tau_keys]) if c not in data.columns]
    if missing:
        raise CueshiftError(f"shrink: column {missing[0]!r} is not in the frame (columns: {data.columns})")
    for col in (estimate, se):
        if not data.schema[col].is_numeric():
            raise CueshiftError(f"shrink: column {col!r} must be numeric, not {data.schema[col]}")
    if data.height == 0:
        raise CueshiftError("shrink: the frame has no row")
    rows = data.with_columns(pl.col(estimate, se).cast(pl.Float64).fill_null(np.nan))
    if (rows[se] < 0).any():
        raise CueshiftError(f"shrink: column {se!r} holds a negative standard error")
    columns = {c: np.full(rows.height, np.nan) for c in ("estimate", "ci_low", "ci_high", "statistic", "n")}
    parent_codes = rows.select(pl.struct(parents).rank("dense")).to_series().to_numpy()
    tau_codes = rows.select(pl.struct(tau_keys).rank("dense")).to_series().to_numpy() if tau_keys else None
    for code in np.unique(tau_codes) if tau_codes is not None else [None]:
        part = np.ones(rows.height, dtype=bool) if tau_codes is None else tau_codes == code
        fit = eb_shrink(
            rows[estimate].to_numpy()[part],
            rows[se].to_numpy()[part],
            parent_codes[part],
            confidence_level=confidence,
        )
        if fit.df < 3:
            first = rows.filter(pl.Series(part)).row(0, named=True)
            where = "" if code is None else f" in {tau_keys} = {[first[k] for k in tau_keys]}"
            raise CueshiftError(
                f"shrink: {fit.df} more cells than parents{where}; at least 3 are needed to estimate tau^2"
            )
        columns["estimate"][part], columns["statistic"][part] = fit.estimate, fit.shrinkage
        columns["ci_low"][part], columns["ci_high"][part] = fit.ci_low, fit.ci_high
        columns["n"][part] = np.bincount(parent_codes[part])[parent_codes[part]]
    return finish(
        rows, keys, columns, method="empirical Bayes (Paule-Mandel tau^2, Morris interval)", name="shrink"
    )
