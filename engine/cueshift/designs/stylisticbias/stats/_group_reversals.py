r"""Sign reversals between demographic groups, counted only with evidence (Table 11; D7, D51).

A variation value "reverses" within a dimension (e.g. gender) when its group estimates take both
signs. On point estimates alone that happens wherever the true shift of a group is near zero:
two simulated judges with identical planted effects already show reversals. A reversal counts
here only when the data tell the two signs apart, an intersection–union test (Berger 1982): the
null "the shifts do not have opposite signs" is the union of "the positive group's shift is
:math:`\le 0`" and "the negative group's shift is :math:`\ge 0`", so it is rejected only when
both are, each at level alpha, and the pair needs no further multiplicity correction.
``reversal_evidence`` says which case a sign change is:

``both significant``
    a group with a positive and a group with a negative estimate are each significant
    (``p_adj < alpha`` of Table 11's face-level test): the only counted reversal;
``difference significant``
    else, the two groups differ: a two-sided Mann–Whitney U test of the per-face mean Δ of the
    group with the positive estimate against those of the group with the negative one,
    BH-adjusted over every such pair of the table, has ``p_adj < alpha``. That shows the groups
    differ, not that their signs do (+0.3 against −0.001 qualifies), so it is shown, not counted;
``not distinguishable``
    the signs differ, but neither holds: the data cannot tell the reversal from noise.

Faces belong to one group of a dimension, so the two samples are independent (MWU's
assumption). In a dimension of more than two groups every pair of opposite-signed groups is
tested, and the smallest adjusted p of the value × dimension is reported.

References
----------
.. [1] Berger, R. L. (1982). Multiparameter hypothesis testing and acceptance sampling.
   *Technometrics* 24, 295–300.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.stats import bh_adjust, mann_whitney_columns

BOTH_SIGNIFICANT = "both significant"
DIFFERENCE_SIGNIFICANT = "difference significant"
NOT_DISTINGUISHABLE = "not distinguishable"
#: Values of ``reversal_evidence`` (null: the groups' estimates do not take both signs).
REVERSAL_EVIDENCE: tuple[str, ...] = (BOTH_SIGNIFICANT, DIFFERENCE_SIGNIFICANT, NOT_DISTINGUISHABLE)


def opposite_sign_differences(cells: pl.DataFrame, values: F64, key: Sequence[str]) -> pl.DataFrame:
    r"""MWU of every pair of groups of one value × dimension whose estimates have opposite signs.

    For the pair :math:`(g^+, g^-)` (estimate :math:`> 0` and :math:`< 0`), the samples are the
    per-face mean Δ :math:`\bar\Delta_{f,v}` of the faces of each group (column of ``values``);
    :math:`U_1 = R_1 - n_1(n_1+1)/2` with :math:`R_1` the rank sum of :math:`g^+`, tie-corrected
    normal approximation with continuity correction, or the exact distribution when a group has
    at most 8 faces and there are no ties (:func:`mann_whitney_columns`, as
    ``scipy.stats.mannwhitneyu(method='auto')``). ``p_adj``: BH over every pair of the table.

    Parameters
    ----------
    cells : polars.DataFrame
        One row per column of ``values``: ``key`` columns, ``dimension``, ``group``, ``estimate``.
    values : ndarray, shape (n_faces, n_cells)
        Per-face mean Δ of each cell (NaN: the face is not in the cell's group).
    key : sequence of str
        Columns naming the value (e.g. ``variation_category``, ``variation_value``).

    Returns
    -------
    polars.DataFrame
        ``key``, ``dimension``, ``group_positive``, ``group_negative``, ``statistic`` (U of the
        positive group), ``p``, ``p_adj``, ``n``.

    References
    ----------
    .. [1] Mann, H. B. & Whitney, D. R. (1947). *Ann. Math. Stat.* 18, 50–60.
    .. [2] Benjamini, Y. & Hochberg, Y. (1995). *J. R. Stat. Soc. B* 57, 289–300.
    """
    on = [*key, "dimension"]
    indexed = cells.select(*on, "group", "estimate").with_row_index("column")
    pairs = (
        indexed.filter(pl.col("estimate") > 0)
        .join(indexed.filter(pl.col("estimate") < 0), on=on, suffix="_negative")
        .sort([*on, "group", "group_negative"])
    )
    positive = pairs["column"].to_numpy().astype(np.int64)
    negative = pairs["column_negative"].to_numpy().astype(np.int64)
    n_faces = values.shape[0]
    stacked = np.vstack([values[:, positive], values[:, negative]])
    labels = np.repeat(np.array([0, 1], dtype=np.int64), n_faces)
    if pairs.height:
        result = mann_whitney_columns(stacked, labels)
        statistic, p_value, n = result.statistic, result.p_value, result.n
    else:
        statistic = p_value = n = np.empty(0)
    return pairs.select(
        *on,
        pl.col("group").alias("group_positive"),
        pl.col("group_negative"),
        pl.Series("statistic", statistic, dtype=pl.Float64),
        pl.Series("p", p_value, dtype=pl.Float64),
        pl.Series("p_adj", bh_adjust(p_value), dtype=pl.Float64),
        pl.Series("n", n, dtype=pl.Float64).cast(pl.Int64),
    )


def reversal_flags(cells: pl.DataFrame, values: F64, key: Sequence[str], *, alpha: float) -> pl.DataFrame:
    """``cells`` (with ``p_adj`` of the face-level test) with the reversal columns of Table 11.

    ``sign_reversal``: the value's group estimates within the dimension take both signs **with
    evidence**, a positive and a negative group each significant (module docstring; since D51 the
    same as ``sign_reversal_both``, kept for stored tables); ``reversal_evidence``: ``both
    significant``, ``difference significant`` (the groups differ, the signs are not established:
    not a counted reversal) or ``not distinguishable`` (null without a sign change);
    ``reversal_p_adj``: the smallest BH-adjusted MWU p of the value × dimension's opposite-signed
    pairs (:func:`opposite_sign_differences`).

    Examples
    --------
    >>> import numpy as np
    >>> cells = pl.DataFrame({"variation_value": ["v", "v"], "dimension": ["gender", "gender"],
    ...                       "group": ["female", "male"], "estimate": [0.3, -0.001],
    ...                       "p_adj": [1e-6, 0.9]})
    >>> values = np.full((20, 2), np.nan)
    >>> values[:10, 0], values[10:, 1] = 0.255 + np.arange(10) / 100, np.arange(10) / 100 - 0.046
    >>> out = reversal_flags(cells, values, ["variation_value"], alpha=0.05)
    >>> out.select("reversal_evidence", "sign_reversal").row(0)
    ('difference significant', False)
    """
    on = [*key, "dimension"]
    differences = opposite_sign_differences(cells, values, key)
    smallest = differences.group_by(on).agg(pl.col("p_adj").min().alias("reversal_p_adj"))
    significant = pl.col("p_adj") < alpha
    flagged = cells.with_columns(
        pos_sig=(significant & (pl.col("estimate") > 0)).any().over(on),
        neg_sig=(significant & (pl.col("estimate") < 0)).any().over(on),
        sign_change=((pl.col("estimate") > 0).any() & (pl.col("estimate") < 0).any()).over(on),
    ).join(smallest, on=on, how="left", nulls_equal=True)
    evidence = (
        pl.when(~pl.col("sign_change"))
        .then(pl.lit(None, dtype=pl.String))
        .when(pl.col("pos_sig") & pl.col("neg_sig"))
        .then(pl.lit(BOTH_SIGNIFICANT))
        .when(pl.col("reversal_p_adj") < alpha)
        .then(pl.lit(DIFFERENCE_SIGNIFICANT))
        .otherwise(pl.lit(NOT_DISTINGUISHABLE))
    )
    return (
        flagged.with_columns(reversal_evidence=evidence)
        .with_columns(
            # intersection–union: only opposite signs each significant count (D51)
            sign_reversal=(pl.col("reversal_evidence") == BOTH_SIGNIFICANT).fill_null(False),
            sign_reversal_both=pl.col("sign_change") & pl.col("pos_sig") & pl.col("neg_sig"),
            reversal_p_adj=pl.when(pl.col("sign_change")).then(pl.col("reversal_p_adj")),
        )
        .drop("pos_sig", "neg_sig", "sign_change")
    )


__all__ = [
    "BOTH_SIGNIFICANT",
    "DIFFERENCE_SIGNIFICANT",
    "NOT_DISTINGUISHABLE",
    "REVERSAL_EVIDENCE",
    "opposite_sign_differences",
    "reversal_flags",
]
